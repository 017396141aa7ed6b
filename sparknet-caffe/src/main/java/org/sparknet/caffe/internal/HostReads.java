package org.sparknet.caffe.internal;

import org.bytedeco.caffe.Caffe;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.javacpp.FloatPointer;

/**
 * The one way a training step reads blob values back to the host, and a count of those reads.
 *
 * <p>On a GPU each read is a host synchronisation: the host waits for the device to finish the work
 * queued so far before it can see a sum or a value. A step should make one (its loss, with the
 * finiteness of everything it computed: {@link StepProbe}); {@code HostSyncsIT} counts them, and
 * {@code HostReadsGuardTest} keeps the step's classes from reading blobs any other way.
 */
public final class HostReads {
  private long count;

  /** Blob::asum_data, one read: the sum of the magnitudes of the blob's values. */
  public float asum(FloatBlob b) {
    count++;
    return b.asum_data();
  }

  /** A copy of the blob's values, one read (on a GPU, a device-to-host copy of the blob). */
  public float[] values(FloatBlob b) {
    count++;
    int n = b.count();
    float[] out = new float[n];
    b.cpu_data().capacity(n).asBuffer().get(out);
    return out;
  }

  /**
   * The blob's host memory as an operand of CPU BLAS, not a read: in CPU mode the values stay where
   * they are and nothing waits. In GPU mode this would copy the blob to the host, so it throws.
   */
  public FloatPointer cpuOperand(FloatBlob b) {
    checkCpuMode();
    return b.cpu_data();
  }

  /** Like {@link #cpuOperand} for a blob written by CPU BLAS. */
  public FloatPointer mutableCpuOperand(FloatBlob b) {
    checkCpuMode();
    return b.mutable_cpu_data();
  }

  /** Reads made so far. */
  public long count() {
    return count;
  }

  private static void checkCpuMode() {
    if (Caffe.mode() != Caffe.CPU) {
      throw new IllegalStateException(
          "A CPU BLAS operand was asked for in Caffe's GPU mode: it would copy the blob to the host");
    }
  }
}
