package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Section 9b: {@code bin/sparknet demo --recipe fast} as a user runs it, planned by time: 3 seeds
 * with the recipe's default budget (5 minutes) on 2 workers; the same run with the cores halved
 * (one worker, the process pinned to one core by {@code taskset}); and budgets of 2 and 10 minutes.
 * For each: when the command returned against its budget, the time from its start to the first test
 * that shows 0.91, the best and the final test accuracy, and the steps it planned.
 */
final class FastRecipeSection {
  private static final double TARGET = 0.91;
  private static final double SECOND_TARGET = 0.92;
  private static final double DEFAULT_BUDGET = 300;
  private static final Pattern STEPS = Pattern.compile("([\\d,]+) steps per worker");

  /** One run: its seed, budget in seconds (0: the recipe's default) and whether on one core. */
  private record Case(long seed, int budget, boolean oneCore) {
    String label() {
      return (budget == 0 ? "default" : budget / 60 + " min") + (oneCore ? ", 1 core" : "");
    }
  }

  private final BenchRun run;
  private final Path root = Path.of("").toAbsolutePath();
  private final Path work = Path.of("sparknet-bench/target/fast-recipe").toAbsolutePath();

  FastRecipeSection(BenchRun run) {
    this.run = run;
  }

  void run() {
    packageApps(root, work);
    String load = Machine.loadAverage();
    boolean quick = run.opt().quick();
    List<Case> cases =
        quick
            ? List.of(new Case(42, 60, false), new Case(42, 60, true))
            : List.of(
                new Case(42, 0, false),
                new Case(43, 0, false),
                new Case(44, 0, false),
                new Case(42, 0, true),
                new Case(42, 120, false),
                new Case(42, 600, false));
    List<Double> best = new ArrayList<>();
    boolean allInside = true;
    StringBuilder rows = new StringBuilder();
    for (Case c : cases) {
      DemoProcess.Run r = demo(c);
      double budget = c.budget() == 0 ? DEFAULT_BUDGET : c.budget();
      double bestAcc = r.bestWithin(Double.MAX_VALUE);
      boolean inside = r.seconds() <= budget;
      allInside &= inside;
      if (c.budget() == 0 && !c.oneCore()) {
        best.add(bestAcc);
      }
      log(
          "fast recipe %s seed %d: %.0f s of %.0f, best %.4f",
          c.label(), c.seed(), r.seconds(), budget, bestAcc);
      rows.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %.0f s | %s | %s | %.4f | %.4f | %s |%n",
              c.seed(),
              c.label(),
              r.seconds(),
              inside ? "yes" : "**no**",
              seconds(r.secondsTo(TARGET)),
              bestAcc,
              r.tests().isEmpty() ? Double.NaN : r.tests().get(r.tests().size() - 1).accuracy(),
              steps(r)));
    }
    report(load, rows, allInside, best.isEmpty() ? null : Spread.of(best));
  }

  private DemoProcess.Run demo(Case c) {
    String name = "demo-" + c.seed() + "-" + c.label().replaceAll("\\W+", "-");
    List<String> args = new ArrayList<>(List.of("--recipe", "fast", "--seed", "" + c.seed()));
    args.addAll(List.of("--plot", work.resolve(name + ".png").toString()));
    if (c.budget() > 0) {
      args.addAll(List.of("--time-budget", c.budget() + "s"));
    }
    if (c.oneCore()) {
      args.addAll(List.of("--workers", "1"));
    }
    List<String> prefix = c.oneCore() ? List.of("taskset", "-c", "0") : List.of();
    return DemoProcess.run(root, prefix, args, work.resolve(name + ".log"));
  }

  private static String steps(DemoProcess.Run r) {
    for (String line : r.lines()) {
      Matcher m = STEPS.matcher(line);
      if (m.find()) {
        return m.group(1);
      }
    }
    return "?";
  }

  /**
   * bin/sparknet runs the packaged apps jar: package it from the checkout {@code root} first,
   * logging to {@code work}.
   */
  static void packageApps(Path root, Path work) {
    try {
      Files.createDirectories(work);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create " + work, e);
    }
    Path log = work.resolve("package.log");
    ProcessBuilder pb =
        new ProcessBuilder(
                Processes.maven(
                    "-DskipTests",
                    "-Dspotless.check.skip=true",
                    "-pl",
                    "sparknet-apps",
                    "-am",
                    "package"))
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    if (Processes.run(pb, "mvn package", line -> {}) != 0) {
      throw new IllegalStateException("Packaging sparknet-apps failed; see " + log);
    }
  }

  private static String seconds(double s) {
    return Double.isNaN(s) ? "not reached" : String.format(Locale.ROOT, "%.0f s", s);
  }

  private void report(String load, StringBuilder rows, boolean allInside, Spread best) {
    StringBuilder md = new StringBuilder("### 9b. The fast recipe, as a user runs it\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "`bin/sparknet demo --recipe fast --seed S [--time-budget B] [--workers 1]` (the recipe"
                + " of section 17, shipped as the `sparknet-apps` resources `fashion_fast.prototxt`"
                + " and `fashion_fast_solver.prototxt`), planned by time: the default budget is 5"
                + " minutes; 2 workers on `local[2]` unless one core (`--workers 1`, the process"
                + " pinned to core 0 by `taskset -c 0`: a machine of half the cores), 1 BLAS thread"
                + " each, OpenBLAS's core as `bin/sparknet` chooses it (OPENBLAS_CORETYPE=%s). The"
                + " clock starts when the harness starts `bin/sparknet` and stops when it returns"
                + " (returned); time to %.2f stops at the printed line of the first test (all"
                + " 10,000 test images) that shows it. The demo tests after each epoch and after"
                + " its last round; its learning rate falls to 0 at the last step the plan fits."
                + " Load average %s before.%n%n",
            System.getenv().getOrDefault("OPENBLAS_CORETYPE", "unset"),
            TARGET,
            load));
    md.append(
        String.format(
            Locale.ROOT,
            "| seed | budget | returned | within budget | time to %.2f | best | final | steps per"
                + " worker |%n|---:|---|---:|---|---:|---:|---:|---:|%n",
            TARGET));
    md.append(rows);
    md.append(
        String.format(
            Locale.ROOT,
            "%nEvery run returned within its budget: %s.%s%n",
            allInside ? "yes" : "**no**",
            best == null
                ? ""
                : String.format(
                    Locale.ROOT,
                    " Best accuracy with the default budget, median of 3 seeds (min–max): %s,"
                        + " target ≥ %.2f: %s.",
                    best.format("%.4f"),
                    SECOND_TARGET,
                    BenchRun.metOrNot(best.median() >= SECOND_TARGET))));
    run.write("loop-fast", md);
  }
}
