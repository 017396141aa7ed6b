package org.sparknet.apps.cli;

import org.sparknet.api.averaging.Compression;
import picocli.CommandLine.Option;

/** {@code --compress} of the commands that train (train, demo). */
final class CompressOption {
  @Option(
      names = "--compress",
      defaultValue = "none",
      paramLabel = "none|fp16|bf16",
      description =
          "Workers send their offset from the round's centre in 16 bits (half the bytes); the"
              + " driver averages in 32 bits; default ${DEFAULT-VALUE}.")
  String compress;

  /** The parsed value (exit 2 on a bad one, before Spark starts). */
  Compression compression() {
    return Compression.parse(compress, "--compress");
  }
}
