package org.sparknet.bench.loop;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.bytedeco.javacpp.Loader;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.apps.data.IdxDataset;
import org.sparknet.apps.mnist.LeNet;
import org.sparknet.caffe.CaffeNet;

/**
 * End-to-end benchmarks of the SparkNet loop: LeNet on Fashion-MNIST on an embedded {@code
 * local[2]} Spark, against raw CaffeNet solvers in the same JVM. Not a test; run it with {@code
 * bin/run} (see BENCHMARKS.md), which sets OPENBLAS_NUM_THREADS=1 and the JVM flags. Each section's
 * table is written into the output file as soon as the section is done.
 */
public final class LoopBenchmark {
  private static final long SEED = 42;
  private static final double LR = 0.03; // the demo's learning rate
  private static final int WORKERS = 2;
  private static final int BATCH = LeNet.TRAIN_BATCH;
  private static final float SCALE = 1f / 256;
  private static final int WARMUP_STEPS = 20;

  /**
   * Unmeasured SparkNet rounds before the measured ones. The driver's per-round Java (Spark's job
   * path, the result deserialisation, the averaging) runs a few times a round and is still being
   * compiled in the first rounds: the driver's combine step took 5-10 ms in rounds 6-13 of a run
   * and 1.2 ms (median) in rounds 16-35 of the same run.
   */
  static final int WARMUP_ROUNDS = 10;

  private final LoopOptions opt;
  private final String started = now();
  private final String loadAtStart = Machine.loadAverage();
  private final long startNanos = System.nanoTime();
  private IdxDataset train;
  private IdxDataset test;
  private JavaSparkContext sc;
  private JavaRDD<Example> trainRdd;
  private JavaRDD<Example> testRdd;

  private LoopBenchmark(LoopOptions opt) {
    this.opt = opt;
  }

