package org.sparknet.apps.cli;

import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import picocli.CommandLine.Option;

/**
 * {@code --device}: where every worker's net runs, for each command that builds nets. Without it,
 * the definition's own text decides (Caffe: {@code solver_mode: GPU} means "gpu"), else the CPU.
 */
final class DeviceOptions {
  @Option(
      names = "--device",
      paramLabel = "cpu|gpu|auto",
      description =
          "Where each worker's net runs: cpu; gpu (the GPU Spark assigned to the task, with"
              + " spark.executor/task.resource.gpu.amount, else the visible GPUs round-robin by"
              + " partition); auto (the task's assigned GPU, else the CPU); gpu:N (device N)."
              + " Default: gpu when the solver says solver_mode: GPU, else cpu.")
  String device;

  /**
   * {@code def} on the device asked for. A solver's {@code solver_mode: GPU} is "gpu", except in a
   * build without GPU support (the CPU jar, on the driver as on every executor), where a line says
   * it is ignored: unchanged model-zoo solvers say GPU, and the CPU jar runs them on the CPU.
   * {@code --device} is taken as it is. When the tasks run in this JVM (local mode) a GPU device is
   * checked here, before Spark starts; on a cluster each executor checks its own.
   *
   * @param master the Spark master the command will use (null: spark-submit's, else local)
   * @throws IllegalArgumentException for a bad name, or a GPU device where none can be used
   */
  NetDefinition apply(NetDefinition def, String master) {
    NetProvider engine = NetProvider.forEngine(def.engine());
    String d = device;
    if (d == null) {
      d = engine.requestedDevice(def);
      if (!d.equals("cpu") && !engine.gpuBuild()) {
        System.out.println(
            "solver_mode: GPU ignored, the nets run on the CPU: "
                + engine.gpuProblem()
                + " (--device cpu silences this line, --device gpu makes it an error)");
        d = "cpu";
      }
    }
    if (!d.matches("cpu|gpu|auto|gpu:\\d+")) {
      throw new IllegalArgumentException(
          "--device must be cpu, gpu, auto or gpu:N but was '" + d + "'");
    }
    if (d.startsWith("gpu") && runsHere(master)) {
      String asked =
          device != null
              ? "--device " + d
              : "The solver's solver_mode: GPU (--device cpu to override)";
      int visible = engine.visibleGpus();
      if (visible == 0) {
        throw new IllegalArgumentException(
            asked + ": no GPU can be used here: " + engine.gpuProblem());
      }
      if (d.startsWith("gpu:") && Integer.parseInt(d.substring(4)) >= visible) {
        throw new IllegalArgumentException(
            asked + ": this machine has " + visible + " GPU(s), ids 0 to " + (visible - 1));
      }
    }
    return def.withDevice(d);
  }

  /** Whether Spark will run the tasks in this JVM: a local master. */
  private static boolean runsHere(String master) {
    String m = master != null ? master : System.getProperty("spark.master", "local");
    return m.startsWith("local");
  }
}
