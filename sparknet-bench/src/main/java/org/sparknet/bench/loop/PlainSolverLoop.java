package org.sparknet.bench.loop;

import static org.bytedeco.caffe.global.caffe.caffe_cpu_gemv_float;
import static org.bytedeco.caffe.global.caffe.caffe_set_float;

import java.nio.FloatBuffer;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatBlobSharedVector;
import org.bytedeco.caffe.FloatBlobVector;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.caffe.PlainCaffeSolver;

/**
 * The baseline of the overhead comparison: a plain JavaCPP Caffe solver loop with nothing of
 * SparkNet in it. It builds the SGD solver from the same solver and net text that {@link
 * org.sparknet.caffe.CaffeNet} builds ({@link PlainCaffeSolver}: Data layers already Input layers),
 * writes each batch straight into the input blobs' memory in the order a {@link ShardFeeder} with
 * the same seed would (the same per-epoch shuffles of the same shard), and calls {@code Step(1)}
 * per batch (with Input layers a longer Step would reuse one batch). No input checks, no loss
 * read-back, no transforms: the inputs are already scaled.
 */
final class PlainSolverLoop implements AutoCloseable {
  private static final int CHUNK = 4096; // StepProbe's view of a blob: rows of CHUNK and a tail
  private static final int NO_TRANS = 111; // CBLAS_TRANSPOSE's CblasNoTrans

  private final PlainCaffeSolver solver;
  private final DataShard shard;
  private final long seed;
  private final int batch;
  private final int size;
  private int[] order;
  private long epoch;
  private int position;
  private double checkSum;

  PlainSolverLoop(NetDefinition def, DataShard shard, long seed) {
    this.solver = PlainCaffeSolver.create(def);
    if (!solver.type().equals("SGD")) {
      solver.close();
      throw new IllegalArgumentException("The plain loop runs SGD nets only, not " + solver.type());
    }
    this.shard = shard;
    this.seed = seed;
    this.size = shard.featureSize();
    FloatBlob data = solver.net().blob_by_name("data");
    this.batch = data.shape(0);
    if (data.count() != (long) batch * size) {
      throw new IllegalArgumentException(
          "Blob 'data' holds " + data.count() / batch + " floats an example, the shard " + size);
    }
    this.order = ShardFeeder.epochOrder(shard.count(), seed, shard.partition(), 0);
  }

  int batch() {
    return batch;
  }

  /** Runs {@code steps} solver steps; returns their wall time in seconds. */
  double run(int steps) {
    solver.useDevice();
    float[] features = shard.features();
    float[] labels = shard.labels();
    try (PointerScope scope = new PointerScope()) {
      FloatNet net = solver.net();
      FloatBlob data = net.blob_by_name("data");
      FloatBlob label = net.blob_by_name("label");
      long t0 = System.nanoTime();
      for (int s = 0; s < steps; s++) {
        FloatBuffer d = data.mutable_cpu_data().capacity((long) batch * size).asBuffer();
        FloatBuffer l = label.mutable_cpu_data().capacity(batch).asBuffer();
        for (int i = 0; i < batch; i++) {
          int row = order[position];
          d.put(features, row * size, size);
          l.put(labels[row]);
          if (++position == order.length) {
            position = 0;
            order = ShardFeeder.epochOrder(shard.count(), seed, shard.partition(), ++epoch);
          }
        }
        solver.solver().Step(1);
      }
      return (System.nanoTime() - t0) / 1e9;
    }
  }

  /**
   * Runs CaffeNet's divergence checks' work {@code repeats} times on the net as the last step left
   * it, as its {@code StepProbe} does on the CPU: Caffe's {@code caffe_cpu_gemv} of every blob
   * (each one written by the forward pass; CaffeNet checks them before the backward pass) and of
   * every learnable weight blob (after the update), seen as rows of 4,096 floats and a tail,
   * against ones, into one value read back once a repeat. Returns the wall time in seconds. The
   * sums go into a field so the JIT keeps the calls.
   */
  double checks(int repeats) {
    solver.useDevice();
    try (PointerScope scope = new PointerScope()) {
      FloatNet net = solver.net();
      FloatBlobSharedVector blobs = net.blobs();
      FloatBlobVector weights = net.learnable_params();
      int max = 1;
      for (long i = 0; i < blobs.size(); i++) {
        max = Math.max(max, blobs.get(i).count());
      }
      for (long i = 0; i < weights.size(); i++) {
        max = Math.max(max, weights.get(i).count());
      }
      int rows = Math.max(1, max / CHUNK);
      FloatPointer ones = new FloatPointer(Math.max(CHUNK, rows));
      caffe_set_float((int) ones.capacity(), 1f, ones);
      FloatPointer partials = new FloatPointer(rows);
      FloatPointer acc = new FloatPointer(1);
      long t0 = System.nanoTime();
      for (int r = 0; r < repeats; r++) {
        acc.put(0, 0f);
        for (long i = 0; i < blobs.size(); i++) {
          sum(blobs.get(i), ones, partials, acc);
        }
        for (long i = 0; i < weights.size(); i++) {
          sum(weights.get(i), ones, partials, acc);
        }
        checkSum += acc.get(0);
      }
      return (System.nanoTime() - t0) / 1e9;
    }
  }

  private static void sum(FloatBlob b, FloatPointer ones, FloatPointer partials, FloatPointer acc) {
    int n = b.count();
    int rows = n / CHUNK;
    if (rows > 0) {
      caffe_cpu_gemv_float(NO_TRANS, rows, CHUNK, 1f, b.cpu_data(), ones, 0f, partials);
      caffe_cpu_gemv_float(NO_TRANS, 1, rows, 1f, partials, ones, 1f, acc);
    }
    if (n > rows * CHUNK) {
      FloatPointer rest = b.cpu_data().position((long) rows * CHUNK);
      caffe_cpu_gemv_float(NO_TRANS, 1, n - rows * CHUNK, 1f, rest, ones, 1f, acc);
    }
  }

  @Override
  public void close() {
    solver.close();
  }
}
