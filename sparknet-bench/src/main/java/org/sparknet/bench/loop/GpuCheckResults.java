package org.sparknet.bench.loop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sparknet.api.train.RoundMetrics;

/**
 * What the steps of the GPU check left in its results folder: {@code results.txt} ({@code KEY
 * VALUE} lines from {@link GpuCheckRates} and the script: the machine, the forward check, GpuIT)
 * and, for each {@code train} run of the CLI, its metrics file {@code NAME.jsonl} and its standard
 * output {@code NAME.out}. A step that failed or did not run leaves its keys absent: a figure is
 * then NaN and the section says it was not measured.
 */
final class GpuCheckResults {
  private static final Pattern FINAL_ACCURACY = Pattern.compile("^Final test: accuracy (\\S+)");

  private final Path dir;
  private final Map<String, String> values;

  private GpuCheckResults(Path dir, Map<String, String> values) {
    this.dir = dir;
    this.values = values;
  }

  /** A CLI {@code train} run: its rounds (none when it did not run) and final test accuracy. */
  record CliRun(List<RoundMetrics> rounds, double finalAccuracy) {
    boolean ran() {
      return rounds.size() > 1;
    }

    /** The rounds after the first, whose time includes building the nets and the JIT's work. */
    List<RoundMetrics> timed() {
      return rounds.subList(1, rounds.size());
    }

    /** Images per second of wall time over the rounds after the first (NaN without them). */
    double imagesPerSecond() {
      if (!ran()) {
        return Double.NaN;
      }
      return BenchRun.sumOf(timed(), RoundMetrics::examples)
          * 1000.0
          / BenchRun.sumOf(timed(), RoundMetrics::wallMillis);
    }

    /** The share of the rounds' wall time outside the slowest worker's solver steps. */
    double nonComputeShare() {
      if (!ran()) {
        return Double.NaN;
      }
      double wall = BenchRun.sumOf(timed(), RoundMetrics::wallMillis);
      return (wall - BenchRun.sumOf(timed(), RoundMetrics::computeMillis)) / wall;
    }

    int workers() {
      return rounds.isEmpty() ? 0 : rounds.get(0).devices().size();
    }

    long steps() {
      return rounds.isEmpty() ? 0 : rounds.get(rounds.size() - 1).iteration();
    }

    String devices() {
      return rounds.isEmpty() ? "" : String.join(", ", rounds.get(rounds.size() - 1).devices());
    }
  }

  static GpuCheckResults read(Path dir) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String line : lines(dir.resolve("results.txt"))) {
      int space = line.indexOf(' ');
      if (space > 0) {
        values.put(line.substring(0, space), line.substring(space + 1).trim());
      }
    }
    return new GpuCheckResults(dir, values);
  }

  /** The number recorded under {@code key}, or NaN. */
  double value(String key) {
    String v = values.get(key);
    try {
      return v == null ? Double.NaN : Double.parseDouble(v);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /** The text recorded under {@code key}, or {@code otherwise}. */
  String text(String key, String otherwise) {
    return values.getOrDefault(key, otherwise);
  }

  /** The CLI run {@code name} ({@code NAME.jsonl} and {@code NAME.out}). */
  CliRun cli(String name) {
    List<RoundMetrics> rounds = new ArrayList<>();
    for (String line : lines(dir.resolve(name + ".jsonl"))) {
      if (!line.isBlank()) {
        rounds.add(RoundMetrics.fromJson(line));
      }
    }
    double accuracy = Double.NaN;
    for (String line : lines(dir.resolve(name + ".out"))) {
      Matcher m = FINAL_ACCURACY.matcher(line);
      if (m.find()) {
        accuracy = Double.parseDouble(m.group(1));
      }
    }
    return new CliRun(rounds, accuracy);
  }

  private static List<String> lines(Path file) {
    if (!Files.isRegularFile(file)) {
      return List.of();
    }
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }
}
