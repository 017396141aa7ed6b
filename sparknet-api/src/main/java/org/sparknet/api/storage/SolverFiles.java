package org.sparknet.api.storage;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Caffe solver file and the net files it names, read from any Hadoop file system as Caffe's
 * examples expect: a solver's {@code net:} (or {@code train_net:}) and {@code test_net:} names are
 * looked for beside the solver first, then as written (against the working directory), so the
 * examples work both from their own folder and from Caffe's root. Each {@code test_net:} file is
 * embedded in the solver text as a {@code test_net_param} block after the solver's own, which is
 * Caffe's order of test nets; the texts, not the files, then travel with a definition. The CLI and
 * the Spark ML stages both read a solver here.
 *
 * @param solverText the solver's text with its test net files embedded
 * @param netText the text of the net file the solver names, or null when it names none ({@link
 *     #embedsNet} tells whether it carries one)
 * @param netFile where {@code netText} was read, or null
 */
public record SolverFiles(String solverText, String netText, StoragePath netFile) {
  /** Stands in for a solver when only a net is given: inference never steps the solver. */
  public static final String INFERENCE_SOLVER = "base_lr: 0.01\nlr_policy: \"fixed\"\n";

  private static final Pattern NET_FILE =
      Pattern.compile("(?m)^\\s*(?:train_)?net\\s*:\\s*(?:\"([^\"]*)\"|'([^']*)')");
  private static final Pattern TEST_NET_FILE =
      Pattern.compile("(?m)^\\s*test_net\\s*:\\s*(?:\"([^\"]*)\"|'([^']*)')\\s*$");
  private static final Pattern EMBEDDED_NET = Pattern.compile("(?m)^\\s*(?:train_)?net_param\\b");

  /**
   * Reads {@code solver}, its test net files and the net file it names, if any.
   *
   * @param howToGiveTheNet ends the error for a named net file that is in neither place, for
   *     example "pass --net FILE"
   * @throws IllegalArgumentException naming the file that is missing or unreadable, and both places
   *     a named file was looked for
   */
  public static SolverFiles read(StoragePath solver, String howToGiveTheNet) {
    String text = withTestNets(text(solver, "Solver"), solver);
    Matcher m = NET_FILE.matcher(text);
    if (!m.find()) {
      return new SolverFiles(text, null, null);
    }
    StoragePath net = beside(solver, named(m), "net file", howToGiveTheNet);
    return new SolverFiles(text, text(net, "Net"), net);
  }

  /** Whether the solver carries its net ({@code net_param} or {@code train_net_param}). */
  public boolean embedsNet() {
    return EMBEDDED_NET.matcher(solverText).find();
  }

  /**
   * The UTF-8 text of {@code file}.
   *
   * @param what names the file in errors, for example "Net"
   * @throws IllegalArgumentException "WHAT file URI does not exist", or naming the read error
   */
  public static String text(StoragePath file, String what) {
    if (!file.isFile()) {
      throw new IllegalArgumentException(what + " file " + file + " does not exist");
    }
    return file.readText();
  }

  private static String named(Matcher m) {
    return m.group(1) != null ? m.group(1) : m.group(2);
  }

  /** The solver text with each {@code test_net: "FILE"} line replaced by an embedded block. */
  private static String withTestNets(String solverText, StoragePath solver) {
    Matcher m = TEST_NET_FILE.matcher(solverText);
    StringBuilder embedded = new StringBuilder();
    while (m.find()) {
      String named = named(m);
      StoragePath file = beside(solver, named, "test net file", "put it there");
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

  /** The file a solver names: beside the solver, on its file system, else as written. */
  private static StoragePath beside(StoragePath solver, String named, String what, String hint) {
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
            + "; "
            + hint);
  }
}