  public static void main(String[] args) throws Exception {
    LoopOptions opt;
    try {
      opt = LoopOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    new LoopBenchmark(opt).run();
  }

  private void run() throws Exception {
    FashionMnist data = FashionMnist.locate(opt.data());
    train = data.train();
    test = data.test();
    log(
        "SparkNet loop benchmark%s: sections %s, output %s",
        opt.quick() ? " (quick)" : "",
        LoopOptions.ALL_SECTIONS.stream().filter(opt::runs).toList(),
        opt.output().toAbsolutePath());
    MarkdownSections.stampSections("_Measured " + now() + " by `" + opt.command() + "`._");
    writeSetup(null);
    SparkSession spark =
        SparkSettings.apply(
                SparkSession.builder()
                    .master("local[" + WORKERS + "]")
                    .appName("SparkNet loop benchmark"))
            .config("spark.ui.enabled", "false")
            .getOrCreate();
    try {
      sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      trainRdd = train.toRdd(sc, WORKERS, SCALE);
      testRdd = test.toRdd(sc, WORKERS, SCALE);
      if (opt.runs("throughput")) {
        throughput();
      }
      if (opt.runs("overhead")) {
        overhead();
      }
      if (opt.runs("tau")) {
        accuracyVersusTau();
      }
      if (opt.runs("demo")) {
        demo();
      }
      SuiteSections suite = new SuiteSections(opt, sc, train, trainRdd, testRdd);
      if (opt.runs("roofline")) {
        suite.roofline();
      }
      if (opt.runs("raw")) {
        suite.raw();
      }
      if (opt.runs("split")) {
        suite.split();
      }
      if (opt.runs("model")) {
        suite.model();
      }
      if (opt.runs("tta")) {
        suite.timeToAccuracy();
      }
      if (opt.runs("hybrid")) {
        new HybridSection(opt, sc, trainRdd, testRdd).run();
      }
      writeSetup(spark.version());
    } finally {
      spark.stop();
    }
    log("Done in %.0f s; tables in %s", seconds(startNanos), opt.output().toAbsolutePath());
  }

  // ------------------------------------------------------------------ 1. throughput

  private void throughput() throws Exception {
    String load = Machine.loadAverage();
    int tau = opt.throughputTau();
    int rounds = opt.throughputRounds();
    int steps = tau * rounds;
    NetDefinition def = LeNet.definition(SEED, LR);
    int half = train.count() / 2;
    DataShard shard0 = pack(0, train.read(0, half, SCALE));
    DataShard shard1 = pack(1, train.read(half, train.count(), SCALE));
    List<Double> solo = new ArrayList<>();
    List<Double> pair = new ArrayList<>();
    List<Double> sparkNet = new ArrayList<>();
    List<Double> vsSolo = new ArrayList<>();
    List<Double> vsPair = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (CaffeNet a = CaffeNet.create(def);
        CaffeNet b = CaffeNet.create(def);
        SparkNetTrainer trainer = trainer(def, tau)) {
      ShardFeeder f0 = new ShardFeeder(shard0, "data", "label", SEED, 0, 0);
      ShardFeeder f1 = new ShardFeeder(shard1, "data", "label", SEED, 1, 0);
      a.train(WARMUP_STEPS, f0);
      Future<Float> wa = pool.submit(() -> a.train(WARMUP_STEPS, f0));
      Future<Float> wb = pool.submit(() -> b.train(WARMUP_STEPS, f1));
      wa.get();
      wb.get();
      trainer.setTrainingData(trainRdd);
      for (int k = 0; k < WARMUP_ROUNDS; k++) {
        trainer.trainRound(); // the first builds the executors' nets
      }
      for (int r = 0; r < opt.repeats(); r++) {
        // Each measurement follows a short unmeasured run of its own kind (tau steps, one round):
        // the three take turns on the same cores and caches, which real training never does.
        a.train(tau, f0);
        long t0 = System.nanoTime();
        a.train(steps, f0);
        double s = (double) steps * BATCH / seconds(t0);

        Future<Float> ua = pool.submit(() -> a.train(tau, f0));
        Future<Float> ub = pool.submit(() -> b.train(tau, f1));
        ua.get();
        ub.get();
        t0 = System.nanoTime();
        Future<Float> fa = pool.submit(() -> a.train(steps, f0));
        Future<Float> fb = pool.submit(() -> b.train(steps, f1));
        fa.get();
        fb.get();
        double p = 2.0 * steps * BATCH / seconds(t0);

        trainer.trainRound();
        t0 = System.nanoTime();
        List<RoundMetrics> ms = new ArrayList<>();
        long examples = 0;
        for (int k = 0; k < rounds; k++) {
          RoundMetrics m = trainer.trainRound();
          ms.add(m);
          examples += m.examples();
        }
        double sn = examples / seconds(t0);
        solo.add(s);
        pair.add(p);
        sparkNet.add(sn);
        vsSolo.add(sn / (2 * s));
        vsPair.add(sn / p);
        log(
            "throughput rep %d: raw 1 net %.0f img/s, raw 2 nets %.0f img/s, SparkNet %.0f img/s"
                + " (%.3f of 2x one net, %.3f of two at once); round overheads (ms) %s",
            r + 1,
            s,
            p,
            sn,
            sn / (2 * s),
            sn / p,
            ms.stream().map(m -> m.wallMillis() - m.computeMillis()).toList());
      }
    } finally {
      pool.shutdownNow();
    }
    Spread effSolo = Spread.of(vsSolo);
    Spread effPair = Spread.of(vsPair);
    StringBuilder md = new StringBuilder();
    md.append("### 1. Scaling efficiency (images/s)\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Each repetition runs, one after the other: one raw `CaffeNet` alone (%d steps of batch"
                + " %d on the main thread), two raw `CaffeNet`s at once (%d steps each on two"
                + " threads, each on its half of the data), and SparkNet on `local[2]` with 2"
                + " partitions (%d rounds of tau=%d, each image counted once). All in one JVM with"
                + " 1 BLAS thread per solver, after a warm-up (%d raw steps alone and %d at once, %d"
                + " SparkNet rounds, the first of which builds the executors' nets). Raw images/s count the solver loop"
                + " with its feeder; SparkNet's count the whole rounds (broadcast, tasks,"
                + " averaging). In each repetition every measurement follows an unmeasured run of"
                + " its own kind (tau raw steps alone, tau at once, one SparkNet round): the three"
                + " take turns on the same cores and caches. %d repetitions: median (min–max)."
                + " Load average %s before.%n%n",
            steps,
            BATCH,
            steps,
            rounds,
            tau,
            WARMUP_STEPS,
            WARMUP_STEPS,
            WARMUP_ROUNDS,
            opt.repeats(),
            load));
    md.append("| What runs | images/s |\n|---|---:|\n");
    md.append("| 1 raw CaffeNet, 1 thread | ")
        .append(Spread.of(solo).format("%,.0f"))
        .append(" |\n");
    md.append("| 2 raw CaffeNets at once, 2 threads | ")
        .append(Spread.of(pair).format("%,.0f"))
        .append(" |\n");
    md.append(String.format(Locale.ROOT, "| SparkNet, local[2], 2 partitions, tau=%d | ", tau))
        .append(Spread.of(sparkNet).format("%,.0f"))
        .append(" |\n\n");
    md.append("| Scaling efficiency | ratio | target 0.95 |\n|---|---:|---|\n");
    md.append("| SparkNet ÷ (2 × one raw net) | ")
        .append(effSolo.format("%.3f"))
        .append(" | ")
        .append(effSolo.median() >= 0.95 ? "met" : "**not met**")
        .append(" |\n");
    md.append("| SparkNet ÷ two raw nets at once (the ceiling on this box) | ")
        .append(effPair.format("%.3f"))
        .append(" | ")
        .append(effPair.median() >= 0.95 ? "met" : "**not met**")
        .append(" |\n\n");
    md.append("Load average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-throughput", md.toString());
  }

