package org.sparknet.apps.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.testnet.SoftmaxNet;
import scala.Option;

/**
 * Engine "device-recorder": the pure-Java {@link SoftmaxNet}, which records every net it builds
 * with the device its definition names and the GPUs Spark assigned to the building task, one line
 * per net in the file its solver text's {@code deviceLog=} names. It stands in for a GPU engine on
 * machines without GPUs, so that the trainer's device mapping is checked without CUDA.
 */
public final class DeviceRecorderProvider implements NetProvider {
  public static final String ENGINE = "device-recorder";

  @Override
  public String engine() {
    return ENGINE;
  }

  @Override
  public Net create(NetDefinition definition) {
    record(definition);
    return new SoftmaxNet(definition);
  }

  private static void record(NetDefinition d) {
    String log = null;
    for (String line : d.solverText().split("\n")) {
      if (line.startsWith("deviceLog=")) {
        log = line.substring("deviceLog=".length()).trim();
      }
    }
    TaskContext tc = TaskContext.get();
    if (log == null || tc == null) {
      return; // the driver's net, built outside any task
    }
    Option<ResourceInformation> gpus = tc.resources().get("gpu");
    String assigned = gpus.isDefined() ? String.join(",", gpus.get().addresses()) : "";
    String line =
        String.format(
            "partition=%d stage=%d attempt=%d assigned=%s device=%s%n",
            tc.partitionId(), tc.stageId(), tc.attemptNumber(), assigned, d.device());
    try {
      Files.writeString(
          Path.of(log),
          line,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot record to " + log, e);
    }
  }
}
