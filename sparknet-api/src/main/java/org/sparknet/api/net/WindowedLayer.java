package org.sparknet.api.net;

/**
 * The kernel, stride and pad setters of the layers that slide a {@link Window} over their input
 * ({@link ConvLayer}, {@link PoolLayer}), each as a square and as a (height, width) pair.
 *
 * @param <S> the concrete layer type, so that the fluent setters return it
 */
@SuppressWarnings("unchecked") // S is the layer itself: the setters' casts are safe
interface WindowedLayer<S extends LayerSpec<S>> {

  private LayerSpec<S> layer() {
    return (LayerSpec<S>) this;
  }

  /** A square kernel. Required (pooling: unless global). */
  default S setKernel(int size) {
    return setKernel(size, size);
  }

  default S setKernel(int height, int width) {
    LayerSpec<S> l = layer();
    l.window().kernel = new int[] {l.positive("kernel", height), l.positive("kernel", width)};
    return (S) l;
  }

  /** Default 1. */
  default S optStride(int stride) {
    return optStride(stride, stride);
  }

  default S optStride(int height, int width) {
    LayerSpec<S> l = layer();
    l.window().stride = new int[] {l.positive("stride", height), l.positive("stride", width)};
    l.window().strideSet = true;
    return (S) l;
  }

  /** Zero padding on each side; default 0 (pooling: smaller than the kernel, as Caffe checks). */
  default S optPad(int pad) {
    return optPad(pad, pad);
  }

  default S optPad(int height, int width) {
    LayerSpec<S> l = layer();
    l.window().pad = new int[] {l.nonNegative("pad", height), l.nonNegative("pad", width)};
    l.window().padSet = true;
    return (S) l;
  }
}
