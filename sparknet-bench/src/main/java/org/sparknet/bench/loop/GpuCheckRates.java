package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.SCALE;
import static org.sparknet.bench.loop.BenchRun.SEED;
import static org.sparknet.bench.loop.BenchRun.seconds;
import static org.sparknet.bench.loop.GpuForwardCheck.say;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.train.Averaging;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.apps.data.IdxDataset;
import org.sparknet.bench.loop.BenchNets.BenchNet;
import org.sparknet.caffe.CaffeNet;

/**
 * The in-process images/s of the GPU check (BENCHMARKS section 11): a plain JavaCPP Caffe solver
 * loop ({@link PlainSolverLoop}) and {@code CaffeNet.train} on one device, alternated over a few
 * repetitions after a warm-up, and SparkNet's own trainer with W workers on an embedded {@code
 * local[W]} Spark (one warm-up round, then timed rounds: images/s over their wall time and the
 * share of it outside the slowest worker's solver steps). LeNet is the apps' {@code
 * LeNet.definition} on Fashion-MNIST; AlexNet is {@link BenchNets#alexNet} on the same images
 * upscaled to 3x227x227.
 *
 * <pre>java ... GpuCheckRates --net lenet|alexnet --device gpu:0|gpu|cpu --batch N --data DIR
 *     --results FILE [--steps S --reps R] [--workers W --tau T --rounds K --spark-device D]
 *     [--workers-per-gpu K] [--averaging plain|allreduce] [--sharing 1,2,4] [--key KEY]</pre>
 *
 * Without --steps no solo loop runs; without --workers (or --sharing) no SparkNet, whose nets go on
 * --spark-device (default --device; "gpu" as the CLI's {@code --device gpu}), K workers per GPU
 * with --workers-per-gpu. {@code --sharing 1,2,4} runs SparkNet once per K of the list, K workers
 * all sharing the first GPU ({@code --workers K --workers-per-gpu K}), under keys {@code
 * KEY.shareK}; every SparkNet run also records the GPU memory its nets hold ({@link GpuMemory}).
 * Prints one {@code gpu-check:} line per figure and appends {@code KEY.WHAT VALUE} lines to the
 * results file; KEY defaults to {@code NET.gpu} or {@code NET.cpu} after the device (a CPU
 * rehearsal of a GPU step names it).
 */
public final class GpuCheckRates {
  private final Map<String, String> opt;
  private final String net;
  private final String device;
  private final String key;
  private final int batch;
  private final Path results;

  private GpuCheckRates(Map<String, String> opt) {
    this.opt = opt;
    this.net = required("net");
    this.device = required("device");
    this.key = opt.getOrDefault("key", net + "." + (device.startsWith("gpu") ? "gpu" : "cpu"));
    this.batch = number("batch", 0);
    this.results = Path.of(required("results"));
  }

  public static void main(String[] args) throws Exception {
    GpuCheckRates r = new GpuCheckRates(options(args));
    r.record("batch", r.batch);
    IdxDataset train = FashionMnist.locate(Path.of(r.required("data"))).train();
    if (r.number("steps", 0) > 0) {
      r.solo(train);
    }
    if (r.number("workers", 0) > 0) {
      r.sparkNet(train, r.key, r.number("workers", 1), r.number("workers-per-gpu", 0));
    }
    if (r.opt.containsKey("sharing")) {
      for (String k : r.opt.get("sharing").split(",")) {
        int n = Integer.parseInt(k.trim());
        r.sparkNet(train, r.key + ".share" + n, n, n);
      }
    }
  }