  // ------------------------------------------------------------------ 2. overhead

  private void overhead() {
    String load = Machine.loadAverage();
    StringBuilder md = new StringBuilder();
    md.append("### 2. Per-round overhead\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "SparkNet on `local[2]`, 2 partitions, LeNet batch %d. From `RoundMetrics`: compute is"
                + " the slowest worker's solver time; overhead = broadcast + aggregate +"
                + " scheduling = round wall time − compute. One trainer per tau, %d warm-up"
                + " rounds, then %d repetitions of the rounds shown, one after the other. Share:"
                + " median (min–max) over repetitions; times: median per round over all measured"
                + " rounds. Load average %s before.%n%n",
            BATCH,
            WARMUP_ROUNDS,
            opt.repeats(),
            load));
    md.append(
        "| tau | rounds × reps | round (ms) | compute (ms) | broadcast (ms) | aggregate (ms) |"
            + " scheduling (ms) | overhead share | target |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    NetDefinition def = LeNet.definition(SEED, LR);
    for (int tau : opt.overheadTaus()) {
      // Its own trainer for every tau, tau=50 included: the rounds of section 1 alternate with
      // raw solver runs in the same JVM, which no real training does.
      List<List<RoundMetrics>> reps = new ArrayList<>();
      try (SparkNetTrainer trainer = trainer(def, tau)) {
        trainer.setTrainingData(trainRdd);
        for (int k = 0; k < WARMUP_ROUNDS; k++) {
          trainer.trainRound();
        }
        for (int r = 0; r < opt.repeats(); r++) {
          List<RoundMetrics> ms = new ArrayList<>();
          for (int k = 0; k < opt.overheadRounds(tau); k++) {
            ms.add(trainer.trainRound());
          }
          reps.add(ms);
        }
      }
      List<Double> shares = new ArrayList<>();
      List<RoundMetrics> all = new ArrayList<>();
      for (List<RoundMetrics> ms : reps) {
        long over = 0;
        long wall = 0;
        for (RoundMetrics m : ms) {
          over += m.broadcastMillis() + m.aggregateMillis() + m.schedulingMillis();
          wall += m.wallMillis();
        }
        shares.add(100.0 * over / Math.max(1, wall));
        all.addAll(ms);
      }
      Spread share = Spread.of(shares);
      log("overhead tau=%d: %s %% of the round", tau, share.format("%.1f"));
      String target = tau == 50 ? (share.median() <= 3 ? "≤ 3 %: met" : "≤ 3 %: **not met**") : "";
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %d × %d | %.0f | %.0f | %.0f | %.0f | %.0f | %s %% | %s |%n",
              tau,
              reps.get(0).size(),
              reps.size(),
              median(all, RoundMetrics::wallMillis),
              median(all, RoundMetrics::computeMillis),
              median(all, RoundMetrics::broadcastMillis),
              median(all, RoundMetrics::aggregateMillis),
              median(all, RoundMetrics::schedulingMillis),
              share.format("%.1f"),
              target));
    }
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-overhead", md.toString());
  }

  // ------------------------------------------------------------------ 3. accuracy vs tau

  private void accuracyVersusTau() {
    String load = Machine.loadAverage();
    int steps = opt.accuracySteps();
    long examples = (long) steps * WORKERS * BATCH;
    NetDefinition def = LeNet.definition(SEED, LR);
    StringBuilder rows = new StringBuilder();
    List<BenchCharts.TauRun> runs = new ArrayList<>();
    for (int tau : opt.accuracyTaus()) {
      int rounds = steps / tau;
      try (SparkNetTrainer trainer = trainer(def, tau)) {
        trainer.setTrainingData(trainRdd);
        trainer.setValidationData(testRdd);
        long t0 = System.nanoTime();
        long seen = 0;
        double loss = Double.NaN;
        long over = 0;
        long roundWall = 0;
        for (int r = 0; r < rounds; r++) {
          RoundMetrics m = trainer.trainRound();
          seen += m.examples();
          loss = m.meanLoss();
          over += m.broadcastMillis() + m.aggregateMillis() + m.schedulingMillis();
          roundWall += m.wallMillis();
        }
        double secs = seconds(t0);
        Map<String, Float> t = trainer.test();
        float a = t.get("accuracy");
        log("tau=%d: %d rounds, test accuracy %.4f, %.1f s", tau, rounds, a, secs);
        runs.add(new BenchCharts.TauRun(tau, a, secs));
        rows.append(
            String.format(
                Locale.ROOT,
                "| %d | %d | %,d | %.4f | %.4f | %.3f | %.1f | %,.0f | %.0f %% |%n",
                tau,
                rounds,
                seen,
                a,
                t.getOrDefault("loss", Float.NaN),
                loss,
                secs,
                seen / secs,
                100.0 * over / Math.max(1, roundWall)));
      }
    }
    // Reference: one raw solver over the whole training set, the same number of examples.
    String reference;
    BenchCharts.Reference ref;
    int refSteps = WORKERS * steps;
    DataShard all = pack(0, train.read(0, train.count(), SCALE));
    DataShard testShard = pack(0, test.read(0, test.count(), SCALE));
    try (CaffeNet net = CaffeNet.create(def)) {
      ShardFeeder feeder = new ShardFeeder(all, "data", "label", SEED, 0, 0);
      long t0 = System.nanoTime();
      float loss = net.train(refSteps, feeder);
      double secs = seconds(t0);
      int testBatch = net.inputShapes(org.sparknet.api.Phase.TEST).get("data").dim(0);
      Map<String, Float> t =
          net.test(
              Math.max(1, test.count() / testBatch),
              ShardFeeder.sequential(testShard, "data", "label"));
      log(
          "one raw solver: %d steps, test accuracy %.4f, %.1f s",
          refSteps, t.get("accuracy"), secs);
      ref = new BenchCharts.Reference("1 raw solver, same examples", t.get("accuracy"), secs);
      reference =
          String.format(
              Locale.ROOT,
              "| 1 raw solver (no Spark) | %d steps | %,d | %.4f | %.4f | %.3f (mean) | %.1f |"
                  + " %,.0f | – |%n",
              refSteps,
              (long) refSteps * BATCH,
              t.get("accuracy"),
              t.getOrDefault("loss", Float.NaN),
              loss,
              secs,
              refSteps * BATCH / secs);
    }
    if (opt.plot() != null) {
      BenchCharts.accuracyVersusTau(runs, examples, ref).writePng(opt.plot());
    }
    StringBuilder md = new StringBuilder();
    md.append("### 3. Accuracy versus tau at equal examples seen\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Like Figure 1b of the SparkNet paper: 2 workers on `local[2]`, each run %d solver"
                + " steps per worker (%,d examples, %.2f epochs of Fashion-MNIST's %,d training"
                + " images; a step count that every tau divides),"
                + " LeNet, SGD with momentum 0.9 and lr %.2f (inv policy), seed %d, a fresh trainer"
                + " per tau. Test accuracy on the %,d test images after the last round; wall time"
                + " of the training rounds only (data caching and testing excluded); one run per"
                + " tau. The last row is one raw CaffeNet solver that sees the same examples in"
                + " %d steps. Load average %s before.%n%n",
            steps,
            examples,
            (double) examples / train.count(),
            train.count(),
            LR,
            SEED,
            test.count(),
            refSteps,
            load));
    md.append(
        "| tau | rounds | examples | test accuracy | test loss | last train loss |"
            + " train wall (s) | images/s | overhead share |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    md.append(rows).append(reference);
    if (opt.plot() != null) {
      md.append("\nPlot: `").append(opt.plot()).append("` (x: tau, log scale).\n");
    }
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-tau", md.toString());
  }

  // ------------------------------------------------------------------ 4. the demo

  private void demo() {
    String load = Machine.loadAverage();
    int tau = 50;
    long perRound = (long) WORKERS * tau * BATCH;
    int rounds = Math.max(1, (int) Math.floor(opt.demoEpochs() * train.count() / perRound));
    StringBuilder rows = new StringBuilder();
    long start = System.nanoTime(); // as in DemoCommand: data caching included
    double finalAccuracy = Double.NaN;
    double epoch = 0;
    try (SparkNetTrainer trainer = trainer(LeNet.definition(SEED, LR), tau)) {
      trainer.setTrainingData(trainRdd);
      trainer.setValidationData(testRdd);
      long seen = 0;
      int epochsDone = 0;
      long trainNanos = 0;
      for (int r = 1; r <= rounds; r++) {
        long t0 = System.nanoTime();
        RoundMetrics m = trainer.trainRound();
        trainNanos += System.nanoTime() - t0;
        seen += m.examples();
        epoch = (double) seen / train.count();
        if ((int) Math.floor(epoch + 1e-9) > epochsDone || r == rounds) {
          epochsDone = (int) Math.floor(epoch + 1e-9);
          float a = trainer.test().get("accuracy");
          finalAccuracy = a;
          double elapsed = seconds(start);
          log("demo: epoch %.2f round %d test accuracy %.4f at %.1f s", epoch, r, a, elapsed);
          rows.append(
              String.format(
                  Locale.ROOT,
                  "| %.2f | %d | %.4f | %.4f | %.1f | %,.0f |%n",
                  epoch,
                  r,
                  a,
                  m.meanLoss(),
                  elapsed,
                  seen / (trainNanos / 1e9)));
        }
      }
    }
    double total = seconds(start);
    StringBuilder md = new StringBuilder();
    md.append("### 4. The demo's curve\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "The equivalent of `bin/sparknet demo` (the same loop as `DemoCommand`, in this JVM):"
                + " LeNet on Fashion-MNIST, 2 workers on `local[2]`, tau=%d, lr %.2f, seed %d,"
                + " %d rounds (%.2f epochs), test accuracy at each epoch boundary and at the end."
                + " Elapsed time from the start (training data caching included, as the demo"
                + " counts it) to the end of that test. Load average %s before.%n%n",
            tau,
            LR,
            SEED,
            rounds,
            epoch,
            load));
    md.append(
        "| epoch | round | test accuracy | round train loss | elapsed (s) | train images/s so"
            + " far |\n");
    md.append("|---:|---:|---:|---:|---:|---:|\n");
    md.append(rows);
    md.append(
        String.format(
            Locale.ROOT,
            "%nFinal test accuracy %.4f after %.2f epochs in %.0f s (`bin/sparknet demo`"
                + " itself, in its own JVM: see \"The main job\" above). Load average after: %s.%n",
            finalAccuracy,
            epoch,
            total,
            Machine.loadAverage()));
    MarkdownSections.rewrite(opt.output(), "loop-demo", md.toString());
  }

  // ------------------------------------------------------------------ report header

  private void writeSetup(String sparkVersion) {
    StringBuilder md = new StringBuilder();
    md.append("## SparkNet loop, end to end (LeNet on Fashion-MNIST)\n\n");
    md.append(
        "Written by `bench/run` (`org.sparknet.bench.loop.LoopBenchmark`), which rewrites the"
            + " sections between the `bench:loop-*` markers; everything else in this file is"
            + " kept.\n\n");
    md.append("- Command: `").append(opt.command()).append("` (repository root)");
    if (opt.quick()) {
      md.append(" — **quick smoke run, not figures to quote**");
    }
    md.append("\n");
    md.append("- Date: ").append(started);
    if (sparkVersion != null) {
      md.append(String.format(Locale.ROOT, "; whole run %.1f min", seconds(startNanos) / 60));
    } else {
      md.append(" (run in progress or interrupted)");
    }
    md.append("\n");
    md.append(
        String.format(
            Locale.ROOT,
            "- Machine: %d CPUs (nproc), %s, %s memory, %s%n",
            Machine.processors(),
            Machine.cpuModel(),
            Machine.memory(),
            Machine.osName()));
    md.append(
        "- Load: load average (1/5/15 min) "
            + loadAtStart
            + " at the start"
            + (sparkVersion != null ? ", " + Machine.loadAverage() + " at the end" : "")
            + ", and per section below (the run itself keeps about 2 busy; more means other work"
            + " shared the machine). Compare figures within one run.\n");
    md.append("- JVM: ").append(Machine.jvm()).append("; flags from the parent POM's");
    md.append(" `sparknet.jvm.flags` (Spark's `--add-opens`)\n");
    md.append(
        String.format(
            Locale.ROOT,
            "- Versions: Spark %s (embedded, `local[%d]`), Caffe presets %s, OpenBLAS presets %s,"
                + " JavaCPP %s; env OPENBLAS_NUM_THREADS=%s, GLOG_minloglevel=%s%n",
            sparkVersion == null ? "(starting)" : sparkVersion,
            WORKERS,
            version("caffe"),
            version("openblas"),
            version(null),
            System.getenv("OPENBLAS_NUM_THREADS"),
            System.getenv("GLOG_minloglevel")));
    md.append(
        "- Data: Fashion-MNIST IDX files in `"
            + (opt.data() == null ? FashionMnist.DEBIAN_DIR : opt.data())
            + "`, pixels × 1/256; LeNet from `sparknet-apps` (`LeNet.definition(42, 0.03)`), batch"
            + " 64 (train) / 100 (test). CIFAR-10 quick and CaffeNet (AlexNet-sized; sections 5,"
            + " 7, 8): the BVLC zoo files with Input layers, on Fashion-MNIST images resized to"
            + " 32×32 or 227×227 and replicated to 3 channels (no CIFAR-10 or ImageNet here).\n");
    MarkdownSections.rewrite(opt.output(), "loop-setup", md.toString());
  }

  // ------------------------------------------------------------------ helpers

  private SparkNetTrainer trainer(NetDefinition def, int tau) {
    return new SparkNetTrainer(
        sc,
        TrainerConfig.builder()
            .setNetDefinition(def)
            .optTau(tau)
            .optWorkers(WORKERS)
            .optSeed(SEED)
            .build());
  }

  static DataShard pack(int partition, List<Example> examples) {
    return DataShard.pack(partition, examples.iterator());
  }

  private static double median(
      List<RoundMetrics> ms, java.util.function.ToLongFunction<RoundMetrics> f) {
    return Spread.of(ms.stream().map(m -> (double) f.applyAsLong(m)).toList()).median();
  }

  private static String version(String artifact) {
    try {
      String v =
          artifact == null ? Loader.getVersion() : Loader.getVersion("org.bytedeco", artifact);
      return v == null ? "?" : v;
    } catch (RuntimeException | java.io.IOException e) {
      return "?";
    }
  }

  static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private static String now() {
    return ZonedDateTime.now(ZoneOffset.UTC)
        .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT));
  }

  static void log(String format, Object... args) {
    System.out.printf(
        Locale.ROOT,
        "[%s] %s%n",
        ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("HH:mm:ss")),
        String.format(Locale.ROOT, format, args));
    System.out.flush();
  }
}
