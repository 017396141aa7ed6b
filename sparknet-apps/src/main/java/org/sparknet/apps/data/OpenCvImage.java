package org.sparknet.apps.data;

import java.util.function.Function;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.global.opencv_imgproc;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Size;

/**
 * An image decoded as Caffe's {@code ReadImageToCVMat(filename, height, width, is_color)} decodes
 * it: OpenCV's {@code imdecode} with {@code IMREAD_COLOR} (B, G, R; grey and CMYK JPEGs become BGR,
 * a PNG's alpha is dropped, 16-bit PNGs become 8-bit) or {@code IMREAD_GRAYSCALE} (one channel),
 * then {@code resize} with linear interpolation when both sizes are positive. The pixels are kept
 * interleaved (height x width x channels), as OpenCV holds them.
 */
final class OpenCvImage {
  private final int channels;
  private final int height;
  private final int width;
  private final byte[] interleaved;

  private OpenCvImage(int channels, int height, int width, byte[] interleaved) {
    this.channels = channels;
    this.height = height;
    this.width = width;
    this.interleaved = interleaved;
  }

  /**
   * Decodes {@code bytes} in colour (3 channels) or grey (1), resized to {@code height x width}
   * when both are positive and kept at its own size when both are 0; null when OpenCV recognises no
   * image in them.
   */
  static OpenCvImage decode(byte[] bytes, boolean color, int height, int width) {
    if (bytes.length == 0) {
      return null;
    }
    int flag = color ? opencv_imgcodecs.IMREAD_COLOR : opencv_imgcodecs.IMREAD_GRAYSCALE;
    try (BytePointer buf = new BytePointer(bytes);
        Mat encoded = new Mat(1, bytes.length, opencv_core.CV_8UC1, buf);
        Mat img = opencv_imgcodecs.imdecode(encoded, flag)) {
      if (img == null || img.empty()) {
        return null;
      }
      if (height <= 0 || width <= 0) {
        return of(img);
      }
      try (Mat sized = new Mat();
          Size size = new Size(width, height)) {
        opencv_imgproc.resize(img, sized, size, 0, 0, opencv_imgproc.INTER_LINEAR);
        return of(sized);
      }
    }
  }

  /**
   * {@link #decode}, or what {@code failure} makes of the reason it could not (OpenCV's own words
   * where it threw, else that imdecode recognised no format): callers name the file and choose to
   * throw or to skip it.
   */
  static OpenCvImage decodeOrElse(
      byte[] bytes, boolean color, int height, int width, Function<String, OpenCvImage> failure) {
    String why;
    try {
      OpenCvImage img = decode(bytes, color, height, width);
      if (img != null) {
        return img;
      }
      why = "OpenCV's imdecode recognises no image format in its " + bytes.length + " bytes";
    } catch (RuntimeException e) {
      why = e.getMessage() != null ? e.getMessage() : e.toString();
    }
    return failure.apply(why);
  }

  /**
   * A copy of the pixels of {@code m}, an 8-bit image that imdecode or resize made (continuous).
   */
  private static OpenCvImage of(Mat m) {
    byte[] px = new byte[m.rows() * m.cols() * m.channels()];
    try (BytePointer data = m.data()) {
      data.get(px);
    }
    return new OpenCvImage(m.channels(), m.rows(), m.cols(), px);
  }

  int channels() {
    return channels;
  }

  int height() {
    return height;
  }

  int width() {
    return width;
  }

  /** Caffe's layout: channels x height x width (B, G, R planes in colour), values times scale. */
  float[] chw(float scale) {
    int plane = height * width;
    float[] out = new float[channels * plane];
    for (int i = 0; i < plane; i++) {
      for (int c = 0; c < channels; c++) {
        out[c * plane + i] = (interleaved[i * channels + c] & 0xff) * scale;
      }
    }
    return out;
  }
}
