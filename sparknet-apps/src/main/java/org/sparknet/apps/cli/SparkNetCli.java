package org.sparknet.apps.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code sparknet} command line. Exit codes: 0 success, 1 training failed, 2 bad usage or bad
 * input; every failure prints one line that says why.
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
      CharRnnCommand.class,
      AutoEncoderCommand.class,
      CommandLine.HelpCommand.class
    })
public final class SparkNetCli implements Runnable {
  public static final int EXIT_OK = 0;
  public static final int EXIT_TRAINING_FAILED = 1;
  public static final int EXIT_BAD_INPUT = 2;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the CLI and returns its exit code (tests call this instead of {@link #main}). */
  public static int run(String... args) {
    CommandLine cli = new CommandLine(new SparkNetCli());
    cli.setExitCodeExceptionMapper(
        e -> e instanceof IllegalArgumentException ? EXIT_BAD_INPUT : EXIT_TRAINING_FAILED);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          String kind = e instanceof IllegalArgumentException ? "error" : "training failed";
          commandLine.getErr().println("sparknet: " + kind + ": " + e.getMessage());
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
    return cli.execute(args);
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "Missing a command (try 'sparknet demo').");
  }
}
