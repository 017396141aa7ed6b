package org.sparknet.apps.cli;

import java.util.Locale;
import java.util.Optional;
import org.apache.spark.network.util.JavaUtils;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.device.TaskDevices;

/**
 * {@code spark.executor.memoryOverhead} from the net's native memory, where the cluster manager
 * enforces it: YARN and Kubernetes kill a container whose resident memory outgrows heap plus
 * overhead, and Spark then reports only a lost executor. Caffe's blobs, OpenBLAS and the native
 * libraries are all outside the heap (docs/memory.md), so SparkNet sizes the overhead itself: it
 * sets it when the user did not, and refuses to train (exit 2) when the user's value is too small.
 *
 * @param neededMib the overhead an executor needs, in MiB
 * @param nets the nets an executor holds
 * @param netBytes one net's native bytes ({@link Net#nativeBytes()})
 */
record MemoryOverhead(long neededMib, int nets, long netBytes) {
  static final String KEY = "spark.executor.memoryOverhead";

  /**
   * A JVM beyond its heap once Caffe's natives are loaded (metaspace, libcaffe, OpenCV, OpenBLAS,
   * thread stacks): about 170 MB measured (docs/memory.md), rounded up.
   */
  static final long BASE_MIB = 192;

  /** SparkNet's recommended overhead ({@code SparkSettings}), the least it sets. */
  static final long RECOMMENDED_MIB = 512;

  private static final long MIB = 1L << 20;

  /**
   * What an executor holding {@code nets} nets of {@code netBytes} each needs: the base plus the
   * nets with a quarter more for what the estimate leaves out (layers' buffers such as im2col).
   */
  static MemoryOverhead of(long netBytes, int nets) {
    long natives = netBytes * nets;
    long mib = BASE_MIB + (natives + natives / 4 + MIB - 1) / MIB;
    return new MemoryOverhead(mib, nets, netBytes);
  }

  /**
   * The most nets of {@code netBytes} each whose need ({@link #of}) fits in {@code roomMib}: the
   * rule above solved for the number of nets.
   */
  static long mostNets(long netBytes, long roomMib) {
    return Math.max(0, (long) ((roomMib - BASE_MIB) / (1.25 * netBytes / MIB)));
  }

  /** One net's native bytes ({@link Net#nativeBytes()}), from a net built once on this JVM. */
  static long netBytes(NetDefinition def) {
    try (Net net = NetProvider.build(TaskDevices.forDriver(def))) {
      return net.nativeBytes();
    }
  }

  /** True where the master's cluster manager enforces the overhead: YARN and Kubernetes. */
  static boolean enforced(String master) {
    return master != null && (YarnSettings.isYarn(master) || master.strip().startsWith("k8s://"));
  }

  /**
   * The value to set when the user set none ({@code userValue} null): this need or the recommended
   * 512m, whichever is more; empty when the user's value suffices.
   *
   * @throws IllegalArgumentException when the user's value is smaller than the need
   */
  Optional<String> resolve(String userValue) {
    if (userValue == null) {
      return Optional.of(Math.max(neededMib, RECOMMENDED_MIB) + "m");
    }
    long given;
    try {
      given = JavaUtils.byteStringAsMb(userValue.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          KEY
              + "="
              + userValue
              + " is not a size; give MiB (\"768\") or a unit (\"768m\", \"1g\")");
    }
    if (given < neededMib) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "%s=%s (%d MiB) is too small: an executor needs %d MiB beyond its heap (%d MiB for"
                  + " the JVM and Caffe's libraries, %d net(s) of %,d native bytes and a quarter"
                  + " more for layers' buffers); YARN or Kubernetes would kill its container. Set"
                  + " %s=%dm or more, or leave it unset for SparkNet to set (docs/cluster-yarn.md)",
              KEY,
              userValue,
              given,
              neededMib,
              BASE_MIB,
              nets,
              netBytes,
              KEY,
              neededMib));
    }
    return Optional.empty();
  }

  /**
   * For a run on {@code master}: the overhead to set, empty when the master does not enforce it or
   * the user's {@code spark.executor.memoryOverhead} (a system property, as spark-submit's {@code
   * --conf} arrives) suffices. Builds the net once on this JVM to read its native bytes. An
   * executor holds a net for each partition it trains: {@code workers} spread over {@code
   * spark.executor.instances} when set, else its task slots; each of {@code groupSize} nets.
   *
   * @throws IllegalArgumentException when the user's value is too small
   */
  static Optional<String> forRun(String master, NetDefinition def, int workers, int groupSize) {
    if (!enforced(master)) {
      return Optional.empty();
    }
    long bytes = netBytes(def);
    int cores = Integer.parseInt(System.getProperty("spark.executor.cores", "1").strip());
    int perExecutor = Math.max(1, cores / Math.max(1, groupSize));
    String instances = System.getProperty("spark.executor.instances");
    if (instances != null && workers > 0) {
      int n = Math.max(1, Integer.parseInt(instances.strip()));
      perExecutor = Math.max(perExecutor, (workers + n - 1) / n);
    }
    return of(bytes, perExecutor * Math.max(1, groupSize)).resolve(System.getProperty(KEY));
  }
}
