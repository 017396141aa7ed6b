package org.sparknet.apps.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The help of {@code bin/sparknet shell}. The launcher script runs jshell itself, since jshell
 * needs the class path and JVM flags that only the script assembles; it hands {@code shell --help}
 * here, so that the help says what SparkNet's shell is, and not jshell's own. Run from the jar
 * (spark-submit), the command says where the shell is.
 */
@Command(
    name = "shell",
    mixinStandardHelpOptions = true,
    description = {
      "Open jshell with SparkNet, its Caffe natives and Spark on the class path (bin/sparknet"
          + " only).",
      "The snippets run in a second JVM with Spark's --add-opens flags, SPARKNET_JAVA_OPTS"
          + " (default -Xmx6g), one BLAS thread and quiet logs (glog, log4j). Spark runs in that"
          + " JVM: build a local session as README's Java blocks and examples/notebook.jsh do.",
      "Every Java block of README.md and docs/*.md runs as written here (ReadmeJavaBlocksIT). End each line of a"
          + " method chain with its dot (`NetSpec.named(\"LeNet\").`): jshell runs a line as soon as it is a"
          + " complete statement and rejects one that starts with a dot.",
      "Other arguments go to jshell as they are (`jshell --help` lists them); the session ends with"
          + " /exit. SPARKNET_CLASSPATH adds jars to the class path, colon-separated."
    })
public final class ShellCommand implements Callable<Integer> {
  @Parameters(
      arity = "0..1",
      paramLabel = "FILE.jsh",
      description =
          "A jshell script to run, e.g. examples/notebook.jsh (end it with /exit to return);"
              + " none: an interactive session.")
  String file;

  @Override
  public Integer call() {
    throw new IllegalArgumentException(
        "shell runs through bin/sparknet shell (it starts jshell with this jar, Spark's jars and"
            + " their JVM flags); under spark-submit, spark-shell --jars with this jar is the shell");
  }
}
