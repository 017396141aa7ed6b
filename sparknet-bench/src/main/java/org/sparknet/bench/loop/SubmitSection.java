package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.apps.data.FashionMnist;

/**
 * Section 19: the README's {@code train} command as a user runs it, through {@code bin/sparknet
 * train} and through {@code spark-submit --master local[2]} of the apps jar (Spark's {@code
 * SparkSubmit} on the jar's Spark class path, the child's environment without OPENBLAS_NUM_THREADS
 * or GLOG_minloglevel, as a user's shell has it), interleaved, same data and flags. A third command
 * is spark-submit with {@code spark.sparknet.blasThreads=2}: what each task ran with when SparkNet
 * left the count to OpenBLAS (a thread per core, 2 here). Target: spark-submit within 10 % of
 * {@code bin/sparknet train}.
 */
final class SubmitSection {
  private static final double TARGET = 0.90;

  private final BenchRun run;
  private final Path root = Path.of("").toAbsolutePath();
  private final Path work = Path.of("sparknet-bench/target/submit").toAbsolutePath();

  SubmitSection(BenchRun run) {
    this.run = run;
  }

  /** One run of a command: its wall time and the training rate of rounds 2 to the last. */
  record Result(double seconds, double imagesPerSecond) {}

  void run() {
    FastRecipeSection.packageApps(root, work);
    String load = Machine.loadAverage();
    int rounds = run.opt().quick() ? 3 : 10;
    int repeats = run.opt().quick() ? 1 : run.opt().repeats();
    Map<String, List<Result>> results = new LinkedHashMap<>();
    for (String how : List.of("bin/sparknet", "spark-submit", "spark-submit, 2 BLAS threads")) {
      results.put(how, new ArrayList<>());
    }
    for (int r = 0; r < repeats; r++) {
      for (Map.Entry<String, List<Result>> e : results.entrySet()) {
        Result res = once(e.getKey(), rounds, r);
        e.getValue().add(res);
        log(
            "submit rep %d, %s: %.1f s, %.0f img/s",
            r + 1, e.getKey(), res.seconds(), res.imagesPerSecond());
      }
    }
    report(load, rounds, repeats, results);
  }

  private Result once(String how, int rounds, int rep) {
    Path out = work.resolve("run-" + rep + "-" + how.replaceAll("[^a-z0-9]+", "-"));
    deleteTree(out); // train refuses to overwrite an earlier run's model
    List<String> train = trainArgs(rounds, out);
    List<String> cmd = new ArrayList<>();
    Map<String, String> env = new LinkedHashMap<>();
    if (how.equals("bin/sparknet")) {
      cmd.add(root.resolve("bin/sparknet").toString());
      env.put("SPARKNET_JAVA_OPTS", "-Xmx2g");
    } else {
      Path target = root.resolve("sparknet-apps/target");
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.add("-Xmx2g");
      cmd.addAll(Arrays.asList(read(target.resolve("launcher/jvm-flags.txt")).split("\\s+")));
      cmd.add("-Dlog4j2.configurationFile=" + target.resolve("launcher/log4j2.properties"));
      cmd.addAll(List.of("-cp", target.resolve("spark-jars") + "/*"));
      cmd.addAll(List.of("org.apache.spark.deploy.SparkSubmit", "--master", "local[2]"));
      if (how.contains("2 BLAS")) {
        cmd.addAll(List.of("--conf", SparkSettings.BLAS_THREADS + "=2"));
      }
      cmd.addAll(List.of("--class", "org.sparknet.apps.cli.SparkNetCli", appsJar(target)));
    }
    cmd.addAll(train);
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(work.resolve(out.getFileName() + ".log").toFile());
    // As a user's shell has it; bin/sparknet sets both itself, spark-submit leaves them unset.
    pb.environment().remove("OPENBLAS_NUM_THREADS");
    pb.environment().remove("GLOG_minloglevel");
    pb.environment().putAll(env);
    long start = System.nanoTime();
    int exit = Processes.run(pb, how, line -> {});
    double seconds = BenchRun.seconds(start);
    if (exit != 0) {
      throw new IllegalStateException(how + " train exited with " + exit + "; see " + out + ".log");
    }
    return new Result(seconds, trainingRate(out.resolve("metrics.jsonl")));
  }

  /** The README's train command, with this run's rounds and output. */
  private List<String> trainArgs(int rounds, Path out) {
    Path data = run.opt().data() == null ? FashionMnist.DEBIAN_DIR : run.opt().data();
    return List.of(
        "train",
        "--solver",
        "examples/mnist/lenet_solver.prototxt",
        "--train",
        data.resolve("train-images-idx3-ubyte.gz").toString(),
        "--test",
        data.resolve("t10k-images-idx3-ubyte.gz").toString(),
        "--format",
        "idx",
        "--workers",
        "2",
        "--tau",
        "50",
        "--rounds",
        Integer.toString(rounds),
        "--output",
        out.toString());
  }

