package org.sparknet.apps.cli;

import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import picocli.CommandLine.Option;

/**
 * {@code --device}: where every worker's net runs, for each command that builds nets. Without it,
 * the definition's own text decides (Caffe: {@code solver_mode: GPU} and {@code device_id}), else
 * the CPU.
 */
final class DeviceOptions {
  @Option(
      names = "--device",
      paramLabel = "cpu|gpu|auto",
      description =
          "Where each worker's net runs: cpu; gpu (the GPU Spark assigned to the task, with"
              + " spark.executor/task.resource.gpu.amount, else the visible GPUs round-robin by"
              + " partition); auto (the task's assigned GPU, else the CPU); gpu:N (device N)."
              + " Default: as caffe train, the solver's solver_mode: GPU means gpu:device_id"
              + " (on a cluster: gpu), and where that GPU cannot be had the CPU, said in one"
              + " line; else cpu.")
  String device;

  /**
   * {@code def} on the device asked for. {@code --device} is taken as it is. Without it the solver
   * decides as {@code caffe train} does: {@code solver_mode: GPU} means the GPU of its {@code
   * device_id} (see {@link #fromSolver}). When the tasks run in this JVM (local mode) a GPU device
   * is checked here, before Spark starts; on a cluster each executor checks its own.
   *
   * @param master the Spark master the command will use (null: spark-submit's, else local)
   * @throws IllegalArgumentException for a bad name, or a GPU device where none can be used
   */
  NetDefinition apply(NetDefinition def, String master) {
    NetProvider engine = NetProvider.forEngine(def.engine());
    String d = device != null ? device : fromSolver(engine, def, master);
    if (!d.matches("cpu|gpu|auto|gpu:\\d+")) {
      throw new IllegalArgumentException(
          "--device must be cpu, gpu, auto or gpu:N but was '" + d + "'");
    }
    if (d.startsWith("gpu") && runsHere(master)) {
      String asked = "--device " + d;
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

  /**
   * The device the definition's own text asks for when {@code --device} is not given. Caffe's
   * {@code solver_mode: GPU} with {@code device_id} N (0 by default) is gpu:N, as for {@code caffe
   * train}, when the tasks run here; on a cluster it is "gpu", the GPU Spark assigns each task (a
   * device_id names a device of one machine). Model-zoo solvers say GPU, so where that GPU cannot
   * be had (the CPU jar, a machine without it) the nets run on the CPU, said in one line, never
   * silently; {@code --device gpu} makes it an error instead.
   */
  private static String fromSolver(NetProvider engine, NetDefinition def, String master) {
    String asked = engine.requestedDevice(def);
    if (asked.equals("cpu")) {
      return asked;
    }
    if (!asked.matches("gpu:\\d+")) {
      throw new IllegalArgumentException(
          "The solver's solver_mode: GPU asks for device '"
              + asked
              + "': its device_id must be a device number, 0 or more");
    }
    if (!engine.gpuBuild()) {
      System.out.println(
          "solver_mode: GPU ignored, the nets run on the CPU: " + engine.gpuProblem() + SILENCE);
      return "cpu";
    }
    if (!runsHere(master)) {
      return "gpu";
    }
    int id = Integer.parseInt(asked.substring(4));
    int visible = engine.visibleGpus();
    if (visible > id) {
      return asked;
    }
    System.out.println(
        "solver_mode: GPU with device_id "
            + id
            + " cannot run here, the nets run on the CPU: "
            + (visible == 0
                ? engine.gpuProblem()
                : "this machine has " + visible + " GPU(s), ids 0 to " + (visible - 1))
            + SILENCE);
    return "cpu";
  }

  private static final String SILENCE =
      " (--device cpu silences this line, --device gpu makes it an error)";

  /** Whether Spark will run the tasks in this JVM: a local master. */
  private static boolean runsHere(String master) {
    String m = master != null ? master : System.getProperty("spark.master", "local");
    return m.startsWith("local");
  }
}
