package org.sparknet.apps.data.db;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.opencv_core.Mat;

/**
 * An encoded Datum's image decoded as Caffe 1.0 decodes it (io.cpp DecodeDatumToCVMatNative /
 * DecodeDatumToCVMat: OpenCV's imdecode with flag -1, or colour, or grey) and laid out as
 * DataTransformer lays out a cv::Mat: rows of interleaved B, G, R(, A) bytes into channel planes.
 * DataTransformer takes 8-bit images only (it CHECKs depth == CV_8U), so a 16-bit PNG is refused
 * here rather than in Caffe.
 */
record EncodedImage(DatumShape shape, float[] chw) {
  static EncodedImage decode(byte[] bytes, Datum.Decode decode, String where) {
    int flag =
        switch (decode) {
          case NATIVE -> opencv_imgcodecs.IMREAD_UNCHANGED;
          case COLOR -> opencv_imgcodecs.IMREAD_COLOR;
          case GRAY -> opencv_imgcodecs.IMREAD_GRAYSCALE;
        };
    if (bytes.length == 0) {
      throw new IllegalArgumentException(where + ": an encoded Datum with no image bytes");
    }
    try (BytePointer buf = new BytePointer(bytes);
        Mat encoded = new Mat(1, bytes.length, opencv_core.CV_8UC1, buf);
        Mat img = opencv_imgcodecs.imdecode(encoded, flag)) {
      if (img == null || img.empty()) {
        throw new IllegalArgumentException(
            where
                + ": an encoded Datum whose "
                + bytes.length
                + " bytes OpenCV's imdecode cannot decode (not a JPEG, PNG or other image it"
                + " reads, or a damaged one)");
      }
      if (img.depth() != opencv_core.CV_8U) {
        throw new IllegalArgumentException(
            where
                + ": an encoded image of "
                + (img.elemSize1() * 8)
                + "-bit samples; Caffe reads 8-bit images only: re-encode it as 8-bit");
      }
      return planes(img);
    }
  }

  private static EncodedImage planes(Mat img) {
    DatumShape shape = new DatumShape(img.channels(), img.rows(), img.cols());
    int c = shape.channels();
    int plane = shape.height() * shape.width();
    byte[] hwc = new byte[plane * c];
    try (BytePointer data = img.data()) {
      data.get(hwc);
    }
    float[] chw = new float[hwc.length];
    for (int i = 0; i < plane; i++) {
      for (int k = 0; k < c; k++) {
        chw[k * plane + i] = hwc[i * c + k] & 0xff;
      }
    }
    return new EncodedImage(shape, chw);
  }
}