  /** Images/s from the end of round 1 to the end of the last, by the metrics file's timestamps. */
  static double trainingRate(Path metrics) {
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : read(metrics).split("\n")) {
      try {
        lines.add(json.readTree(line));
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot parse a line of " + metrics, e);
      }
    }
    if (lines.size() < 2) {
      throw new IllegalStateException(metrics + " has fewer than 2 rounds");
    }
    long examples = 0;
    for (JsonNode n : lines.subList(1, lines.size())) {
      examples += n.get("examples").asLong();
    }
    long millis =
        Instant.parse(lines.get(lines.size() - 1).get("timestamp").asText()).toEpochMilli()
            - Instant.parse(lines.get(0).get("timestamp").asText()).toEpochMilli();
    return examples * 1000.0 / millis;
  }

  private static String appsJar(Path target) {
    try (Stream<Path> s = Files.list(target)) {
      return s.filter(f -> f.getFileName().toString().matches("sparknet-apps-.*-all\\.jar"))
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("no sparknet-apps-*-all.jar in " + target))
          .toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete " + dir, e);
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + p, e);
    }
  }

  private void report(String load, int rounds, int repeats, Map<String, List<Result>> results) {
    StringBuilder md =
        new StringBuilder("### 19. spark-submit on local[2] against bin/sparknet train\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "The README's command, `train --solver examples/mnist/lenet_solver.prototxt` (Caffe's"
                + " unchanged LeNet, Data layers) on Fashion-MNIST's IDX files, `--workers 2 --tau"
                + " 50 --rounds %d`, each command in a process of its own, in turns, %d"
                + " repetition(s): `bin/sparknet train` (which exports OPENBLAS_NUM_THREADS=1"
                + " itself) and `spark-submit --master local[2] --class"
                + " org.sparknet.apps.cli.SparkNetCli sparknet-apps-*-all.jar train` (Spark's"
                + " `SparkSubmit` on the jar's Spark class path, no OPENBLAS_NUM_THREADS in its"
                + " environment: each task sets one BLAS thread, `%s`); the third row is"
                + " spark-submit with `--conf %s=2`, the thread per core that OpenBLAS starts in"
                + " each task when nothing sets it. Every JVM -Xmx2g, OPENBLAS_CORETYPE=%s in all"
                + " three. Wall: the whole command (JVM and Spark start, data load, tests,"
                + " model written); rate: training images/s from the end of round 1 to the end of"
                + " round %d (by metrics.jsonl's timestamps%s)."
                + " Ratios per repetition against the bin/sparknet run of the same turn; medians"
                + " (min–max). Load average %s before.%n%n",
            rounds,
            repeats,
            SparkSettings.BLAS_THREADS,
            SparkSettings.BLAS_THREADS,
            System.getenv().getOrDefault("OPENBLAS_CORETYPE", "unset"),
            rounds,
            rounds >= 10
                ? "; the solver's test of the 10,000 test images at iteration 500, round 10,"
                    + " included"
                : "",
            load));
    md.append(
        "| command | wall (s) | rate (images/s) | wall ÷ bin/sparknet's | rate ÷ bin/sparknet's |\n"
            + "|---|---:|---:|---:|---:|\n");
    List<Result> base = results.get("bin/sparknet");
    Spread submitRate = null;
    for (Map.Entry<String, List<Result>> e : results.entrySet()) {
      List<Double> wall = new ArrayList<>();
      List<Double> rate = new ArrayList<>();
      List<Double> wallRatio = new ArrayList<>();
      List<Double> rateRatio = new ArrayList<>();
      for (int i = 0; i < e.getValue().size(); i++) {
        Result r = e.getValue().get(i);
        wall.add(r.seconds());
        rate.add(r.imagesPerSecond());
        wallRatio.add(r.seconds() / base.get(i).seconds());
        rateRatio.add(r.imagesPerSecond() / base.get(i).imagesPerSecond());
      }
      if (e.getKey().equals("spark-submit")) {
        submitRate = Spread.of(rateRatio);
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s |%n",
              e.getKey(),
              Spread.of(wall).format("%.1f"),
              Spread.of(rate).format("%,.0f"),
              Spread.of(wallRatio).format("%.3f"),
              Spread.of(rateRatio).format("%.3f")));
    }
    md.append(
        String.format(
            Locale.ROOT,
            "%nspark-submit's training rate ÷ bin/sparknet's: %s, target ≥ %.2f: %s.%n",
            submitRate.format("%.3f"),
            TARGET,
            BenchRun.metOrNot(submitRate.median() >= TARGET)));
    run.write("loop-submit", md);
  }
}
