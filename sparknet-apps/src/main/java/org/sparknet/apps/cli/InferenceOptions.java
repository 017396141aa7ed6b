package org.sparknet.apps.cli;

import org.sparknet.api.NetDefinition;
import org.sparknet.api.storage.StoragePath;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of the commands that run a trained net over a dataset (test, predict): the net, the
 * required {@code --weights}, the data format, Spark and the device; and what both do with them
 * before Spark starts.
 */
final class InferenceOptions {
  @Mixin NetOptions net = new NetOptions();

  @Option(
      names = "--weights",
      required = true,
      paramLabel = "FILE.caffemodel",
      description = "Trained weights (a Hadoop URI or path).")
  String weights;

  @Mixin DataOptions data = new DataOptions();

  @Mixin SparkOptions spark = new SparkOptions();

  @Mixin DeviceOptions device = new DeviceOptions();

  /** How a dataset is loaded for the net, and the net's definition on the chosen device. */
  record Setup(DataInput.Loading loading, NetDefinition def) {}

  /**
   * Checks, in this order: the data format, {@code --workers}, the solver and net files; returns
   * {@code --weights}, which must exist too.
   */
  StoragePath checkForInference() {
    data.dataFormat();
    spark.check();
    NetOptions.existing(net.solver, "--solver");
    NetOptions.existing(net.net, "--net");
    return NetOptions.existing(weights, "--weights");
  }

  /** The loading of {@code input} for the net, and the definition on the device. */
  Setup setup(DataInput input) {
    DataInput.Loading loading = input.setup(net, data);
    return new Setup(loading, device.apply(loading.def(), spark.master));
  }
}
