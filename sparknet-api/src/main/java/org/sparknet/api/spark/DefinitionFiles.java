package org.sparknet.api.spark;

import org.sparknet.api.storage.SolverFiles;
import org.sparknet.api.storage.StoragePath;

/**
 * A net definition read from solver and net files on any Hadoop file system, as the CLI reads them
 * ({@link SolverFiles}: net and test net files beside the solver, then as written). The stages keep
 * the texts, so that a saved stage does not depend on the files.
 */
final class DefinitionFiles {
  static final String INFERENCE_SOLVER = SolverFiles.INFERENCE_SOLVER;

  private DefinitionFiles() {}

  /**
   * Reads {@code solverUri}, its test net files and the net file it names (if it names one).
   *
   * @throws IllegalArgumentException naming the file that is missing or unreadable, and both places
   *     a named net file was looked for
   */
  static SolverFiles read(String solverUri) {
    return SolverFiles.read(
        StoragePath.of(solverUri), "set the net with setNetFile(uri) or setNetText(text)");
  }

  /** The UTF-8 text of {@code uri}. */
  static String text(String uri, String what) {
    return SolverFiles.text(StoragePath.of(uri), what);
  }
}