  /** {@code --name value} pairs. */
  static Map<String, String> options(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("Expected --name value pairs but got " + List.of(args));
      }
      m.put(args[i].substring(2), args[i + 1]);
    }
    return m;
  }

  private BenchNet benchNet() {
    return switch (net) {
      case "lenet" -> BenchNets.lenet(SEED, BenchRun.LR, batch);
      case "alexnet" -> BenchNets.alexNet(SEED, batch);
      default -> throw new IllegalArgumentException("--net is lenet or alexnet, not " + net);
    };
  }

  /** The plain loop and CaffeNet.train on the device, alternated {@code --reps} times. */
  private void solo(IdxDataset train) {
    BenchNet bn = benchNet();
    int steps = number("steps", 0);
    int reps = number("reps", 2);
    NetDefinition def = bn.definition().withDevice(device);
    // LeNet: 8,192 images; AlexNet: 4 batches (an upscaled image is 618 KB).
    DataShard shard = shard(bn, train, bn.side() == 28 ? 8192 : 4 * batch);
    List<Double> plain = new ArrayList<>();
    List<Double> caffeNet = new ArrayList<>();
    try (PlainSolverLoop loop = new PlainSolverLoop(def, shard, SEED);
        CaffeNet cn = CaffeNet.create(def)) {
      ShardFeeder feeder = new ShardFeeder(shard, "data", "label", SEED, 0, 0);
      loop.run(3); // warm-up: memory allocated, cuDNN's algorithms chosen, the JIT at work
      cn.train(3, feeder);
      for (int r = 0; r < reps; r++) {
        plain.add(steps * (double) batch / loop.run(steps));
        long t0 = System.nanoTime();
        cn.train(steps, feeder);
        caffeNet.add(steps * (double) batch / seconds(t0));
      }
    }
    double p = Spread.of(plain).median();
    double c = Spread.of(caffeNet).median();
    record("plain", p);
    record("caffenet", c);
    say(
        "%s %s plain JavaCPP solver loop: %,.0f img/s (batch %d, %d steps x %d reps: %s)",
        bn.name(), device, p, batch, steps, reps, Spread.of(plain).format("%,.0f"));
    say(
        "%s %s CaffeNet.train: %,.0f img/s = %.3f of plain (%s)",
        bn.name(), device, c, c / p, Spread.of(caffeNet).format("%,.0f"));
  }

  /** The first {@code n} training images (upscaled for AlexNet) as one shard. */
  private static DataShard shard(BenchNet bn, IdxDataset train, int n) {
    List<Example> images = new ArrayList<>();
    for (Example e : train.read(0, n, SCALE)) {
      images.add(bn.side() == 28 ? e : BenchNets.upscale(e, bn.channels(), bn.side()));
    }
    return BenchRun.pack(0, images);
  }

  /**
   * SparkNet with W workers on local[W] ({@code perGpu} of them on each GPU when above 0): one
   * warm-up round, then the timed rounds, recorded under {@code runKey}.
   */
  private void sparkNet(IdxDataset train, String runKey, int workers, int perGpu) {
    BenchNet bn = benchNet();
    int tau = number("tau", 50);
    int rounds = number("rounds", 2);
    String sparkDevice = opt.getOrDefault("spark-device", device);
    SparkSession spark =
        LoopBenchmark.localSpark(workers, "SparkNet GPU check")
            // Every weight of every worker comes to the driver each round: many AlexNet-sized
            // workers bring more than Spark's default limit of results.
            .config("spark.driver.maxResultSize", "0")
            .getOrCreate();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      int perPartition = Math.min(train.count() / workers, 4 * batch);
      JavaRDD<Example> data = train.toRdd(sc, 0, perPartition * workers, workers, SCALE);
      if (bn.side() != 28) {
        data = BenchNets.resized(data, perPartition, bn.channels(), bn.side());
      }
      data = data.cache();
      TrainerConfig.Builder cfg =
          BenchRun.config(bn.definition().withDevice(sparkDevice), tau, workers)
              .optAveraging(averaging());
      if (perGpu > 0) {
        cfg.optWorkersPerGpu(perGpu);
      }
      try (SparkNetTrainer t = new SparkNetTrainer(sc, cfg.build())) {
        t.setTrainingData(data);
        t.trainRound();
        List<RoundMetrics> timed = new ArrayList<>();
        for (int k = 0; k < rounds; k++) {
          timed.add(t.trainRound());
        }
        String memory = GpuMemory.now(); // the nets are alive until the trainer closes
        GpuForwardCheck.record(results, runKey + ".sparknet.gpumemory", memory);
        report(bn, runKey, new Run(workers, perGpu, tau, sparkDevice, memory), timed);
      } finally {
        data.unpersist(false);
      }
    } finally {
      spark.stop();
    }
  }

  /** One SparkNet run's settings, as its line names them. */
  private record Run(int workers, int perGpu, int tau, String device, String memory) {}

  private void report(BenchNet bn, String runKey, Run run, List<RoundMetrics> timed) {
    double wall = BenchRun.sumOf(timed, RoundMetrics::wallMillis);
    double compute = BenchRun.sumOf(timed, RoundMetrics::computeMillis);
    double images = BenchRun.sumOf(timed, RoundMetrics::examples) / (wall / 1000);
    double outside = (wall - compute) / wall;
    record(runKey, "sparknet", images);
    record(runKey, "sparknet.noncompute", outside);
    record(runKey, "sparknet.workers", run.workers());
    record(runKey, "sparknet.tau", run.tau());
    record(runKey, "sparknet.rounds", timed.size());
    say(
        "%s SparkNet %d worker(s)%s --device %s, %s, tau %d: %,.0f img/s over %d rounds after"
            + " the first; outside the solver steps %.1f %% of a round; GPU memory %s; devices %s",
        bn.name(),
        run.workers(),
        run.perGpu() > 0 ? " (" + run.perGpu() + " per GPU)" : "",
        run.device(),
        averaging(),
        run.tau(),
        images,
        timed.size(),
        100 * outside,
        run.memory(),
        timed.get(timed.size() - 1).devices());
  }

  /** {@code --averaging}: plain (default) or allreduce. */
  private Averaging averaging() {
    String a = opt.getOrDefault("averaging", "plain");
    return switch (a) {
      case "plain" -> Averaging.PLAIN;
      case "allreduce" -> Averaging.ALL_REDUCE;
      default -> throw new IllegalArgumentException("--averaging is plain or allreduce, not " + a);
    };
  }

  private void record(String runKey, String what, double value) {
    GpuForwardCheck.record(results, runKey + "." + what, String.valueOf(value));
  }

  private void record(String what, double value) {
    GpuForwardCheck.record(results, key + "." + what, String.valueOf(value));
  }

  private String required(String name) {
    String v = opt.get(name);
    if (v == null) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return v;
  }

  private int number(String name, int otherwise) {
    String v = opt.get(name);
    return v == null ? otherwise : Integer.parseInt(v);
  }
}
