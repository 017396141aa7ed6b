package org.sparknet.rbm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.testing.data.FashionMnist;
import org.sparknet.testing.spark.LocalSpark;

/**
 * SparkNetTrainer trains the rbm engine, unchanged, on 2 partitions of real data: 4,000
 * Fashion-MNIST training images (pixels in [0, 1]), a 784-256 RBM with CD-1, momentum 0.5, batch
 * 50, tau 20, 8 rounds (2 epochs). The mean-field reconstruction error (squared error per pixel) on
 * 1,000 test images must fall to less than {@value #MAX_RATIO} of its value before training.
 */
class RbmTrainerIT {
  static final double MAX_RATIO = 0.4;

  @Test
  void sparkNetTrainerTrainsAnRbmOnTwoPartitions() {
    JavaSparkContext sc = LocalSpark.context();
    List<Example> train = FashionMnist.load(true, 4000);
    List<Example> test = FashionMnist.load(false, 1000);
    RbmConfig rbm =
        RbmConfig.of(784, 256, 50, 0.05f).withSolver(0.05f, 0.5f, 2e-4f).withBatches(50, 100);
    TrainerConfig cfg =
        TrainerConfig.builder()
            .setNetDefinition(rbm.definition(11))
            .optWorkers(2)
            .optTau(20)
            .optSeed(11)
            .build();
    long t0 = System.nanoTime();
    try (SparkNetTrainer trainer = new SparkNetTrainer(sc, cfg)) {
      trainer.setTrainingData(sc.parallelize(train, 2));
      trainer.setValidationData(sc.parallelize(test, 2));
      float before = trainer.test().get("loss");
      List<RoundMetrics> rounds = trainer.train(8);
      Map<String, Float> after = trainer.test();
      System.out.printf(
          "RBM 784-256 on 2 partitions: test reconstruction error %.4f -> %.4f; train loss by"
              + " round %s; %.1f s%n",
          before,
          after.get("loss"),
          rounds.stream().map(m -> String.format("%.4f", m.meanLoss())).toList(),
          (System.nanoTime() - t0) / 1e9);
      assertEquals(8, rounds.size());
      assertTrue(
          after.get("loss") < MAX_RATIO * before,
          "reconstruction error " + before + " -> " + after.get("loss"));
      assertTrue(rounds.get(7).meanLoss() < rounds.get(0).meanLoss());
    }
  }
}
