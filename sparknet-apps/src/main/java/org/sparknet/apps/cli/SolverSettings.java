package org.sparknet.apps.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.storage.StoragePath;

/**
 * What a Caffe solver file says about running it — {@code max_iter}, {@code test_interval}, {@code
 * test_iter}, {@code display}, {@code snapshot}, {@code snapshot_prefix}, {@code base_lr} — with
 * the command line's flags winning over the file. Each value remembers where it came from, so that
 * the run's first lines can say so. Counts are solver steps per worker, as Caffe counts iterations.
 *
 * @param maxIter stop after this many steps (0: no limit)
 * @param testInterval test after the round that reaches a multiple of this (0: only at the end)
 * @param testIter the file's test_iter, reported only: SparkNet tests the whole --test set
 * @param display a progress line after the round that reaches a multiple of this (0: every round)
 * @param snapshot a snapshot after the round that reaches a multiple of this (0: none)
 * @param snapshotPrefix where snapshots go: {@code PREFIX_iter_N.caffemodel} and {@code
 *     .solverstate}
 * @param baseLr the learning rate the solver will use, or null when the file has none
 */
record SolverSettings(
    Setting maxIter,
    Setting testInterval,
    Setting testIter,
    Setting display,
    Setting snapshot,
    Text snapshotPrefix,
    Text baseLr) {

  /** A number and where it came from ("solver file", the flag's name, or "default"). */
  record Setting(long value, String source) {
    @Override
    public String toString() {
      return value + " (" + source + ")";
    }
  }

  /** A text value and where it came from. */
  record Text(String value, String source) {
    @Override
    public String toString() {
      return value + " (" + source + ")";
    }
  }

  /** The flags of {@code train} that override a solver field; null where not given. */
  record Flags(
      Long maxIter,
      Long testInterval,
      Long display,
      Long snapshot,
      String snapshotPrefix,
      Double lr) {}

  static final String FILE = "solver file";
  private static final Pattern BASE_LR = field("base_lr", "[-+0-9.eE]+");

  /**
   * The settings of {@code solverText} with {@code flags} applied; {@code solverFile} names the
   * default snapshot prefix (its name without {@code .prototxt}, as Caffe's UpgradeSolverAsNeeded
   * does) and {@code output} is where a relative prefix is resolved.
   */
  static SolverSettings of(
      String solverText, String solverFileName, Flags flags, StoragePath output) {
    Text prefix = prefix(solverText, solverFileName, flags.snapshotPrefix());
    StoragePath resolved = output.resolve(prefix.value());
    String lrText = flags.lr() != null ? Double.toString(flags.lr()) : text(solverText, BASE_LR);
    return new SolverSettings(
        setting(solverText, "max_iter", flags.maxIter(), "--max-iter"),
        setting(solverText, "test_interval", flags.testInterval(), "--test-interval"),
        setting(solverText, "test_iter", null, null),
        setting(solverText, "display", flags.display(), "--display"),
        setting(solverText, "snapshot", flags.snapshot(), "--snapshot"),
        new Text(resolved.toString(), prefix.source()),
        lrText == null ? null : new Text(lrText, flags.lr() != null ? "--lr" : FILE));
  }

  /** {@code def} with the solver's base_lr replaced by {@code --lr} when it was given. */
  NetDefinition apply(NetDefinition def) {
    if (baseLr == null || !baseLr.source().equals("--lr")) {
      return def;
    }
    String solver = def.solverText();
    Matcher m = BASE_LR.matcher(solver);
    String line = "base_lr: " + baseLr.value();
    String rewritten = m.find() ? m.replaceFirst(line) : solver + "\n" + line + "\n";
    return new NetDefinition(
        def.engine(), rewritten, def.netText(), def.sampleShape(), def.seed(), def.device());
  }

  /** Steps per worker after which the run's round is the snapshot's (Caffe's file names). */
  StoragePath snapshotFile(long iteration, String extension) {
    return StoragePath.of(snapshotPrefix.value() + "_iter_" + iteration + extension);
  }

  /** Whether a round that took the workers from step {@code before} to {@code after} is due. */
  static boolean due(Setting every, long before, long after) {
    return every.value() > 0 && after / every.value() > before / every.value();
  }

  /** The lines that say which value came from where. */
  List<String> describe() {
    List<String> lines = new ArrayList<>();
    lines.add(
        String.format(
            Locale.ROOT,
            "solver: max_iter %s, display %s, lr %s",
            maxIter.value() > 0 ? maxIter : "none (" + maxIter.source() + ")",
            display.value() > 0 ? display : "every round (" + display.source() + ")",
            baseLr == null ? "the solver's default" : baseLr));
    lines.add(
        String.format(
            Locale.ROOT,
            "solver: test_interval %s, test_iter %s (the whole --test set is tested)",
            testInterval.value() > 0
                ? testInterval
                : "none, test at the end (" + testInterval.source() + ")",
            testIter.value() > 0 ? testIter : "none"));
    lines.add(
        snapshot.value() > 0
            ? "solver: snapshot " + snapshot + " to " + snapshotFiles()
            : "solver: snapshot none ("
                + snapshot.source()
                + "); on SIGINT/SIGTERM to "
                + snapshotFiles());
    return lines;
  }

  private String snapshotFiles() {
    return snapshotPrefix.value()
        + "_iter_N.caffemodel and .solverstate (prefix: "
        + snapshotPrefix.source()
        + ")";
  }

  private static Setting setting(String text, String name, Long flag, String flagName) {
    if (flag != null) {
      if (flag < 0) {
        throw new IllegalArgumentException(flagName + " must be >= 0 but was " + flag);
      }
      return new Setting(flag, flagName);
    }
    String v = text(text, field(name, "-?\\d+"));
    if (v == null) {
      return new Setting(0, "default");
    }
    long n = Long.parseLong(v);
    if (n < 0) {
      throw new IllegalArgumentException("The solver's " + name + " must be >= 0 but is " + n);
    }
    return new Setting(n, FILE);
  }

  private static Text prefix(String solverText, String solverFileName, String flag) {
    if (flag != null) {
      return new Text(flag, "--snapshot-prefix");
    }
    String v = text(solverText, field("snapshot_prefix", "\"([^\"]*)\""));
    if (v != null && !v.isEmpty()) {
      return new Text(v.substring(1, v.length() - 1), FILE);
    }
    String name = solverFileName.replaceFirst("\\.prototxt$", "");
    return new Text(name, "default: the solver's name");
  }

  /** The solver's first {@code name: value} line. */
  private static Pattern field(String name, String value) {
    return Pattern.compile("(?m)^[ \\t]*" + name + "[ \\t]*:[ \\t]*(" + value + ")");
  }

  private static String text(String text, Pattern p) {
    Matcher m = p.matcher(text);
    return m.find() ? m.group(1) : null;
  }
}
