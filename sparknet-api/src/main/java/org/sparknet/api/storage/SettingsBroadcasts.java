package org.sparknet.api.storage;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;

/**
 * One Spark broadcast for each distinct set of written Hadoop settings on the running driver, so
 * that tasks carry a broadcast's handle instead of the settings themselves: Spark serialises a data
 * source's whole lineage into every stage's task binary, which every executor fetches, once per
 * stage, from the driver. A broadcast is fetched once per executor. Every path of a data set has
 * its own {@link StorageSettings} object (one per {@link StoragePath#of(String)}) with the same
 * settings, hence one broadcast per content, not per object.
 *
 * <p>The broadcasts live as long as their context: a handle in a cached RDD's lineage must stay
 * valid for every later stage over it, and a context holds a few of them (one per settings a data
 * set was read with), each the size of Hadoop's settings.
 */
final class SettingsBroadcasts {
  /** Spark's executor id of the driver ({@code SparkContext.DRIVER_IDENTIFIER}). */
  private static final String DRIVER = "driver";

  private static WeakReference<SparkContext> context = new WeakReference<>(null);
  private static final Map<ByteBuffer, Broadcast<byte[]>> byContent = new HashMap<>();

  private SettingsBroadcasts() {}

  /**
   * The running driver's context; null in a task (local mode's executors run in the driver's JVM),
   * on an executor, or with no Spark session, where settings travel as bytes or as the handle they
   * came with.
   */
  static SparkContext driverContext() {
    SparkEnv env = SparkEnv.get();
    if (env == null || !DRIVER.equals(env.executorId()) || TaskContext.get() != null) {
      return null;
    }
    scala.Option<SparkSession> s = StorageSettings.session();
    if (s.isEmpty() || s.get().sparkContext().isStopped()) {
      return null;
    }
    return s.get().sparkContext();
  }

  /** The broadcast of {@code written} on {@code sc}, made on first use. */
  static synchronized Broadcast<byte[]> share(SparkContext sc, byte[] written) {
    if (context.get() != sc) {
      byContent.clear();
      context = new WeakReference<>(sc);
    }
    return byContent.computeIfAbsent(
        ByteBuffer.wrap(written), k -> JavaSparkContext.fromSparkContext(sc).broadcast(written));
  }
}
