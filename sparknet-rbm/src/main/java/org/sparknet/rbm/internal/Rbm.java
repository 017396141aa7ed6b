package org.sparknet.rbm.internal;

import java.util.SplittableRandom;
import org.sparknet.ndarray.NDArray;

/**
 * The parameters of an RBM in native memory (weights W [visible, hidden], visible bias [visible],
 * hidden bias [hidden]) and the CD-k statistics over a batch. Matrix products run in OpenBLAS
 * ({@link NDArray#gemm}); sampling runs in Java on a heap copy of the probabilities (one copy out
 * and one in per sampled layer: cheaper than a JNI call per element and needs no native RNG).
 *
 * <p>Energy: {@code E(v, h) = -bv.v - bh.h - v W h}. For binary hidden units {@code p(h_j = 1 | v)
 * = sigmoid(bh_j + (v W)_j)}; for Gaussian ones {@code h_j ~ N(bh_j + (v W)_j, 1)}. Visible units
 * are binary: {@code p(v_i = 1 | h) = sigmoid(bv_i + (W h)_i)}.
 *
 * <p>Owns its arrays; {@link #close()} frees them and is idempotent. One thread at a time.
 */
public final class Rbm implements AutoCloseable {
  private final int visible;
  private final int hidden;
  private final boolean gaussianHidden;
  private final NDArray w;
  private final NDArray bv;
  private final NDArray bh;
  private Workspace workspace;
  private boolean closed;

  /**
   * The statistics of one CD-k batch, averaged over its rows: the data term {@code <v h>_data}
   * (with h at its conditional mean given the data) and the model term {@code <v h>_model} (v the
   * k-th Gibbs sample, h its conditional mean), each for W and both biases. Owns its arrays.
   */
  public static final class Statistics implements AutoCloseable {
    public final NDArray dataW;
    public final NDArray modelW;
    public final NDArray dataVisible;
    public final NDArray modelVisible;
    public final NDArray dataHidden;
    public final NDArray modelHidden;

    public Statistics(int visible, int hidden) {
      int[] w = {visible, hidden};
      NDArray[] a =
          NativeArrays.zeros(
              w,
              w,
              new int[] {visible},
              new int[] {visible},
              new int[] {hidden},
              new int[] {hidden});
      dataW = a[0];
      modelW = a[1];
      dataVisible = a[2];
      modelVisible = a[3];
      dataHidden = a[4];
      modelHidden = a[5];
    }

    @Override
    public void close() {
      NativeArrays.close(dataW, modelW, dataVisible, modelVisible, dataHidden, modelHidden);
    }
  }

  /** Scratch arrays for one batch size. */
  private static final class Workspace implements AutoCloseable {
    final int rows;
    final NDArray hiddenMean; // [n, hidden]: p(h | v0), or the mean of Gaussian units
    final NDArray hiddenSample; // [n, hidden]
    final NDArray visibleMean; // [n, visible]
    final NDArray visibleSample; // [n, visible]
    final NDArray chainHiddenMean; // [n, hidden]
    final float[] heapHidden;
    final float[] heapVisible;

    Workspace(int rows, int visible, int hidden) {
      this.rows = rows;
      int[] h = {rows, hidden};
      int[] v = {rows, visible};
      NDArray[] a = NativeArrays.zeros(h, h, v, v, h);
      hiddenMean = a[0];
      hiddenSample = a[1];
      visibleMean = a[2];
      visibleSample = a[3];
      chainHiddenMean = a[4];
      heapHidden = new float[rows * hidden];
      heapVisible = new float[rows * visible];
    }

    @Override
    public void close() {
      NativeArrays.close(hiddenMean, hiddenSample, visibleMean, visibleSample, chainHiddenMean);
    }
  }

  public Rbm(int visible, int hidden, boolean gaussianHidden) {
    this.visible = visible;
    this.hidden = hidden;
    this.gaussianHidden = gaussianHidden;
    NDArray[] params =
        NativeArrays.zeros(new int[] {visible, hidden}, new int[] {visible}, new int[] {hidden});
    this.w = params[0];
    this.bv = params[1];
    this.bh = params[2];
  }

  public int visible() {
    return visible;
  }

  public int hidden() {
    return hidden;
  }

  /** The weights W [visible, hidden]: the owner's array, valid until {@link #close()}. */
  public NDArray weights() {
    checkOpen();
    return w;
  }

  public NDArray visibleBias() {
    checkOpen();
    return bv;
  }

  public NDArray hiddenBias() {
    checkOpen();
    return bh;
  }

  /** Weights drawn from N(0, std^2), biases zero. */
  public void initialize(float std, SplittableRandom rnd) {
    checkOpen();
    float[] a = new float[visible * hidden];
    for (int i = 0; i < a.length; i++) {
      a[i] = (float) (std * rnd.nextGaussian());
    }
    w.copyFrom(a);
    bv.fill(0f);
    bh.fill(0f);
  }

