package org.sparknet.apps.cli;

import org.sparknet.apps.data.FashionMnist;
import picocli.CommandLine.Option;

/** {@code --data} of the commands that train on Fashion-MNIST (demo, autoencoder). */
final class FashionMnistOption {
  @Option(
      names = "--data",
      paramLabel = "DIR",
      description =
          "Directory with the Fashion-MNIST IDX files (default: $SPARKNET_FASHION_MNIST_DIR, else"
              + " /usr/share/datasets/fashion-mnist from Debian's dataset-fashion-mnist); a Hadoop"
              + " URI or path.")
  String dir;

  /** The dataset in {@code --data}, else in the default place; the error names what is missing. */
  FashionMnist locate() {
    return FashionMnist.locateAt(dir == null ? null : TrainCommand.outputOption(dir, "--data"));
  }
}
