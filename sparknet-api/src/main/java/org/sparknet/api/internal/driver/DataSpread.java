package org.sparknet.api.internal.driver;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.BlockManagerMaster;
import org.apache.spark.storage.RDDBlockId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.collection.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Keeps a cluster's training partitions spread over its executors. Spark runs a partition's task
 * where its cached block is. When an executor is lost, its partitions are cached again on the
 * survivors, and they stay there after Spark has started a replacement executor: one survivor then
 * trains two partitions a round, one after the other, while the new executor idles, for the rest of
 * the training. So, once an executor has been lost, whenever the set of live executors changes and
 * one executor holds more partitions than an even spread would give it, the blocks are dropped
 * before the next round; that round caches each partition again where its task lands, and tasks
 * without a cached block are spread over the free executors. The partitions that move restart their
 * solvers there, once. On a fixed cluster, executors that only join (a cluster still starting) move
 * nothing: a run without faults keeps every partition on one net, as {@code --deterministic} needs.
 * Under dynamic allocation an executor that joins is one Spark added because the round's tasks
 * backed up on too few executors; the blocks stay where they are, so the tasks would keep waiting
 * out the locality wait for the busy executor while the added one idles until Spark releases it
 * again. There a join spreads uneven blocks as a loss does.
 *
 * <p>Local mode has one executor, the driver: nothing to spread.
 */
final class DataSpread {
  private static final Logger LOG = LoggerFactory.getLogger(DataSpread.class);

  private final JavaSparkContext sc;
  private final PackedData data;
  private final boolean elastic;
  private Set<String> executorsSeen;
  private boolean lostSinceSpread;

  DataSpread(JavaSparkContext sc, PackedData data) {
    this.sc = sc;
    this.data = data;
    this.elastic = RoundDriver.dynamicAllocation(sc);
  }

  /**
   * Before a round: drops the cached blocks if an executor was lost, the live executors changed,
   * and the blocks are uneven over them.
   */
  void beforeRound(int round) {
    if (sc.isLocal() || SparkEnv.get() == null) {
      return;
    }
    BlockManagerMaster master = SparkEnv.get().blockManager().master();
    Set<String> live = liveExecutors(master);
    if (live.equals(executorsSeen)) {
      return;
    }
    if (executorsSeen != null && !live.containsAll(executorsSeen)) {
      lostSinceSpread = true;
    }
    boolean added = added(executorsSeen, live);
    boolean due = due(lostSinceSpread, elastic, executorsSeen, live);
    executorsSeen = live;
    if (!due) {
      return;
    }
    Map<Integer, String> holders = blockHolders(master);
    if (uneven(holders, live)) {
      lostSinceSpread = false;
      LOG.warn(
          "Round {}: {} and the training data's blocks are uneven over the executors now live"
              + " (partition=executor: {}); they are cached again where this round's tasks run,"
              + " and the partitions that move restart their solvers",
          round,
          elastic && added ? "dynamic allocation added an executor" : "an executor was lost",
          holders);
      data.recache();
    }
  }

  /**
   * Whether the blocks' spread is to be checked: after a loss not yet spread over, or, under
   * dynamic allocation ({@code elastic}), when {@code live} has an executor that {@code seen} (the
   * executors of the last check; null before the first round) lacks.
   */
  static boolean due(boolean lostSinceSpread, boolean elastic, Set<String> seen, Set<String> live) {
    return lostSinceSpread || (elastic && added(seen, live));
  }

  /** Whether {@code live} has an executor that {@code seen} (null before the first round) lacks. */
  static boolean added(Set<String> seen, Set<String> live) {
    return seen != null && !seen.containsAll(live);
  }

  /**
   * Whether some executor holds more partitions' blocks than an even spread over {@code live} would
   * give it (the partitions whose block is cached).
   */
  static boolean uneven(Map<Integer, String> holders, Set<String> live) {
    if (live.isEmpty() || holders.isEmpty()) {
      return false;
    }
    int fair = (holders.size() + live.size() - 1) / live.size();
    Map<String, Integer> perExecutor = new HashMap<>();
    for (String e : holders.values()) {
      perExecutor.merge(e, 1, Integer::sum);
    }
    return perExecutor.values().stream().anyMatch(n -> n > fair);
  }

  private static Set<String> liveExecutors(BlockManagerMaster master) {
    Set<String> out = new HashSet<>();
    for (BlockManagerId id : CollectionConverters.asJava(master.getMemoryStatus().keySet())) {
      if (!id.isDriver()) {
        out.add(id.executorId());
      }
    }
    return out;
  }

  /** The executor holding each partition's cached block (partitions without one left out). */
  private Map<Integer, String> blockHolders(BlockManagerMaster master) {
    int rdd = data.shards().id();
    BlockId[] ids = new BlockId[data.partitions()];
    for (int p = 0; p < ids.length; p++) {
      ids[p] = new RDDBlockId(rdd, p);
    }
    List<Seq<BlockManagerId>> locations =
        new ArrayList<>(CollectionConverters.asJava(master.getLocations(ids)));
    Map<Integer, String> out = new HashMap<>();
    for (int p = 0; p < locations.size(); p++) {
      for (BlockManagerId id : CollectionConverters.asJava(locations.get(p))) {
        if (!id.isDriver()) {
          out.put(p, id.executorId());
          break;
        }
      }
    }
    return out;
  }
}
