package org.sparknet.caffe.internal;

import java.util.List;
import org.bytedeco.caffe.BlobProto;
import org.bytedeco.caffe.FloatBlob;
import org.sparknet.ndarray.Shape;

/** Shapes of Caffe's blobs, in memory and in files. */
public final class BlobShapes {
  private BlobShapes() {}

  public static Shape of(FloatBlob b) {
    int n = b.num_axes();
    int[] dims = new int[n];
    for (int i = 0; i < n; i++) {
      dims[i] = b.shape(i);
    }
    return Shape.of(dims);
  }

  /** A stored blob's shape: its {@code shape} field, or the legacy 4-D (num, channels, h, w). */
  public static Shape of(BlobProto bp) {
    if (bp.has_shape()) {
      int n = bp.shape().dim_size();
      int[] dims = new int[n];
      for (int i = 0; i < n; i++) {
        dims[i] = Math.toIntExact(bp.shape().dim(i));
      }
      return Shape.of(dims);
    }
    // legacy 4-D blobs; Caffe accepts them for blobs of up to 4 axes
    return Shape.of(bp.num(), bp.channels(), bp.height(), bp.width());
  }

  /** {@code s} as a legacy 4-D blob stores it: padded with leading 1s (unchanged above 4 axes). */
  public static Shape legacy(Shape s) {
    if (s.rank() > 4) {
      return s;
    }
    int[] dims = {1, 1, 1, 1};
    for (int i = 0; i < s.rank(); i++) {
      dims[4 - s.rank() + i] = s.dim(i);
    }
    return Shape.of(dims);
  }

  /**
   * Whether a stored blob fits a blob of shape {@code want}: the same shape, or for a legacy blob
   * the same padded 4-D fields (Caffe's own copy accepts both).
   */
  public static boolean fits(BlobProto bp, Shape want) {
    return of(bp).equals(bp.has_shape() ? want : legacy(want));
  }

  /**
   * "holds N floats, needs M", for a stored blob whose data does not fill {@code shape} (saying why
   * when it holds doubles, which Caffe's float nets do not read).
   */
  public static String sizeProblem(BlobProto bp, Shape shape) {
    return "holds "
        + bp.data_size()
        + " floats, needs "
        + shape.size()
        + (bp.double_data_size() > 0 ? " (double data is not supported)" : "");
  }

  /**
   * Throws, naming every problem, when a stored file does not match the net it is loaded into.
   *
   * @param file what was read, with its kind ("Weights file x.caffemodel")
   */
  public static void rejectMismatch(String file, String netName, List<String> problems) {
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          file
              + " does not match net '"
              + netName
              + "': "
              + String.join("; ", problems)
              + "; nothing was changed");
    }
  }
}
