package org.sparknet.bench.loop;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Command-line options of {@link LoopBenchmark} and the sizes they imply.
 *
 * @param quick a smoke run: a few steps per measurement, results written to {@code output}, which
 *     defaults to a file under target/ so BENCHMARKS.md keeps the real figures
 * @param output the Markdown file whose {@code bench:loop-*} sections are rewritten
 * @param data the Fashion-MNIST directory, or null for the default location
 * @param plot the PNG of accuracy and wall time against tau, or null for none
 * @param sections which measurements to run, in the order of {@link #ALL_SECTIONS}
 * @param repeats repetitions of each throughput and overhead measurement (medians of these)
 * @param command the command line recorded with the figures
 * @param recipes the candidate recipes the recipes section trains ({@link Recipe#names()})
 * @param recipeEpochs epochs each candidate recipe trains
 */
public record LoopOptions(
    boolean quick,
    Path output,
    Path data,
    Path plot,
    Set<String> sections,
    int repeats,
    String command,
    List<String> recipes,
    double recipeEpochs) {

  public static final List<String> ALL_SECTIONS =
      List.of(
          "throughput",
          "overhead",
          "threads",
          "tau",
          "demo",
          "roofline",
          "layers",
          "raw",
          "split",
          "model",
          "tta",
          "fast",
          "hybrid",
          "weights",
          "cluster",
          "compress",
          "adaptive",
          "blas",
          "recipes",
          "storage",
          "submit",
          "allreduce",
          "asyncTta");

  static final String USAGE =
      String.join(
          "\n",
          "Usage: bench/run [--quick] [--output FILE] [--data DIR] [--plot PNG|--no-plot]",
          "                 [--sections throughput,overhead,threads,tau,demo,roofline,layers,raw,split,",
          "                             model,tta,fast,hybrid,weights,cluster,compress,adaptive,",
          "                             blas,recipes,storage,submit,allreduce,asyncTta]",
          "                 [--repeats N] [--recipes NAME,...] [--recipe-epochs N]",
          "End-to-end benchmarks of the SparkNet loop (LeNet on Fashion-MNIST, local Spark):",
          "  throughput  SparkNet local[2], tau=50 vs one raw CaffeNet and vs two at once",
          "  overhead    broadcast + aggregate + scheduling as a share of the round, tau 1/10/50",
          "  threads     CPU time of every JVM thread (workers, driver, GC, JIT) over the demo's loop",
          "  tau         test accuracy and wall time against tau at equal examples seen",
          "  demo        the equivalent of `bin/sparknet demo`: accuracy and time per epoch",
          "  roofline    sgemm GFLOP/s on LeNet's and CIFAR-10 quick's GEMM shapes; SparkNet's",
          "              training FLOP rate as a share of that peak",
          "  layers      per-layer forward/backward time of LeNet and CIFAR-10 quick (1 thread)",
          "              against their GEMMs at the sgemm rate; batch 64/128/256 and 100/200",
          "  raw         plain JavaCPP solver loop vs CaffeNet.train vs SparkNet with 1 worker;",
          "              1 worker x 2 BLAS threads vs 2 workers x 1 thread",
          "  split       compute/broadcast/aggregate/scheduling per round for LeNet, CIFAR-10",
          "              quick and AlexNet at tau 1/10/50; AlexNet's bytes and bandwidth vs memcpy",
          "  model       predicted speed-up for 1-64 workers on 10 Gbit/s (runs split if needed)",
          "  tta         test accuracy against training time, tau 10/50/200, plain vs elastic",
          "              averaging, 5 minutes a run (~30 min in all); then the fast section",
          "  fast        `bin/sparknet demo --recipe fast` planned by time: 3 seeds of the default",
          "              budget (5 min), the same on one core, and budgets of 2 and 10 min (~33 min)",
          "  hybrid      2 partitions vs 1 partition of a group of 2 solvers (average every step)",
          "              vs 1 solver of twice the batch with 2 BLAS threads: images/s, accuracy",
          "  weights     an AlexNet-sized round's weight traffic, piece by piece and whole, against",
          "              System.arraycopy; Spark's result paths; 16-bit results (child JVMs)",
          "  cluster     section 7's rounds on a standalone cluster of 2 executor JVMs on loopback",
          "              against the cost model's prediction; the AlexNet-sized round's GB/s",
          "  compress    LeNet and CIFAR-10 quick test accuracy after 3 epochs, 32-bit vs fp16",
          "              vs bf16 results, 3 seeds; bytes per round (~30 min)",
          "  adaptive    tau auto (5 % overhead) vs fixed taus on LeNet (2 epochs); the tau it",
          "              picks on the AlexNet-sized net",
          "  blas        Caffe's training step (LeNet, CIFAR-10 quick, 1 thread) with OpenBLAS",
          "              0.3.21 and each core type, MKL and a newer OpenBLAS (child JVMs; MKL",
          "              and the newer OpenBLAS are copied by Maven into sparknet-bench/target/blas)",
          "  recipes     candidate Fashion-MNIST recipes (--recipes, default all) for --recipe-epochs",
          "              (default 3), tuned on 6,000 held-out training images; test once at the end",
          "  storage     IDX from an in-process HDFS through SparkNet's loader vs a plain read; the",
          "              driver's heap peak (-Xmx512m) training from 1 GB+ on HDFS on a standalone",
          "              cluster; image-folder decoding, OpenCV vs javax.imageio (~5-10 min)",
          "  submit      the README's train command: spark-submit --master local[2] of the apps",
          "              jar against bin/sparknet train, and with 2 BLAS threads a task (~10 min)",
          "  allreduce   the AlexNet-sized round on a standalone cluster of 3 executor JVMs: the",
          "              driver's average vs the all-reduce on 2 and 3 workers, bytes through the",
          "              driver, GB/s per executor",
          "  asyncTta    time to accuracy of plain, all-reduce, Downpour and asynchronous EASGD",
          "              on LeNet, 2 workers, tau 10 (~5 min; --quick ~1 min)",
          "Rewrites the bench:loop-* sections of --output (default BENCHMARKS.md; with --quick",
          "sparknet-bench/target/bench-quick.md).");

  public LoopOptions {
    if (repeats < 1) {
      throw new IllegalArgumentException("--repeats must be >= 1 but was " + repeats);
    }
    sections = Set.copyOf(sections);
    recipes = List.copyOf(recipes);
    if (!(recipeEpochs > 0)) {
      throw new IllegalArgumentException("--recipe-epochs must be > 0 but was " + recipeEpochs);
    }
  }

  /** Parses the arguments; throws {@link IllegalArgumentException} with the usage on errors. */
  public static LoopOptions parse(String... args) {
    boolean quick = false;
    Path output = null;
    Path data = null;
    Path plot = Path.of("bench/accuracy-vs-tau.png");
    boolean noPlot = false;
    Set<String> sections = new LinkedHashSet<>(ALL_SECTIONS);
    int repeats = 3;
    String command = null;
    List<String> recipes = Recipe.names();
    double recipeEpochs = 3;
    List<String> rest = new ArrayList<>(List.of(args));
    for (int i = 0; i < rest.size(); i++) {
      String a = rest.get(i);
      switch (a) {
        case "--quick" -> quick = true;
        case "--no-plot" -> noPlot = true;
        case "--output" -> output = Path.of(value(rest, ++i, a));
        case "--data" -> data = Path.of(value(rest, ++i, a));
        case "--plot" -> plot = Path.of(value(rest, ++i, a));
        case "--command" -> command = value(rest, ++i, a);
        case "--repeats" -> repeats = integer(value(rest, ++i, a), a);
        case "--recipes" -> recipes = List.of(value(rest, ++i, a).split(","));
        case "--recipe-epochs" -> recipeEpochs = Double.parseDouble(value(rest, ++i, a));
        case "--sections" -> {
          sections = new LinkedHashSet<>();
          for (String s : value(rest, ++i, a).split(",")) {
            String name = s.trim();
            if (!ALL_SECTIONS.contains(name)) {
              throw new IllegalArgumentException(
                  "Unknown section '" + name + "'; choose from " + ALL_SECTIONS + "\n" + USAGE);
            }
            sections.add(name);
          }
        }
        default -> throw new IllegalArgumentException("Unknown argument '" + a + "'\n" + USAGE);
      }
    }
    if (output == null) {
      output = quick ? Path.of("sparknet-bench/target/bench-quick.md") : Path.of("BENCHMARKS.md");
    }
    if (quick && plot != null && plot.equals(Path.of("bench/accuracy-vs-tau.png"))) {
      plot = Path.of("sparknet-bench/target/bench-quick-tau.png");
    }
    if (command == null) {
      command = ("bench/run " + String.join(" ", args)).trim();
    }
    recipes.forEach(Recipe::named);
    return new LoopOptions(
        quick,
        output,
        data,
        noPlot ? null : plot,
        sections,
        repeats,
        command,
        recipes,
        recipeEpochs);
  }

  public boolean runs(String section) {
    return sections.contains(section);
  }

  /** Solver steps per worker per round in the throughput comparison. */
  public int throughputTau() {
    return quick ? 10 : 50;
  }

  /** Rounds per repetition of the throughput comparison (raw nets run tau x rounds steps). */
  public int throughputRounds() {
    return quick ? 2 : 6;
  }

  /** The values of tau whose per-round overhead is measured (the throughput tau included). */
  public List<Integer> overheadTaus() {
    return quick ? List.of(1, 10) : List.of(1, 10, 50);
  }

  /** Rounds per repetition when measuring overhead at {@code tau}. */
  public int overheadRounds(int tau) {
    if (quick) {
      return 3;
    }
    return tau == 1 ? 20 : 10;
  }

  public List<Integer> accuracyTaus() {
    return quick ? List.of(1, 10) : List.of(1, 10, 50, 200);
  }

  /**
   * Solver steps per worker in the accuracy-versus-tau runs: a multiple of every tau, so each run
   * sees the same examples (400 steps x 2 workers x 64 = 51,200 examples, 0.85 epochs).
   */
  public int accuracySteps() {
    return quick ? 20 : 400;
  }

  public double demoEpochs() {
    return quick ? 0.2 : 3;
  }

  /** Taus of the per-round time split of net {@code name} (fewer for AlexNet when quick). */
  public List<Integer> splitTaus(String name) {
    if (quick) {
      return name.equals("LeNet") ? List.of(1, 10) : List.of(1);
    }
    return List.of(1, 10, 50);
  }

  /** Measured rounds of the time split (after one warm-up round). */
  public int splitRounds(String name, int tau) {
    if (quick) {
      return 2;
    }
    if (name.startsWith("AlexNet")) {
      return tau == 1 ? 3 : 2; // each AlexNet step is ~0.3 s on one core
    }
    if (name.startsWith("CIFAR")) {
      return tau == 1 ? 10 : tau == 10 ? 4 : 2;
    }
    return tau == 1 ? 20 : tau == 10 ? 10 : 6;
  }

  /** Training seconds per time-to-accuracy run. */
  public double ttaSeconds() {
    return quick ? 5 : 300;
  }

  public List<Integer> ttaTaus() {
    return quick ? List.of(10) : List.of(10, 50, 200);
  }

  /** AlexNet's batch in the time split. */
  public int alexNetBatch() {
    return 2;
  }

  /** Images a partition for AlexNet (upscaled Fashion-MNIST). */
  public int alexNetImages() {
    return quick ? 4 : 16;
  }

  private static String value(List<String> args, int i, String option) {
    if (i >= args.size()) {
      throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
    }
    return args.get(i);
  }

  private static int integer(String s, String option) {
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs an integer but got '" + s + "'");
    }
  }
}
