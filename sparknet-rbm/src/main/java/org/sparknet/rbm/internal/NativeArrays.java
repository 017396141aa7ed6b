package org.sparknet.rbm.internal;

import org.sparknet.ndarray.NDArray;

/**
 * Native arrays made together and freed together: either every array is allocated, or, when one
 * allocation fails, those already made are freed before the failure propagates, so that an owner
 * that fails half-way through its constructor leaks no native memory.
 */
public final class NativeArrays {
  private NativeArrays() {}

  /** New zeroed arrays, one per shape, in order; the caller owns them all. */
  public static NDArray[] zeros(int[]... shapes) {
    NDArray[] made = new NDArray[shapes.length];
    try {
      for (int i = 0; i < shapes.length; i++) {
        made[i] = NDArray.zeros(shapes[i]);
      }
      return made;
    } catch (RuntimeException | Error e) {
      close(made);
      throw e;
    }
  }

  /** Closes each array that is not null. */
  public static void close(NDArray... arrays) {
    for (NDArray a : arrays) {
      if (a != null) {
        a.close();
      }
    }
  }
}
