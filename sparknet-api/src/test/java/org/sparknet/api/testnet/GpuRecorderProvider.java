package org.sparknet.api.testnet;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.TaskContext;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;

/**
 * Engine "gpu-recorder": the pure-Java {@link SoftmaxNet} on a machine that claims {@link #visible}
 * GPUs (laid out by the test), recording the device of every net a Spark task builds with the
 * task's partition. In local mode the tasks run in the test's JVM, so the records are read there:
 * the trainer's placement of workers on GPUs is checked without CUDA.
 */
public final class GpuRecorderProvider implements NetProvider {
  public static final String ENGINE = "gpu-recorder";

  /** The GPUs this engine claims to see; a test sets it and puts it back to 0. */
  public static volatile int visible;

  private static final List<String[]> BUILT = new CopyOnWriteArrayList<>();

  @Override
  public String engine() {
    return ENGINE;
  }

  @Override
  public int visibleGpus() {
    return visible;
  }

  @Override
  public boolean gpuBuild() {
    return true;
  }

  @Override
  public Net create(NetDefinition definition) {
    TaskContext tc = TaskContext.get();
    if (tc != null) { // the driver's net is built outside any task
      BUILT.add(new String[] {Integer.toString(tc.partitionId()), definition.device()});
    }
    return new SoftmaxNet(definition);
  }

  /** Forgets what was built so far. */
  public static void clear() {
    BUILT.clear();
  }

  /**
   * The device of each partition's nets built since {@link #clear}, by partition ("gpu:0", or
   * "gpu:0+gpu:1" when a partition's nets were built on two devices).
   */
  public static Map<Integer, String> devicesByPartition() {
    Map<Integer, String> out = new TreeMap<>();
    for (String[] b : BUILT) {
      out.merge(
          Integer.parseInt(b[0]), b[1], (a, n) -> a.equals(n) || a.contains(n) ? a : a + "+" + n);
    }
    return out;
  }
}
