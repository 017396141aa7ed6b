package org.sparknet.api;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * Everything needed to build a net on any machine, as plain text: which engine, the solver
 * definition, optionally the net definition when the solver does not embed one, the shape of one
 * example, a seed and the device. This is what is shipped to executors; the net itself is rebuilt
 * there.
 *
 * @param engine the {@link NetProvider#engine()} that builds it, for example "caffe"
 * @param solverText the solver definition (Caffe: SolverParameter prototxt)
 * @param netText the net definition, or null when the solver text carries it ({@code net_param})
 * @param sampleShape the shape of one example without the batch axis (for example [1, 28, 28]),
 *     needed when the net reads data through layers that do not declare it (Caffe's {@code Data}
 *     layers read it from a database); null when the net declares its input shapes
 * @param seed random seed for weight initialisation and data order
 * @param device where the net runs: "cpu", "gpu:N" (device N), "gpu" (the GPU Spark assigned to the
 *     task, else the visible GPUs round-robin by partition) or "auto" (the GPU Spark assigned to
 *     the task, else the CPU); the trainer resolves "gpu" and "auto" to "cpu" or "gpu:N" on each
 *     executor, before an engine sees the definition
 */
public record NetDefinition(
    String engine,
    String solverText,
    String netText,
    List<Integer> sampleShape,
    long seed,
    String device)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  public NetDefinition {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(solverText, "solverText");
    Objects.requireNonNull(device, "device");
    if (!device.matches("cpu|auto|gpu|gpu:\\d+")) {
      throw new IllegalArgumentException(
          "Device must be cpu, gpu, gpu:N (N the device id) or auto but was '" + device + "'");
    }
    sampleShape = sampleShape == null ? null : List.copyOf(sampleShape);
  }

  /** A Caffe definition on the CPU with seed 0. */
  public static NetDefinition caffe(String solverText, String netText, List<Integer> sampleShape) {
    return new NetDefinition("caffe", solverText, netText, sampleShape, 0L, "cpu");
  }

  public NetDefinition withSeed(long newSeed) {
    return new NetDefinition(engine, solverText, netText, sampleShape, newSeed, device);
  }

  /** Whether the device names one place ("cpu" or "gpu:N") rather than a rule ("gpu", "auto"). */
  public boolean hasConcreteDevice() {
    return device.equals("cpu") || device.startsWith("gpu:");
  }

  public NetDefinition withDevice(String newDevice) {
    return new NetDefinition(engine, solverText, netText, sampleShape, seed, newDevice);
  }
}
