package org.sparknet.apps.cli;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.storage.SolverFiles;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.caffe.CaffeDefinitions;

/**
 * A Caffe solver and net read from unchanged Caffe files ({@link SolverFiles}: the net and test net
 * files a solver names, beside it first, then as written). Files in Caffe's older formats (V1
 * layers, net-level input_dim, solver_type, ...) are upgraded as they are read, with one line to
 * stderr per upgraded file ({@link CaffeDefinitions}).
 *
 * @param solverText the solver prototxt
 * @param netText the net prototxt, or null when the solver embeds it ({@code net_param})
 * @param netSource where the net came from, for messages
 */
record CaffeFiles(String solverText, String netText, String netSource) {
  /** Stands in for a solver when only a net is given (inference never steps the solver). */
  static final String INFERENCE_SOLVER = SolverFiles.INFERENCE_SOLVER;

  private static final Pattern RANDOM_SEED = Pattern.compile("(?m)^\\s*random_seed\\s*:\\s*(\\d+)");

  /** {@link #read(StoragePath, StoragePath)} of local files. */
  static CaffeFiles read(java.nio.file.Path solver, java.nio.file.Path net) {
    return read(
        solver == null ? null : StoragePath.of(solver), net == null ? null : StoragePath.of(net));
  }

  /**
   * Reads {@code solver} and the net: {@code net} when given, else the file the solver names
   * ({@link SolverFiles}). Either may be null, not both.
   */
  static CaffeFiles read(StoragePath solver, StoragePath net) {
    if (solver == null && net == null) {
      throw new IllegalArgumentException("Give the net with --net FILE or --solver FILE");
    }
    if (solver == null) {
      return new CaffeFiles(INFERENCE_SOLVER, netText(net), net.toString());
    }
    SolverFiles files = SolverFiles.read(solver, "pass --net FILE");
    String solverText = upgradedSolver(files.solverText(), solver);
    if (net != null) {
      return new CaffeFiles(solverText, netText(net), net.toString());
    }
    if (files.netText() != null) {
      String text = upgradedNet(files.netText(), files.netFile());
      return new CaffeFiles(solverText, text, files.netFile().toString());
    }
    if (files.embedsNet()) {
      return new CaffeFiles(solverText, null, solver + " (net_param)");
    }
    throw new IllegalArgumentException(
        "Solver " + solver + " names no net (no net:, train_net: or net_param); pass --net FILE");
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
    return upgradedNet(SolverFiles.text(file, "Net"), file);
  }

  private static String upgradedNet(String text, StoragePath file) {
    return report(CaffeDefinitions.upgradeNet(text, "net " + file));
  }

  /** The solver's text (and its embedded nets), upgraded when in an older Caffe format. */
  private static String upgradedSolver(String text, StoragePath file) {
    return report(CaffeDefinitions.upgradeSolver(text, "solver " + file));
  }

  private static String report(CaffeDefinitions.Upgraded u) {
    if (u.upgraded()) {
      System.err.println("sparknet: " + u.notice());
    }
    return u.text();
  }
}
