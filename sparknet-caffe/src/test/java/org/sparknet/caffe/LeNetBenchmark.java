package org.sparknet.caffe;

import java.util.Arrays;
import java.util.Random;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.caffe.FloatSGDSolver;
import org.bytedeco.caffe.SolverParameter;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.caffe.internal.NetPlan;

/**
 * Not a test: images/s of LeNet training (model-zoo prototxt and solver, batch 64) in a plain
 * JavaCPP Caffe solver loop (write the batch into the Input blobs, Step(1)) against CaffeNet.train
 * (the same through a BatchFeeder, with the finite/label checks and the transform scale). Same net
 * text, same data, 1 BLAS thread; median of 3 runs of 150 steps each, after a warm-up run. Command
 * (repository root):
 *
 * <pre>
 * mvn -B -o -q -pl sparknet-caffe -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
 * OPENBLAS_NUM_THREADS=1 GLOG_minloglevel=2 java -cp sparknet-caffe/target/test-classes:\
 * sparknet-caffe/target/classes:sparknet-api/target/classes:sparknet-ndarray/target/classes:\
 * $(cat sparknet-caffe/target/bench.cp) org.sparknet.caffe.LeNetBenchmark
 * </pre>
 */
public final class LeNetBenchmark {
  private static final int STEPS = 150;
  private static final int BATCH = 64;
  private static final int POOL = 1024; // distinct images cycled through

  private LeNetBenchmark() {}

  public static void main(String[] args) {
    NetDefinition def = Zoo.lenet().withSeed(1);
    Random rnd = new Random(1);
    float[] images = new float[POOL * 784];
    float[] labels = new float[POOL];
    for (int i = 0; i < images.length; i++) {
      images[i] = rnd.nextInt(256);
    }
    for (int i = 0; i < POOL; i++) {
      labels[i] = rnd.nextInt(10);
    }
    double[] plain = new double[3];
    double[] caffeNet = new double[3];
    plainLoop(def, images, labels); // warm-up
    caffeNetLoop(def, images, labels);
    for (int r = 0; r < 3; r++) {
      plain[r] = plainLoop(def, images, labels);
      caffeNet[r] = caffeNetLoop(def, images, labels);
    }
    System.out.printf(
        "LeNet batch %d, %d steps a run, OPENBLAS_NUM_THREADS=%s%n",
        BATCH, STEPS, System.getenv("OPENBLAS_NUM_THREADS"));
    System.out.printf(
        "plain JavaCPP solver loop: %s img/s, median %.0f%n",
        Arrays.toString(round(plain)), median(plain));
    System.out.printf(
        "CaffeNet.train:            %s img/s, median %.0f%n",
        Arrays.toString(round(caffeNet)), median(caffeNet));
  }

  private static double plainLoop(NetDefinition def, float[] images, float[] labels) {
    NetPlan plan = NetPlan.of(def);
    CaffeRuntime.useDevice(-1);
    try (PointerScope scope = new PointerScope()) {
      SolverParameter sp = new SolverParameter();
      CaffeRuntime.readText(plan.solverText(), sp, "solver");
      FloatSGDSolver solver = new FloatSGDSolver(sp);
      FloatNet net = solver.net();
      FloatBlob data = net.blob_by_name("data");
      FloatBlob label = net.blob_by_name("label");
      int pos = 0;
      long t0 = System.nanoTime();
      for (int s = 0; s < STEPS; s++) {
        var d = data.mutable_cpu_data().capacity(BATCH * 784L).asBuffer();
        var l = label.mutable_cpu_data().capacity(BATCH).asBuffer();
        for (int i = 0; i < BATCH; i++, pos = (pos + 1) % POOL) {
          d.put(images, pos * 784, 784);
          l.put(labels[pos]);
        }
        data.scale_data(0.00390625f);
        solver.Step(1);
      }
      return STEPS * BATCH / ((System.nanoTime() - t0) / 1e9);
    }
  }

  private static double caffeNetLoop(NetDefinition def, float[] images, float[] labels) {
    try (CaffeNet net = CaffeNet.create(def, false)) {
      int[] pos = {0};
      BatchFeeder feeder =
          in -> {
            var d = in.get("data");
            var l = in.get("label");
            for (int i = 0; i < BATCH; i++, pos[0] = (pos[0] + 1) % POOL) {
              d.slice(0, i).copyFrom(images, pos[0] * 784);
              l.setFlat(i, labels[pos[0]]);
            }
          };
      long t0 = System.nanoTime();
      net.train(STEPS, feeder);
      return STEPS * BATCH / ((System.nanoTime() - t0) / 1e9);
    }
  }

  private static long[] round(double[] v) {
    return Arrays.stream(v).mapToLong(Math::round).toArray();
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
