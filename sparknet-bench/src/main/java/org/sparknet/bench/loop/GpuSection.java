package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.SCALE;
import static org.sparknet.bench.loop.BenchRun.SEED;
import static org.sparknet.bench.loop.BenchRun.imagesPerSecond;
import static org.sparknet.bench.loop.BenchRun.log;
import static org.sparknet.bench.loop.BenchRun.seconds;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.bench.loop.BenchNets.BenchNet;
import org.sparknet.caffe.CaffeNet;

/**
 * Section 11: AlexNet-sized training on GPUs. A plain JavaCPP Caffe solver loop on gpu:0, {@code
 * CaffeNet.train} on gpu:0, SparkNet with 1 worker on 1 GPU and with one worker per visible GPU
 * ({@code --device gpu} without Spark resources: partition p on gpu:p), all on the same upscaled
 * Fashion-MNIST images (3x227x227). Targets: CaffeNet.train at least 0.95 of the plain loop,
 * SparkNet at least 0.9 of it per GPU. Needs the GPU natives ({@code MAVEN_ARGS=-Pgpu bench/run})
 * and a CUDA device; without one it says why and writes nothing.
 */
final class GpuSection {
  private final BenchRun run;

  GpuSection(BenchRun run) {
    this.run = run;
  }

  /** The GPUs the section uses (0 without the GPU build or a device). */
  static int gpus() {
    return NetProvider.forEngine("caffe").visibleGpus();
  }

  void run() {
    int gpus = gpus();
    if (gpus == 0) {
      log("gpu: skipped, no GPU: %s", NetProvider.forEngine("caffe").gpuProblem());
      return;
    }
    LoopOptions opt = run.opt();
    String load = Machine.loadAverage();
    int batch = opt.quick() ? 32 : 128;
    int tau = opt.quick() ? 5 : 20;
    int rounds = opt.quick() ? 1 : 3;
    int steps = tau * rounds;
    BenchNet alex = BenchNets.alexNet(SEED, batch);
    NetDefinition def = alex.definition();
    DataShard shard = shard(alex, 4 * batch);
    JavaRDD<Example> data =
        BenchNets.resized(run.trainRdd(), 4 * batch * Math.max(1, gpus / 2), 3, alex.side())
            .cache();
    List<Double> plain = new ArrayList<>();
    List<Double> caffeNet = new ArrayList<>();
    List<Double> one = new ArrayList<>();
    List<Double> all = new ArrayList<>();
    try (PlainSolverLoop loop = new PlainSolverLoop(def.withDevice("gpu:0"), shard, SEED);
        CaffeNet net = CaffeNet.create(def.withDevice("gpu:0"));
        SparkNetTrainer t1 = run.trainer(def.withDevice("gpu"), tau, 1);
        SparkNetTrainer tn = run.trainer(def.withDevice("gpu"), tau, gpus)) {
      ShardFeeder feeder = new ShardFeeder(shard, "data", "label", SEED, 0, 0);
      loop.run(3); // warm-up: cuDNN picks its algorithms, memory is allocated
      net.train(3, feeder);
      t1.setTrainingData(data);
      tn.setTrainingData(data);
      t1.trainRound();
      tn.trainRound();
      for (int r = 0; r < opt.repeats(); r++) {
        double p = (double) steps * batch / loop.run(steps);
        long t0 = System.nanoTime();
        net.train(steps, feeder);
        double c = (double) steps * batch / seconds(t0);
        double s1 = imagesPerSecond(t1, rounds);
        double sn = imagesPerSecond(tn, rounds);
        plain.add(p);
        caffeNet.add(c);
        one.add(s1);
        all.add(sn);
        log(
            "gpu rep %d: plain %.0f, CaffeNet %.0f, SparkNet 1 GPU %.0f, %d GPUs %.0f img/s",
            r + 1, p, c, s1, gpus, sn);
      }
    } finally {
      data.unpersist(false);
    }
    double base = Spread.of(plain).median();
    StringBuilder md = new StringBuilder("### 11. GPUs: AlexNet-sized training\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "CaffeNet (`BenchNets.alexNet`, batch %d, 3x227x227 upscaled Fashion-MNIST) on %d"
                + " GPU(s). Each repetition: %d steps of a plain JavaCPP solver loop on gpu:0"
                + " (`PlainSolverLoop`), `CaffeNet.train` on gpu:0, then SparkNet (`--device gpu`,"
                + " tau=%d, %d rounds) with 1 worker and with %d workers, one per GPU. After a"
                + " warm-up (3 steps, one round each). %d repetitions: median (min–max). Load"
                + " average %s before.%n%n",
            batch,
            gpus,
            steps,
            tau,
            rounds,
            gpus,
            opt.repeats(),
            load));
    md.append("| What runs | images/s | per GPU ÷ plain | target |\n|---|---:|---:|---|\n");
    row(md, "plain JavaCPP solver loop, gpu:0", plain, 1, base, "");
    row(md, "`CaffeNet.train`, gpu:0", caffeNet, 1, base, "≥ 0.95");
    row(md, "SparkNet, 1 worker on 1 GPU", one, 1, base, "≥ 0.9");
    row(md, "SparkNet, " + gpus + " workers on " + gpus + " GPUs", all, gpus, base, "≥ 0.9");
    run.write("loop-gpu", md);
  }

  /** The first {@code n} training images, upscaled to the net's input, as one shard. */
  private DataShard shard(BenchNet net, int n) {
    List<Example> images = new ArrayList<>();
    for (Example e : run.train().read(0, n, SCALE)) {
      images.add(BenchNets.upscale(e, net.channels(), net.side()));
    }
    return BenchRun.pack(0, images);
  }

  private static void row(
      StringBuilder md, String what, List<Double> ips, int gpus, double base, String target) {
    Spread s = Spread.of(ips);
    md.append("| ")
        .append(what)
        .append(" | ")
        .append(s.format("%,.0f"))
        .append(" | ")
        .append(String.format(Locale.ROOT, "%.3f", s.median() / gpus / base))
        .append(" | ")
        .append(target)
        .append(" |\n");
  }
}
