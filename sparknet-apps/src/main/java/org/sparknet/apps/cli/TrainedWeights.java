package org.sparknet.apps.cli;

import org.sparknet.api.storage.StoragePath;
import picocli.CommandLine.Option;

/** The required {@code --weights} of the commands that run a trained net (test, predict). */
final class TrainedWeights {
  @Option(
      names = "--weights",
      required = true,
      paramLabel = "FILE.caffemodel",
      description = "Trained weights (a Hadoop URI or path).")
  String weights;

  /**
   * What {@code test} and {@code predict} check before Spark starts, in this order: the data
   * format, {@code --workers}, the solver and net files; returns {@code --weights}, which must
   * exist too.
   */
  StoragePath checkForInference(NetOptions net, DataOptions data, SparkOptions spark) {
    data.dataFormat();
    spark.check();
    NetOptions.existing(net.solver, "--solver");
    NetOptions.existing(net.net, "--net");
    return NetOptions.existing(weights, "--weights");
  }
}
