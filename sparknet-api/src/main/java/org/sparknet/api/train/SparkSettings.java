package org.sparknet.api.train;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.internal.worker.BlasThreads;

/**
 * The Spark settings SparkNet recommends for a context it trains on. Apps that create their own
 * session apply them with {@link #apply}; spark-submit users pass the same pairs as {@code --conf}
 * (docs/cluster-standalone.md). A setting already given as a system property (which is how
 * spark-submit's {@code --conf} reaches the driver) is left as the user set it.
 */
public final class SparkSettings {
  /**
   * OpenBLAS threads of each JVM that runs SparkNet's tasks (executors; the driver under a local
   * master), which every task sets before it computes: a positive integer; unset, the JVM's {@code
   * OPENBLAS_NUM_THREADS} if it has one, else 1, one BLAS thread per task slot. A Spark conf key,
   * or a local property ({@code SparkContext.setLocalProperty}) for the jobs of one thread.
   */
  public static final String BLAS_THREADS = BlasThreads.CONF_KEY;

  private SparkSettings() {}

  /** Key to value, in a stable order. */
  public static Map<String, String> recommended() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("spark.serializer", "org.apache.spark.serializer.KryoSerializer");
    m.put("spark.kryo.registrator", "org.sparknet.api.spark.SparkNetKryoRegistrator");
    // Caffe's glog and OpenBLAS read these when the executor JVM starts: warnings and errors only,
    // and one BLAS thread per solver (the executor's cores are the parallelism).
    m.put("spark.executorEnv.GLOG_minloglevel", "2");
    m.put("spark.executorEnv.OPENBLAS_NUM_THREADS", "1");
    // A round's task result is the partition's weights. Above spark.task.maxDirectResultSize
    // (1 MiB by default, capped by spark.rpc.message.maxSize, 128 MiB by default) Spark parks the
    // result in the block manager and the driver fetches it in a second trip, to a file on disk
    // above spark.network.maxRemoteBlockSizeFetchToMem (200 MiB): an AlexNet-sized net's 244 MB
    // went to disk and back every round, even in local mode. Up to 2 GiB goes directly instead
    // (BENCHMARKS.md, "Weights at memory speed").
    m.put("spark.task.maxDirectResultSize", "2047m");
    m.put("spark.rpc.message.maxSize", "2047");
    // Every round broadcasts the weights. LZ4 does not shrink float weights (their mantissas look
    // random to it) but costs the driver time on each round's critical path, and every executor
    // as much again to decompress (BENCHMARKS.md, per-round overhead).
    m.put("spark.broadcast.compress", "false");
    // Caffe's blobs, OpenBLAS and the native libraries live outside the heap, where Spark does not
    // look (docs/memory.md gives the figures per executor and per net). Enforced by YARN and
    // Kubernetes, ignored by standalone.
    m.put("spark.executor.memoryOverhead", "512m");
    m.put("spark.ui.showConsoleProgress", "false");
    return m;
  }

  /** Applies {@link #recommended()} to {@code builder}, except keys set as system properties. */
  public static SparkSession.Builder apply(SparkSession.Builder builder) {
    recommended()
        .forEach(
            (k, v) -> {
              if (System.getProperty(k) == null) {
                builder.config(k, v);
              }
            });
    return builder;
  }
}
