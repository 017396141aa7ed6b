package org.sparknet.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Pointer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.api.averaging.Averager;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * NDArray and WeightCollection arithmetic on AlexNet's parameter count (60,965,224 floats, 244 MB)
 * against a plain copy of the same bytes: native memcpy for NDArray, System.arraycopy for the heap
 * WeightCollection. Results and the command are in BENCHMARKS.md.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms3g", "-Xmx3g", "-Dorg.bytedeco.javacpp.nopointergc=true"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ArithmeticBenchmark {
  /** AlexNet (bvlc_alexnet) learnable parameters: filters and biases of 5 conv and 3 fc layers. */
  static final int[][] ALEXNET = {
    {96, 3, 11, 11}, {96},
    {256, 48, 5, 5}, {256},
    {384, 256, 3, 3}, {384},
    {384, 192, 3, 3}, {384},
    {256, 192, 3, 3}, {256},
    {4096, 9216}, {4096},
    {4096, 4096}, {4096},
    {1000, 4096}, {1000}
  };

  static final int N = total();

  static int total() {
    long n = 0;
    for (int[] dims : ALEXNET) {
      n += Shape.of(dims).size();
    }
    return Math.toIntExact(n);
  }

  NDArray x;
  NDArray y;
  FloatPointer src;
  FloatPointer dst;
  WeightCollection a;
  WeightCollection b;
  float[] heapSrc;
  float[] heapDst;
  List<WeightCollection> pair;

  @Setup(Level.Trial)
  public void setUp() {
    Random rnd = new Random(42);
    float[] data = new float[N];
    for (int i = 0; i < N; i++) {
      data[i] = rnd.nextFloat() - 0.5f;
    }
    x = NDArray.create(data, N);
    y = NDArray.create(data, N);
    src = new FloatPointer(N);
    dst = new FloatPointer(N);
    src.put(data);
    dst.put(data);
    a = collection(data, 0);
    b = collection(data, 1);
    pair = List.of(a, b);
    heapSrc = data.clone();
    heapDst = data.clone();
  }

  static WeightCollection collection(float[] data, int shift) {
    WeightCollection w = new WeightCollection();
    int off = 0;
    for (int l = 0; l < ALEXNET.length; l += 2) {
      List<Tensor> ts = new ArrayList<>();
      for (int k = l; k < l + 2; k++) {
        Shape s = Shape.of(ALEXNET[k]);
        float[] d = new float[(int) s.size()];
        for (int i = 0; i < d.length; i++) {
          d[i] = data[(off + i + shift) % data.length];
        }
        off += d.length;
        ts.add(new Tensor(s, d));
      }
      w.put("layer" + l / 2, ts);
    }
    return w;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    x.close();
    y.close();
    src.close();
    dst.close();
  }

  /** Baseline: copy 244 MB native to native. */
  @Benchmark
  public FloatPointer nativeMemcpy() {
    Pointer.memcpy(dst, src, (long) N * Float.BYTES);
    return dst;
  }

  @Benchmark
  public NDArray ndarrayCopyFrom() {
    y.copyFrom(x);
    return y;
  }

  /** y += alpha * x: reads 2 arrays, writes 1 (OpenBLAS saxpy). */
  @Benchmark
  public NDArray ndarrayAddScaled() {
    return y.addScaled(1e-3f, x);
  }

  /** Baseline: copy 244 MB heap to heap. */
  @Benchmark
  public float[] heapArraycopy() {
    System.arraycopy(heapSrc, 0, heapDst, 0, N);
    return heapDst;
  }

  /** The mean of two collections: reads 2 × 244 MB, allocates and writes 244 MB. */
  @Benchmark
  public WeightCollection weightsMean() {
    return WeightCollection.mean(pair);
  }

  /**
   * The driver's combination of two workers' flat weights, weighted by their examples, as a round
   * does it ({@link Averager#weightedMean}: float, parallel chunks).
   */
  @Benchmark
  public float[] driverWeightedMean() {
    return Averager.weightedMean(java.util.List.of(heapSrc, heapDst), new double[] {3, 5});
  }

  /** The tree path's running sum of the same (Averager.Sum: double, one thread). */
  @Benchmark
  public float[] treeSumWeightedMean() {
    return new Averager.Sum().add(heapSrc, 3).add(heapDst, 5).mean();
  }

  /** The former recipe of mean, for comparison: copy, add, scale by 1/N (single-threaded). */
  @Benchmark
  public WeightCollection weightsMeanCopyAddScale() {
    return a.copy().add(b).scale(0.5f);
  }
}
