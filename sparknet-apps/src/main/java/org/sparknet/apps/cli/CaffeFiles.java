package org.sparknet.apps.cli;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.caffe.CaffeDefinitions;

/**
 * A Caffe solver and net read from unchanged Caffe files. A solver's {@code net:} (or {@code
 * train_net:}) path is resolved against the solver file's directory first, then the current
 * directory, so Caffe's examples work both from their own folder and from Caffe's root. Files in
 * Caffe's older formats (V1 layers, net-level input_dim, solver_type, ...) are upgraded as they are
 * read, with one line to stderr per upgraded file ({@link CaffeDefinitions}). Its {@code test_net:}
 * files are found the same way and embedded in the solver text as {@code test_net_param} blocks,
 * after its own, which is Caffe's order of test nets.
 *
 * @param solverText the solver prototxt
 * @param netText the net prototxt, or null when the solver embeds it ({@code net_param})
 * @param netSource where the net came from, for messages
 */
record CaffeFiles(String solverText, String netText, String netSource) {
  /** Stands in for a solver when only a net is given (inference never steps the solver). */
  static final String INFERENCE_SOLVER = "base_lr: 0.01\nlr_policy: \"fixed\"\n";

  private static final Pattern NET_FILE =
      Pattern.compile("(?m)^\\s*(?:train_)?net\\s*:\\s*\"([^\"]*)\"");
  private static final Pattern TEST_NET_FILE =
      Pattern.compile("(?m)^\\s*test_net\\s*:\\s*(?:\"([^\"]*)\"|'([^']*)')\\s*$");
  private static final Pattern EMBEDDED_NET = Pattern.compile("(?m)^\\s*(?:train_)?net_param\\b");
  private static final Pattern RANDOM_SEED = Pattern.compile("(?m)^\\s*random_seed\\s*:\\s*(\\d+)");

  /** {@link #read(StoragePath, StoragePath)} of local files. */
  static CaffeFiles read(java.nio.file.Path solver, java.nio.file.Path net) {
    return read(
        solver == null ? null : StoragePath.of(solver), net == null ? null : StoragePath.of(net));
  }

  /**
   * Reads {@code solver} and the net: {@code net} when given, else the file the solver names (a
   * relative name beside the solver, on the solver's file system, then against the default file
   * system's working directory). Either may be null, not both.
   */
  static CaffeFiles read(StoragePath solver, StoragePath net) {
    if (solver == null && net == null) {
      throw new IllegalArgumentException("Give the net with --net FILE or --solver FILE");
    }
    String solverText =
        solver == null ? INFERENCE_SOLVER : withTestNets(solverText(solver), solver);
    if (net != null) {
      return new CaffeFiles(solverText, netText(net), net.toString());
    }
    Matcher m = NET_FILE.matcher(solverText);
    if (m.find()) {
      StoragePath p = beside(solver, m.group(1), "net file");
      return new CaffeFiles(solverText, netText(p), p.toString());
    }
    if (EMBEDDED_NET.matcher(solverText).find()) {
      return new CaffeFiles(solverText, null, solver + " (net_param)");
    }
    throw new IllegalArgumentException(
        "Solver " + solver + " names no net (no net:, train_net: or net_param); pass --net FILE");
  }

  /**
   * The solver text with each {@code test_net: "FILE"} line replaced by the file's net as a {@code
   * test_net_param} block at the end (Caffe tests the test_net_param nets first, then the files).
   */
  private static String withTestNets(String solverText, StoragePath solver) {
    Matcher m = TEST_NET_FILE.matcher(solverText);
    StringBuilder embedded = new StringBuilder();
    while (m.find()) {
      String named = m.group(1) != null ? m.group(1) : m.group(2);
      StoragePath file = beside(solver, named, "test net file");
      embedded
          .append("# test_net: \"")
          .append(named)
          .append("\" (")
          .append(file)
          .append(")\ntest_net_param {\n")
          .append(text(file, "Test net"))
          .append("\n}\n");
    }
    if (embedded.length() == 0) {
      return solverText;
    }
    return TEST_NET_FILE.matcher(solverText).replaceAll("") + "\n" + embedded;
  }

  /**
   * The file a solver names: beside the solver, on its file system, else as written against the
   * default file system's working directory.
   */
  private static StoragePath beside(StoragePath solver, String named, String what) {
    StoragePath besideSolver = solver.parent().resolve(named);
    StoragePath asWritten = StoragePath.of(named, solver.settings());
    List<StoragePath> candidates =
        besideSolver.equals(asWritten) ? List.of(asWritten) : List.of(besideSolver, asWritten);
    for (StoragePath p : candidates) {
      if (p.isFile()) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "Solver "
            + solver
            + " names the "
            + what
            + " '"
            + named
            + "', which is neither at "
            + besideSolver
            + " nor at "
            + asWritten
            + (what.equals("net file") ? "; pass --net FILE" : "; put it there"));
  }

  /** The solver's random_seed, or {@code dflt}. */
  long seed(long dflt) {
    Matcher m = RANDOM_SEED.matcher(solverText);
    return m.find() ? Long.parseLong(m.group(1)) : dflt;
  }

  NetDefinition definition(List<Integer> sampleShape, long seed) {
    return new NetDefinition("caffe", solverText, netText, sampleShape, seed, "cpu");
  }

  /** The net file's text, upgraded when it is in an older Caffe format. */
  static String netText(StoragePath file) {
    return report(CaffeDefinitions.upgradeNet(text(file, "Net"), "net " + file));
  }

  /** The solver file's text (and its embedded nets), upgraded when in an older Caffe format. */
  static String solverText(StoragePath file) {
    return report(CaffeDefinitions.upgradeSolver(text(file, "Solver"), "solver " + file));
  }

  private static String report(CaffeDefinitions.Upgraded u) {
    if (u.upgraded()) {
      System.err.println("sparknet: " + u.notice());
    }
    return u.text();
  }

  static String text(StoragePath file, String what) {
    if (!file.isFile()) {
      throw new IllegalArgumentException(what + " file " + file + " does not exist");
    }
    return file.readText();
  }
}
