package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.SCALE;
import static org.sparknet.bench.loop.BenchRun.WORKERS;
import static org.sparknet.bench.loop.BenchRun.log;
import static org.sparknet.bench.loop.BenchRun.seconds;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.bytedeco.javacpp.Loader;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.apps.data.IdxDataset;

/**
 * End-to-end benchmarks of the SparkNet loop: LeNet on Fashion-MNIST on an embedded {@code
 * local[2]} Spark, against raw CaffeNet solvers in the same JVM. Not a test; run it with {@code
 * bench/run} (see BENCHMARKS.md), which sets OPENBLAS_NUM_THREADS=1 and the JVM flags. Each section
 * is a class of its own ({@code ThroughputSection}, ..., {@code HybridSection}) over the run's
 * shared {@link BenchRun}; its table is written into the output file as soon as it is done.
 */
public final class LoopBenchmark {
  /**
   * Unmeasured SparkNet rounds before the measured ones. The driver's per-round Java (Spark's job
   * path, the result deserialisation, the averaging) runs a few times a round and is compiled by
   * the JIT during the first rounds, which run several times slower than the later ones.
   */
  static final int WARMUP_ROUNDS = 10;

  /** One section of the run. */
  @FunctionalInterface
  private interface Section {
    void run() throws Exception;
  }

  private final LoopOptions opt;
  private final String started = now();
  private final String loadAtStart = Machine.loadAverage();
  private final long startNanos = System.nanoTime();

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
    IdxDataset train = data.train();
    IdxDataset test = data.test();
    log(
        "SparkNet loop benchmark%s: sections %s, output %s",
        opt.quick() ? " (quick)" : "",
        LoopOptions.ALL_SECTIONS.stream().filter(opt::runs).toList(),
        opt.output().toAbsolutePath());
    MarkdownSections.stampSections("_Measured " + now() + " by `" + opt.command() + "`._");
    writeSetup(null);
    SparkSession spark = localSpark(WORKERS, "SparkNet loop benchmark").getOrCreate();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      BenchRun run =
          new BenchRun(
              opt,
              sc,
              train,
              test,
              train.toRdd(sc, WORKERS, SCALE),
              test.toRdd(sc, WORKERS, SCALE));
      for (Map.Entry<String, Section> s : sections(run).entrySet()) {
        if (opt.runs(s.getKey())) {
          s.getValue().run();
        }
      }
      writeSetup(spark.version());
    } finally {
      spark.stop();
    }
    log("Done in %.0f s; tables in %s", seconds(startNanos), opt.output().toAbsolutePath());
  }

  /** Every section by its name in {@code --sections}, in the order they run. */
  private static Map<String, Section> sections(BenchRun run) {
    SplitSection split = new SplitSection(run);
    Map<String, Section> s = new LinkedHashMap<>();
    s.put("throughput", () -> new ThroughputSection(run).run());
    s.put("overhead", () -> new OverheadSection(run).run());
    s.put("threads", () -> new ThreadsSection(run).run());
    s.put("tau", () -> new TauSection(run).run());
    s.put("demo", () -> new DemoSection(run).run());
    s.put("roofline", () -> new RooflineSection(run).run());
    s.put("layers", () -> new LayerTimeSection(run).run());
    s.put("raw", () -> new RawSection(run).run());
    s.put("split", split::run);
    s.put("model", () -> new ModelSection(run, split).run());
    s.put(
        "tta",
        () -> {
          new TimeToAccuracySection(run).run();
          if (!run.opt().runs("fast")) {
            new FastRecipeSection(run).run(); // the "tta covers it", without running twice
          }
        });
    s.put("fast", () -> new FastRecipeSection(run).run());
    s.put("hybrid", () -> new HybridSection(run).run());
    s.put("weights", () -> new WeightPathSection(run).run());
    s.put("cluster", () -> new ClusterSection(run, split).run());
    s.put("compress", () -> new TrainingOptionsSection(run).compress());
    s.put("allreduce", () -> new AllReduceSection(run).run());
    s.put("asyncTta", () -> new AsyncTtaSection(run).run());
    s.put("adaptive", () -> new TrainingOptionsSection(run).adaptive());
    s.put("blas", () -> new BlasSection(run).run());
    s.put("recipes", () -> new RecipeSection(run).run());
    s.put("storage", () -> new StorageSection(run).run());
    s.put("submit", () -> new SubmitSection(run).run());
    return s;
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

  private static String version(String artifact) {
    try {
      String v =
          artifact == null ? Loader.getVersion() : Loader.getVersion("org.bytedeco", artifact);
      return v == null ? "?" : v;
    } catch (RuntimeException | java.io.IOException e) {
      return "?";
    }
  }

  private static String now() {
    return ZonedDateTime.now(ZoneOffset.UTC)
        .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT));
  }

  /** A local session of {@code workers} task threads with SparkNet's settings and no web UI. */
  static SparkSession.Builder localSpark(int workers, String appName) {
    return SparkSettings.apply(
            SparkSession.builder().master("local[" + workers + "]").appName(appName))
        .config("spark.ui.enabled", "false");
  }
}
