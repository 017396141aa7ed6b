package org.sparknet.caffe.internal;

import static org.bytedeco.caffe.global.caffe.caffe_copy_float;
import static org.bytedeco.caffe.global.caffe.caffe_cpu_gemv_float;
import static org.bytedeco.caffe.global.caffe.caffe_set_float;

import java.util.List;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.PointerScope;

/**
 * Whether every value a step computed is finite, and its loss, in one host read.
 *
 * <p>Each blob given to {@link #add} is summed where it lives into one accumulator, a float in a
 * scratch blob: a NaN or an infinity anywhere makes that sum non-finite, and it stays so (NaN plus
 * anything is NaN, +inf plus -inf is NaN). So does a finite total beyond Float.MAX_VALUE, from
 * values that have diverged anyway. {@link #read} copies the loss blobs next to the accumulator and
 * reads the scratch blob back once. A non-finite sum is only a signal: the caller then searches
 * blob by blob ({@link Divergence}, a read a blob, paid only then) for what to name, and carries on
 * when the search finds every blob finite.
 *
 * <p>In CPU mode the sums are Caffe's {@code caffe_cpu_gemv} of each blob, viewed as rows of
 * {@value #CHUNK} floats and a tail, against a vector of ones (OpenBLAS's sgemv lets a NaN or an
 * infinity through wherever it sits: FiniteCheckIT), and the loss blobs are copied with {@code
 * caffe_copy}: nothing is read back but the scratch blob. Caffe's GPU math ({@code caffe_gpu_gemv})
 * is not in the presets' Java API, so in GPU mode each blob is summed by its own {@code
 * Blob::asum_data} (a read each) and each loss blob read, as the step did before this class: an
 * accumulation in device memory (cuBLAS) is the GPU's part of this work, behind the same methods.
 */
public final class StepProbe implements AutoCloseable {
  private static final int NO_TRANS = 111; // CBLAS_TRANSPOSE's CblasNoTrans
  static final int CHUNK = 4096;

  private final HostReads reads;
  private final boolean onHost;
  private final List<String> lossBlobs;
  private final FloatBlob scratch; // [accumulator, the loss blobs' values in order]
  private final FloatBlob ones; // CPU mode
  private final FloatBlob partials; // CPU mode: one sum per row of a blob
  private double hostSum; // GPU mode: the accumulator
  private boolean closed;

  /**
   * A probe for blobs of at most {@code maxCount} floats, whose reads return the values of {@code
   * lossBlobs} ({@code lossValues} floats in all); on the host (CPU mode) or not.
   */
  public StepProbe(
      int maxCount, List<String> lossBlobs, int lossValues, HostReads reads, boolean onHost) {
    this.reads = reads;
    this.onHost = onHost;
    this.lossBlobs = List.copyOf(lossBlobs);
    int rows = Math.max(1, maxCount / CHUNK);
    this.scratch = owned(1 + lossValues);
    this.ones = onHost ? owned(Math.max(CHUNK, rows)) : null;
    this.partials = onHost ? owned(rows) : null;
    if (onHost) {
      caffe_set_float(ones.count(), 1f, reads.mutableCpuOperand(ones));
      caffe_set_float(scratch.count(), 0f, reads.mutableCpuOperand(scratch));
    }
  }

  /** A blob of {@code n} floats that this probe frees, kept out of the caller's pointer scope. */
  private static FloatBlob owned(int n) {
    FloatBlob b = new FloatBlob(1, 1, 1, n);
    PointerScope scope = PointerScope.getInnerScope();
    if (scope != null) {
      b.retainReference(); // survive the scope: close() releases it
      scope.detach(b);
    }
    return b;
  }

  /** Adds the sum of {@code b}'s values to the accumulator: no read in CPU mode. */
  public void add(FloatBlob b) {
    checkOpen();
    if (!onHost) {
      hostSum += reads.asum(b);
      return;
    }
    int n = b.count();
    int rows = n / CHUNK;
    int tail = n - rows * CHUNK;
    FloatPointer acc = reads.mutableCpuOperand(scratch);
    FloatPointer one = reads.cpuOperand(ones);
    if (rows > 0) {
      // Beta 0 overwrites the partial sums of the previous blob.
      FloatPointer p = reads.mutableCpuOperand(partials);
      caffe_cpu_gemv_float(NO_TRANS, rows, CHUNK, 1f, reads.cpuOperand(b), one, 0f, p);
      caffe_cpu_gemv_float(NO_TRANS, 1, rows, 1f, p, one, 1f, acc);
    }
    if (tail > 0) {
      FloatPointer rest = reads.cpuOperand(b).position((long) rows * CHUNK);
      caffe_cpu_gemv_float(NO_TRANS, 1, tail, 1f, rest, one, 1f, acc);
    }
  }

  /**
   * One read: [0] the accumulated sum since the last read (then zero again), and, with {@code
   * withLoss}, the loss blobs' values of {@code net}'s last forward pass after it (zeros without).
   */
  public float[] read(FloatNet net, boolean withLoss) {
    checkOpen();
    if (!onHost) {
      return readOnDevice(net, withLoss);
    }
    if (withLoss) {
      int at = 1;
      for (String name : lossBlobs) {
        FloatBlob b = net.blob_by_name(name);
        caffe_copy_float(
            b.count(), reads.cpuOperand(b), reads.mutableCpuOperand(scratch).position(at));
        at += b.count();
      }
    }
    float[] v = reads.values(scratch);
    caffe_set_float(scratch.count(), 0f, reads.mutableCpuOperand(scratch));
    return v;
  }

  private float[] readOnDevice(FloatNet net, boolean withLoss) {
    float[] v = new float[scratch.count()];
    v[0] = (float) hostSum;
    hostSum = 0;
    if (withLoss) {
      int at = 1;
      for (String name : lossBlobs) {
        float[] x = reads.values(net.blob_by_name(name));
        System.arraycopy(x, 0, v, at, x.length);
        at += x.length;
      }
    }
    return v;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("StepProbe has been closed");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    scratch.close();
    if (ones != null) {
      ones.close();
      partials.close();
    }
  }
}
