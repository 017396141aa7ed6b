package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.SEED;
import static org.sparknet.bench.loop.BenchRun.WORKERS;
import static org.sparknet.bench.loop.BenchRun.log;
import static org.sparknet.bench.loop.BenchRun.median;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.bench.loop.BenchNets.BenchNet;

/**
 * Section {@code weights}: where an AlexNet-sized round's time goes outside the solver steps, and
 * how close the round comes to memory speed. Three parts, all in one run: the pieces of the weight
 * traffic timed one by one against {@code System.arraycopy} ({@link WeightComponents}); Spark's
 * broadcast and a two-task job returning the weights under five configurations, each in a JVM of
 * its own ({@link ResultPathProbe}); and SparkNet's AlexNet-sized rounds on {@code local[2]}
 * (uncompressed, fp16, bf16), whose time outside the slowest worker's solver steps is set beside
 * {@code System.arraycopy} of the bytes the round moves, timed just before each round.
 */
final class WeightPathSection {

  /** LocalHandoff's setting: "false" sends the weights through Spark even in local mode. */
  private static final String HAND_OVER = "spark.sparknet.localHandoff";

  /** The Spark configurations the probes compare: name, serializer, settings. */
  record Probe(String name, String kryo, List<String> settings) {}

  static final List<Probe> PROBES =
      List.of(
          new Probe(
              "Kryo's own `float[]` serializer; results above 64 MiB through the block manager"
                  + " (SparkNet's settings before this change)",
              "own-kryo",
              List.of("spark.task.maxDirectResultSize=64m", "spark.rpc.message.maxSize=128")),
          new Probe(
              "`BulkArrays`; results through the block manager",
              "bulk-kryo",
              List.of("spark.task.maxDirectResultSize=64m", "spark.rpc.message.maxSize=128")),
          new Probe(
              "`BulkArrays`; through the block manager, fetched to memory"
                  + " (`spark.network.maxRemoteBlockSizeFetchToMem=2047m`)",
              "bulk-kryo",
              List.of(
                  "spark.task.maxDirectResultSize=64m",
                  "spark.rpc.message.maxSize=128",
                  "spark.network.maxRemoteBlockSizeFetchToMem=2047m")),
          new Probe(
              "Kryo's own `float[]` serializer; results sent directly", "own-kryo", List.of()),
          new Probe(
              "`BulkArrays`; results sent directly (SparkNet's settings now)",
              "bulk-kryo",
              List.of()));

  private final LoopOptions opt;
  private final JavaSparkContext sc;
  private final JavaRDD<Example> trainRdd;

  WeightPathSection(BenchRun run) {
    this.opt = run.opt();
    this.sc = run.sc();
    this.trainRdd = run.trainRdd();
  }

