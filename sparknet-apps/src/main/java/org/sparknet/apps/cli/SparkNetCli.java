package org.sparknet.apps.cli;

import org.sparknet.api.train.TrainingDivergedException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code sparknet} command line. Exit codes: 0 success, 1 the command failed (training
 * diverged, or something unexpected), 2 bad usage or bad input; every failure prints one line that
 * says why. Without {@code --debug}, Spark's own log lines about a failed task, each with its stack
 * trace, are held back ({@link TaskFailureLogs}).
 */
@Command(
    name = "sparknet",
    mixinStandardHelpOptions = true,
    version = "SparkNet 0.1.0",
    description = "Train Caffe networks on Spark.",
    subcommands = {
      DemoCommand.class,
      TrainCommand.class,
      TestCommand.class,
      PredictCommand.class,
      ExportCommand.class,
      ConvertCommand.class,
      CharRnnCommand.class,
      AutoEncoderCommand.class,
      GpusCommand.class,
      ShellCommand.class,
      CommandLine.HelpCommand.class
    })
public final class SparkNetCli implements Runnable {
  public static final int EXIT_OK = 0;
  public static final int EXIT_TRAINING_FAILED = 1;
  public static final int EXIT_BAD_INPUT = 2;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Option(
      names = "--debug",
      scope = CommandLine.ScopeType.INHERIT,
      description = "On a failure, print the stack trace too.")
  boolean debug;

  /**
   * Exits with {@link #run}'s code, except in the driver of YARN's cluster mode ({@link
   * YarnSettings#inClusterDriver}): there the ApplicationMaster runs this method on a thread of its
   * own and reports the application's final status only when it returns (SUCCEEDED) or throws
   * (FAILED), so it returns on success and throws otherwise. An exit there, even exit 0, ends the
   * ApplicationMaster before it reports: YARN records "Shutdown hook called before final status was
   * reported" and FAILED.
   */
  public static void main(String[] args) {
    int code = run(args);
    if (!YarnSettings.inClusterDriver()) {
      System.exit(code);
    }
    if (code != EXIT_OK) {
      throw new IllegalStateException(
          "sparknet failed with exit code "
              + code
              + (code == EXIT_BAD_INPUT ? " (bad usage or bad input)" : " (the command failed)")
              + " in YARN's ApplicationMaster; the line it printed before says why (the"
              + " ApplicationMaster's stderr: yarn logs -applicationId <id>).");
    }
  }

  /** Runs the CLI and returns its exit code (tests call this instead of {@link #main}). */
  public static int run(String... args) {
    CommandLine cli = new CommandLine(new SparkNetCli());
    cli.setExitCodeExceptionMapper(
        e -> e instanceof IllegalArgumentException ? EXIT_BAD_INPUT : EXIT_TRAINING_FAILED);
    boolean debug = java.util.Arrays.asList(args).contains("--debug");
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println(describe(e, debug, commandLine.getCommandName()));
          if (debug) {
            e.printStackTrace(commandLine.getErr());
          }
          return commandLine.getExitCodeExceptionMapper().getExitCode(e);
        });
    // picocli's default for bad usage is 2 already; make it explicit since scripts rely on it.
    cli.setParameterExceptionHandler(
        (e, a) -> {
          e.getCommandLine().getErr().println("sparknet: usage error: " + e.getMessage());
          e.getCommandLine()
              .getErr()
              .println("Try '" + e.getCommandLine().getCommandName() + " --help'.");
          return EXIT_BAD_INPUT;
        });
    try (TaskFailureLogs quiet = debug ? null : TaskFailureLogs.quiet()) {
      return cli.execute(args);
    }
  }

  /**
   * The one line a failure of {@code command} prints: the message of bad input and of a diverged
   * run as they are; for anything else (unexpected) "COMMAND failed:", its class and message, and
   * its root cause's, so that it never reads "null"; without {@code --debug} a hint that it prints
   * the stack trace.
   */
  static String describe(Throwable e, boolean debug, String command) {
    if (e instanceof IllegalArgumentException && e.getMessage() != null) {
      return "sparknet: error: " + e.getMessage();
    }
    if (e instanceof TrainingDivergedException && e.getMessage() != null) {
      return "sparknet: training failed: " + e.getMessage();
    }
    StringBuilder sb =
        new StringBuilder("sparknet: ")
            .append(command)
            .append(" failed: ")
            .append(classAndMessage(e));
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root != e) {
      sb.append("; caused by ").append(classAndMessage(root));
    }
    if (!debug) {
      sb.append(" (--debug prints the stack trace)");
    }
    return sb.toString();
  }

  private static String classAndMessage(Throwable t) {
    return t.getClass().getName() + (t.getMessage() != null ? ": " + t.getMessage() : "");
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "Missing a command (try 'sparknet demo').");
  }
}
