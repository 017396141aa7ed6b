package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sparknet.apps.testing.PythonScript;

/**
 * An LMDB larger than the driver's heap trains on a loopback standalone cluster: 34,000 records of
 * 3x64x64 bytes (a 557 MB data.mdb, written by python3-lmdb) named by the net's own Data layer, a
 * driver of 512 MB (the least heap Spark's driver accepts), two workers whose executors read and
 * cache their own key ranges. The driver reads the LMDB's meta and branch pages and its first
 * record only. A build that brought the records to the driver (collecting the read and
 * parallelizing the list) never got there: each executor ran out of heap sending its share
 * ("java.lang.OutOfMemoryError: Java heap space", a task failed 4 times), exit 1.
 */
class LargeLmdbClusterIT {
  private static final int RECORDS = 34_000;
  private static final long DRIVER_HEAP = 512L << 20;
  private static final int WORKERS = 2;
  private static final int TAU = 5;
  private static final int BATCH = 32;
  private static final int ROUNDS = 2;

  @Test
  void anLmdbLargerThanTheDriversHeapTrains() throws Exception {
    try (StandaloneCluster cluster = StandaloneCluster.start(WORKERS, "3g")) {
      Path dir = cluster.dir();
      Path db = dir.resolve("big_lmdb");
      PythonScript.run("/lmdb/write_lmdbs.py", dir, "big", db.toString(), "" + RECORDS);
      long size = Files.size(db.resolve("data.mdb"));
      assertTrue(size > DRIVER_HEAP, "the LMDB is " + size + " bytes");
      Path solver = writeNet(dir, db);
      Path out = dir.resolve("run");
      SparkSubmitProcess driver =
          cluster.submit(
              "large-lmdb",
              StandaloneCluster.shadedJar(),
              Map.of(
                  "spark.driver.memory",
                  (DRIVER_HEAP >> 20) + "m",
                  "spark.executor.memory",
                  "2800m"),
              StandaloneCluster.TARGET.resolve("launcher/log4j2.properties"),
              List.of(
                  "train",
                  "--solver",
                  solver.toString(),
                  "--workers",
                  "" + WORKERS,
                  "--tau",
                  "" + TAU,
                  "--rounds",
                  "" + ROUNDS,
                  "--output",
                  out.toString()));
      int exit = driver.await(Duration.ofMinutes(6));
      String log = driver.output();
      assertEquals(0, exit, log);
      assertTrue(log.contains("on 34,000 training"), log);
      assertTrue(Files.size(out.resolve("final.caffemodel")) > 3 * 64 * 64 * 10 * 4, log);
      long perRound = (long) WORKERS * TAU * BATCH;
      assertEquals(List.of(perRound, perRound), TrainingCluster.examplesPerRound(out), log);
    }
  }

  /** A linear classifier over the LMDB, read by its Data layer as caffe train would read it. */
  private static Path writeNet(Path dir, Path db) throws java.io.IOException {
    Path net = dir.resolve("big_net.prototxt");
    Files.writeString(
        net,
        """
        name: "big"
        layer {
          name: "data" type: "Data" top: "data" top: "label"
          include { phase: TRAIN }
          transform_param { scale: 0.00390625 }
          data_param { source: "%s" batch_size: %d backend: LMDB }
        }
        layer {
          name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
          inner_product_param { num_output: 10 weight_filler { type: "xavier" } }
        }
        layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
        """
            .formatted(db, BATCH));
    Path solver = dir.resolve("big_solver.prototxt");
    Files.writeString(
        solver,
        """
        net: "%s"
        base_lr: 0.01
        lr_policy: "fixed"
        max_iter: 1000
        solver_mode: CPU
        """
            .formatted(net));
    return solver;
  }
}
