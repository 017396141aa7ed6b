package org.sparknet.api.net;

/**
 * Kernel, stride and pad of a convolution or pooling window, (height, width) each: written as
 * {@code kernel_size} when square, else as {@code kernel_h} and {@code kernel_w}, like Caffe reads
 * them.
 */
final class Window {
  int[] kernel; // null until set
  int[] stride = {1, 1};
  int[] pad = {0, 0};
  boolean strideSet;
  boolean padSet;

  void write(PrototxtWriter w) {
    if (padSet) {
      pair(w, "pad", pad);
    }
    if (kernel != null) {
      pair(w, "kernel", kernel);
    }
    if (strideSet) {
      pair(w, "stride", stride);
    }
  }

  private static void pair(PrototxtWriter w, String field, int[] hw) {
    if (hw[0] == hw[1]) {
      w.bare(field.equals("kernel") ? "kernel_size" : field, hw[0]);
    } else {
      w.bare(field + "_h", hw[0]).bare(field + "_w", hw[1]);
    }
  }

  /** The padded input must hold the kernel; names the layer, the field and the sizes. */
  static void checkFits(LayerSpec<?> layer, int[] kernel, int[] pad, int h, int w, String bottom) {
    int[] in = {h, w};
    String[] axis = {"height", "width"};
    for (int i = 0; i < 2; i++) {
      if (kernel[i] > in[i] + 2 * pad[i]) {
        throw layer.fail(
            "field 'kernel' ("
                + LayerSpec.dims(kernel)
                + ") is larger than the input "
                + axis[i]
                + " "
                + in[i]
                + (pad[i] > 0 ? " plus 2 x pad " + pad[i] : "")
                + " of bottom '"
                + bottom
                + "'; use a smaller kernel, pad the input, or remove a pooling layer before it");
      }
    }
  }
}
