package org.sparknet.apps.cli;

import java.util.concurrent.Callable;
import org.sparknet.caffe.GpuReport;
import picocli.CommandLine.Command;

/** Says what SparkNet finds on this machine for Caffe on GPUs. */
@Command(
    name = "gpus",
    mixinStandardHelpOptions = true,
    description = {
      "Say what SparkNet finds on this machine for Caffe on GPUs: the build (the CPU or the GPU"
          + " jar), the NVIDIA driver, the CUDA libraries (CUDA 11.8's as Caffe's natives link"
          + " them, or CUDA 12/13's through SparkNet's forwarding libraries: compat) and every"
          + " GPU with whether Caffe can run on it or why not. Exit 0 when one can, else 2."
    })
public final class GpusCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    GpuReport.lines().forEach(System.out::println);
    return GpuReport.anyUsable() ? SparkNetCli.EXIT_OK : SparkNetCli.EXIT_BAD_INPUT;
  }
}