  void run() throws Exception {
    String load = Machine.loadAverage();
    BenchNet net = BenchNets.alexNet(SEED, opt.alexNetBatch());
    int floats = opt.quick() ? 8_000_000 : 60_965_224;
    int reps = opt.quick() ? 1 : opt.repeats();
    StringBuilder md = new StringBuilder("### 12. Weights at memory speed (AlexNet-sized)\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Where the time of an AlexNet-sized round goes outside the workers' solver steps (issue"
                + " 17), in three parts measured in one run (`WeightPathSection`). Arrays of %,d"
                + " floats (%.0f MB; CaffeNet has 60,965,224), medians of %d timings after an"
                + " untimed one. Load average %s before.%n%n",
            floats,
            floats * 4 / 1e6,
            reps,
            load));
    components(md, floats, reps);
    probes(md, floats, reps);
    rounds(md, net);
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-weights", md.toString());
  }

  private void components(StringBuilder md, int floats, int reps) {
    List<WeightComponents.Row> rows = new WeightComponents(floats, reps).measure();
    double copy = rows.get(0).millis();
    md.append(
        "**The pieces, one by one** (this JVM, no Spark job; a worker's second array differs from"
            + " the first by about 1e-3, as workers' weights do):\n\n"
            + "| piece | how | ms | × arraycopy |\n|---|---|---:|---:|\n");
    for (WeightComponents.Row r : rows) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %.1f | %.2f |%n",
              r.piece(),
              r.how(),
              r.millis(),
              r.millis() / copy));
      log(
          "weights: %s, %s: %.1f ms (%.2f x copy)",
          r.piece(), r.how(), r.millis(), r.millis() / copy);
    }
  }

  private void probes(StringBuilder md, int floats, int reps) throws Exception {
    md.append(
        String.format(
            Locale.ROOT,
            "%n**Spark's part** (`ResultPathProbe`, each line a `local[2]` Spark in a JVM of its"
                + " own with SparkNet's recommended settings but those named): the driver"
                + " broadcasts the %.0f MB array (in local mode the tasks read the driver's object;"
                + " the broadcast serialises it once into blocks all the same), then a job of 2"
                + " tasks each returns a copy of it, which the driver collects; broadcast destroyed"
                + " after each job.%n%n"
                + "| configuration | broadcast (ms) | job returning 2 × %.0f MB (ms) |%n"
                + "|---|---:|---:|%n",
            floats * 4 / 1e6,
            floats * 4 / 1e6));
    Path dir = Files.createDirectories(Path.of("sparknet-bench/target/bench-logs"));
    md.append(probeRows("local[2]", floats, reps, Map.of(), dir));
  }

  /**
   * One table row per configuration of {@link #PROBES}: {@link ResultPathProbe} against {@code
   * master}, each in a JVM of its own, with {@code settings} besides the configuration's.
   */
  static String probeRows(
      String master, int floats, int reps, Map<String, String> settings, Path logs) {
    StringBuilder md = new StringBuilder();
    int i = 0;
    for (Probe p : PROBES) {
      List<String> args =
          new ArrayList<>(
              List.of(master, Integer.toString(floats), Integer.toString(reps), p.kryo()));
      settings.forEach((k, v) -> args.add(k + "=" + v));
      args.addAll(p.settings());
      List<String> out =
          ChildJvm.run(
              ResultPathProbe.class, "5g", args, Map.of(), logs.resolve("probe-" + i++ + ".log"));
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %.0f |%n",
              p.name(),
              ChildJvm.value(out, "broadcast"),
              ChildJvm.value(out, "job")));
    }
    return md.toString();
  }

  private void rounds(StringBuilder md, BenchNet net) {
    int images = opt.alexNetImages();
    JavaRDD<Example> data = BenchNets.resized(trainRdd, images, net.channels(), net.side());
    int rounds = opt.quick() ? 2 : 6;
    md.append(
        String.format(
            Locale.ROOT,
            "%n**SparkNet's AlexNet-sized round** (the zoo CaffeNet with Input layers of batch %d,"
                + " learning rate 0, %d workers on `local[2]`, tau=1, %d Fashion-MNIST images a"
                + " partition resized to 227×227×3; one untimed round, then %d rounds). Overhead:"
                + " the round's wall time minus the slowest worker's solver time (broadcast +"
                + " aggregate + scheduling). Bytes moved: the broadcast of the weights and one"
                + " result per worker (16-bit results are half the size). Copy: `System.arraycopy`"
                + " of as many bytes (whole copies of the weight array), timed just before each"
                + " round. In local mode the weights are handed over by reference (the tasks run in"
                + " the driver's JVM); the last row turns that off.%n%n"
                + "| results | bytes a round (MB) | round (ms) | compute (ms) | overhead (ms) | copy"
                + " of the bytes (ms) | overhead ÷ copy | overhead rate (GB/s) | target ≤ 3 |%n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---|%n",
            net.batch(),
            WORKERS,
            images,
            rounds));
    for (Compression c : Compression.values()) {
      roundRow(md, net, data, c, true, rounds);
    }
    roundRow(md, net, data, Compression.NONE, false, rounds);
  }

  /**
   * One row: {@code rounds} rounds with results compressed by {@code c}; {@code handOver} false
   * sends the weights through Spark's broadcast and task results even in local mode.
   */
  private void roundRow(
      StringBuilder md,
      BenchNet net,
      JavaRDD<Example> data,
      Compression c,
      boolean handOver,
      int rounds) {
    List<RoundMetrics> ms = new ArrayList<>();
    List<Double> copies = new ArrayList<>();
    long params;
    TrainerConfig cfg =
        TrainerConfig.builder()
            .setNetDefinition(net.definition())
            .optTau(1)
            .optWorkers(WORKERS)
            .optSeed(SEED)
            .optCompress(c)
            .build();
    sc.setLocalProperty(HAND_OVER, handOver ? null : "false");
    try (SparkNetTrainer t = new SparkNetTrainer(sc, cfg)) {
      t.setTrainingData(data);
      t.trainRound();
      params = t.getWeights().numFloats();
      float[] src = WeightComponents.gaussian((int) params, 3);
      float[] dst = new float[src.length];
      // the broadcast, then one result per worker: whole weight arrays or halves of them
      int copiesPerRound = c == Compression.NONE ? 1 + WORKERS : 1 + WORKERS / 2;
      for (int r = 0; r < rounds; r++) {
        long t0 = System.nanoTime();
        for (int k = 0; k < copiesPerRound; k++) {
          System.arraycopy(src, 0, dst, 0, src.length);
        }
        copies.add((System.nanoTime() - t0) / 1e6);
        RoundMetrics m = t.trainRound();
        log("weights round %s: %s", c.cliName(), m.summary());
        ms.add(m);
      }
    } finally {
      sc.setLocalProperty(HAND_OVER, null);
    }
    double bytes = params * 4.0 + WORKERS * params * c.bytesPerValue();
    double wall = median(ms, RoundMetrics::wallMillis);
    double compute = median(ms, RoundMetrics::computeMillis);
    double over = median(ms, m -> m.wallMillis() - m.computeMillis());
    double copy = Spread.of(copies).median();
    double ratio = over / copy;
    log(
        "weights round %s: %.0f MB, round %.0f ms, overhead %.0f ms, copy %.0f ms: %.2f x",
        c.cliName(), bytes / 1e6, wall, over, copy, ratio);
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %.0f | %.0f | %.0f | %.0f | %.0f | **%.2f** | %.2f | %s |%n",
            (c == Compression.NONE ? "32-bit weights" : c.cliName() + " offsets")
                + (handOver ? "" : ", through Spark's broadcast and task results"),
            bytes / 1e6,
            wall,
            compute,
            over,
            copy,
            ratio,
            bytes / over / 1e6,
            c != Compression.NONE || !handOver ? "" : ratio <= 3 ? "met" : "**not met**"));
  }
}