  private Workspace workspace(int rows) {
    if (workspace == null || workspace.rows != rows) {
      if (workspace != null) {
        workspace.close();
        workspace = null;
      }
      workspace = new Workspace(rows, visible, hidden);
    }
    return workspace;
  }

  /** out = mean of the hidden units given v: sigmoid(v W + bh), or v W + bh for Gaussian units. */
  private void hiddenMean(NDArray v, NDArray out) {
    out.gemm(1f, v, false, w, false, 0f).addRowVector(bh);
    if (!gaussianHidden) {
      out.sigmoid();
    }
  }

  /** out = p(v = 1 | h) = sigmoid(h W^T + bv). */
  private void visibleMean(NDArray h, NDArray out) {
    out.gemm(1f, h, false, w, true, 0f).addRowVector(bv).sigmoid();
  }

  private static void sampleBinary(NDArray mean, NDArray out, float[] heap, SplittableRandom rnd) {
    mean.copyTo(heap);
    for (int i = 0; i < heap.length; i++) {
      heap[i] = rnd.nextFloat() < heap[i] ? 1f : 0f;
    }
    out.copyFrom(heap);
  }

  private void sampleHidden(NDArray mean, NDArray out, float[] heap, SplittableRandom rnd) {
    if (!gaussianHidden) {
      sampleBinary(mean, out, heap, rnd);
      return;
    }
    mean.copyTo(heap);
    for (int i = 0; i < heap.length; i++) {
      heap[i] += (float) rnd.nextGaussian();
    }
    out.copyFrom(heap);
  }

  /**
   * CD-k on the batch {@code v0} [n, visible]: fills {@code stats} and returns the sum over the
   * batch of the squared error between v0 and its one-step reconstruction p(v | h0), h0 sampled
   * from p(h | v0) (the usual "reconstruction error" of CD training).
   */
  public double contrastiveDivergence(NDArray v0, int k, SplittableRandom rnd, Statistics stats) {
    checkOpen();
    checkBatch(v0);
    int n = v0.shape().dim(0);
    Workspace ws = workspace(n);
    float inv = 1f / n;
    hiddenMean(v0, ws.hiddenMean);
    stats.dataW.gemm(inv, v0, true, ws.hiddenMean, false, 0f);
    v0.sumRows(inv, stats.dataVisible, 0f);
    ws.hiddenMean.sumRows(inv, stats.dataHidden, 0f);

    sampleHidden(ws.hiddenMean, ws.hiddenSample, ws.heapHidden, rnd);
    double sse = 0;
    for (int step = 1; step <= k; step++) {
      visibleMean(ws.hiddenSample, ws.visibleMean);
      if (step == 1) {
        sse = squaredError(v0, ws.visibleMean, ws.heapVisible);
      }
      sampleBinary(ws.visibleMean, ws.visibleSample, ws.heapVisible, rnd);
      hiddenMean(ws.visibleSample, ws.chainHiddenMean);
      if (step < k) {
        sampleHidden(ws.chainHiddenMean, ws.hiddenSample, ws.heapHidden, rnd);
      }
    }
    stats.modelW.gemm(inv, ws.visibleSample, true, ws.chainHiddenMean, false, 0f);
    ws.visibleSample.sumRows(inv, stats.modelVisible, 0f);
    ws.chainHiddenMean.sumRows(inv, stats.modelHidden, 0f);
    return sse;
  }

  /**
   * The deterministic (mean-field) pass: hidden means given v0 into {@code hiddenOut} [n, hidden]
   * and p(v | hidden means) into {@code reconstructionOut} [n, visible]; returns the sum of squared
   * errors between v0 and the reconstruction.
   */
  public double meanField(NDArray v0, NDArray hiddenOut, NDArray reconstructionOut) {
    checkOpen();
    checkBatch(v0);
    hiddenMean(v0, hiddenOut);
    visibleMean(hiddenOut, reconstructionOut);
    return squaredError(v0, reconstructionOut, new float[Math.toIntExact(v0.size())]);
  }

  private static double squaredError(NDArray a, NDArray b, float[] scratch) {
    float[] x = a.toArray();
    b.copyTo(scratch);
    double s = 0;
    for (int i = 0; i < x.length; i++) {
      double d = x[i] - scratch[i];
      s += d * d;
    }
    return s;
  }

  private void checkBatch(NDArray v0) {
    if (v0.rank() != 2 || v0.shape().dim(1) != visible) {
      throw new IllegalArgumentException(
          "The RBM's visible batch must be [n, " + visible + "] but is " + v0.shape());
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("Use after close: RBM " + visible + "x" + hidden);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (workspace != null) {
      workspace.close();
    }
    w.close();
    bv.close();
    bh.close();
  }
}
