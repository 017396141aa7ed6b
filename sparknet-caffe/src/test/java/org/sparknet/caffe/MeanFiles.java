package org.sparknet.caffe;

import java.nio.file.Path;
import org.bytedeco.caffe.BlobProto;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.PointerScope;

/** Writes Caffe mean images (.binaryproto, a BlobProto of 1 x C x H x W) for tests. */
final class MeanFiles {
  private MeanFiles() {}

  static Path write(Path file, int channels, int height, int width, float[] values) {
    if (values.length != channels * height * width) {
      throw new IllegalArgumentException(
          "values do not match " + channels + "x" + height + "x" + width);
    }
    try (PointerScope scope = new PointerScope()) {
      BlobProto p = new BlobProto();
      p.set_num(1);
      p.set_channels(channels);
      p.set_height(height);
      p.set_width(width);
      for (float v : values) {
        p.add_data(v);
      }
      caffe.WriteProtoToBinaryFile(p, file.toString());
    }
    return file;
  }

  /** value(i) = start + step * i, for i over the flat index. */
  static float[] ramp(int n, float start, float step) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = start + step * i;
    }
    return v;
  }
}
