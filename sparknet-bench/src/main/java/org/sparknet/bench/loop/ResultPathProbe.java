package org.sparknet.bench.loop;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.train.SparkSettings;

/**
 * One Spark configuration's cost of moving weights, in a JVM of its own (run by {@link
 * WeightPathSection}): on {@code local[2]}, the driver broadcasts a float array, and a job of two
 * tasks reads it and returns a copy each, as a round does with the weights (no training). Prints
 * {@code broadcast MS} and {@code job MS}, medians after a warm-up.
 *
 * <p>Arguments: the master ({@code local[2]}, or a cluster's URL: then two executors), floats,
 * repetitions, {@code own-kryo} or {@code bulk-kryo} (Kryo's own {@code float[]} serializer, or
 * SparkNet's registrator with {@code BulkArrays}), then Spark settings as {@code key=value} that
 * replace SparkNet's recommended ones.
 */
public final class ResultPathProbe {
  private ResultPathProbe() {}

  public static void main(String[] args) throws InterruptedException {
    String master = args[0];
    int floats = Integer.parseInt(args[1]);
    int reps = Integer.parseInt(args[2]);
    boolean bulk = args[3].equals("bulk-kryo");
    SparkSession.Builder b =
        SparkSession.builder()
            .master(master)
            .appName("SparkNet result path probe")
            .config("spark.ui.enabled", "false");
    for (Map.Entry<String, String> e : SparkSettings.recommended().entrySet()) {
      if (bulk || !e.getKey().equals("spark.kryo.registrator")) {
        b.config(e.getKey(), e.getValue());
      }
    }
    SparkSession spark = ClusterRounds.session(b, args, 4);
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      if (!sc.isLocal()) {
        ClusterRounds.awaitExecutors(sc, 2);
      }
      JavaRDD<Integer> two = sc.parallelize(List.of(0, 1), 2).cache();
      two.count();
      Timing t = time(sc, two, floats, reps, false);
      System.out.printf(Locale.ROOT, "broadcast %.1f%n", t.broadcastMs());
      System.out.printf(Locale.ROOT, "job %.1f%n", t.jobMs());
    } finally {
      spark.stop();
    }
  }

  /**
   * Medians over {@code reps} repetitions, after one warm-up, in milliseconds: the broadcast of a
   * weight-like array of {@code floats}, the job whose tasks (one per partition of {@code tasks})
   * return a copy each, and the whole of it (broadcast, job, destroying the broadcast and, with
   * {@code sum}, the driver adding the results up as a round's averaging does).
   */
  record Timing(double broadcastMs, double jobMs, double roundMs) {}

  static Timing time(
      JavaSparkContext sc, JavaRDD<Integer> tasks, int floats, int reps, boolean sum) {
    float[] w = new float[floats];
    SplittableRandom r = new SplittableRandom(1);
    for (int i = 0; i < floats; i++) {
      w[i] = (float) (0.01 * r.nextGaussian());
    }
    int n = tasks.getNumPartitions();
    List<Double> broadcast = new ArrayList<>();
    List<Double> job = new ArrayList<>();
    List<Double> round = new ArrayList<>();
    for (int k = 0; k <= reps; k++) {
      long t0 = System.nanoTime();
      Broadcast<float[]> bc = sc.broadcast(w);
      long t1 = System.nanoTime();
      List<float[]> back = tasks.map(p -> bc.value().clone()).collect();
      long t2 = System.nanoTime();
      if (back.size() != n || back.get(n - 1).length != floats) {
        throw new IllegalStateException("The job returned " + back.size() + " arrays");
      }
      if (sum) {
        float[] total = new float[floats];
        for (float[] b : back) {
          for (int i = 0; i < floats; i++) {
            total[i] += b[i];
          }
        }
      }
      bc.destroy();
      long t3 = System.nanoTime();
      if (k > 0) { // the first is the warm-up
        broadcast.add((t1 - t0) / 1e6);
        job.add((t2 - t1) / 1e6);
        round.add((t3 - t0) / 1e6);
      }
    }
    return new Timing(
        Spread.of(broadcast).median(), Spread.of(job).median(), Spread.of(round).median());
  }
}
