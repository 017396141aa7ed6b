package org.sparknet.apps.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;

/**
 * The driver that {@link GpuSchedulingIT} submits to a standalone cluster: trains the {@link
 * DeviceRecorderProvider} engine with a device rule on 2 partitions and prints, per round, where
 * each worker ran ({@code ROUND r DEVICES [..]}).
 *
 * <p>Arguments: device rule ("gpu" or "auto"), solvers per worker, rounds, the device log file.
 */
public final class GpuSchedulingApp {
  private GpuSchedulingApp() {}

  public static void main(String[] args) {
    String device = args[0];
    int group = Integer.parseInt(args[1]);
    int rounds = Integer.parseInt(args[2]);
    String deviceLog = args[3];
    NetDefinition def =
        new NetDefinition(
            DeviceRecorderProvider.ENGINE,
            "features=4\nclasses=2\nbatch=2\nlr=0.1\ndeviceLog=" + deviceLog,
            null,
            null,
            1L,
            device);
    SparkSession spark = SparkSession.builder().appName("GPU scheduling").getOrCreate();
    try (SparkNetTrainer t =
        new SparkNetTrainer(
            JavaSparkContext.fromSparkContext(spark.sparkContext()),
            TrainerConfig.builder()
                .setNetDefinition(def)
                .optTau(2)
                .optWorkers(2)
                .optGroupSize(group)
                .build())) {
      t.setTrainingData(examples(JavaSparkContext.fromSparkContext(spark.sparkContext())));
      for (int r = 0; r < rounds; r++) {
        RoundMetrics m = t.trainRound();
        System.out.println("ROUND " + m.round() + " DEVICES " + m.devices());
      }
    } finally {
      spark.stop();
    }
  }

  private static JavaRDD<Example> examples(JavaSparkContext sc) {
    SplittableRandom rnd = new SplittableRandom(7);
    List<Example> all = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      float[] f = new float[4];
      for (int j = 0; j < f.length; j++) {
        f[j] = (float) rnd.nextGaussian();
      }
      all.add(new Example(f, f[0] > 0 ? 1 : 0));
    }
    return sc.parallelize(all, 2);
  }
}
