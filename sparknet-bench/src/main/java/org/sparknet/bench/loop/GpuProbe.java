package org.sparknet.bench.loop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;

/**
 * What the Caffe natives on the class path make of this machine's GPUs, without Spark: the build
 * (CPU or GPU natives), the GPUs Caffe can use or why none, a LeNet net asked for on {@code gpu:0}
 * (built, or refused with its one-line reason), then a LeNet net on the CPU in the same JVM, which
 * shows that a refusal left the JVM usable. Run it with the GPU natives on the class path (the GPU
 * jar, or sparknet-bench's class path under {@code -Pgpu}):
 *
 * <pre>java -cp ... org.sparknet.bench.loop.GpuProbe [DIR with lenet_solver.prototxt and
 *     lenet_train_test.prototxt, default examples/mnist]</pre>
 *
 * Prints one line a finding; exit 0 when the CPU net was built, 1 when it was refused (for example
 * when a system library that Caffe's natives need is missing).
 */
public final class GpuProbe {
  private GpuProbe() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args.length > 0 ? args[0] : "examples/mnist");
    NetDefinition lenet =
        NetDefinition.caffe(
            Files.readString(dir.resolve("lenet_solver.prototxt")),
            Files.readString(dir.resolve("lenet_train_test.prototxt")),
            List.of(1, 28, 28));
    NetProvider caffe = NetProvider.forEngine("caffe");
    System.out.println("gpu build: " + caffe.gpuBuild());
    System.out.println(
        "gpus: "
            + caffe.visibleGpus()
            + (caffe.visibleGpus() == 0 ? "; " + caffe.gpuProblem() : ""));
    try (Net gpu = NetProvider.build(lenet.withDevice("gpu:0"))) {
      System.out.println("gpu:0: LeNet built, " + gpu.getWeights().numFloats() + " weights");
    } catch (IllegalArgumentException e) {
      System.out.println("gpu:0: refused: " + e.getMessage());
    }
    try (Net cpu = NetProvider.build(lenet.withDevice("cpu"))) {
      System.out.println(
          "cpu: LeNet built in the same JVM, " + cpu.getWeights().numFloats() + " weights");
    } catch (IllegalArgumentException e) {
      System.out.println("cpu: refused: " + e.getMessage());
      System.exit(1);
    }
  }
}
