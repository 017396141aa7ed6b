package org.sparknet.caffe.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainingDivergedException;
import org.sparknet.caffe.CaffeNet;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.testing.Tolerance;
import org.sparknet.testing.data.FashionMnist;
import org.sparknet.testing.spark.LocalSpark;

/**
 * A net driven to NaN inside a long-lived executor (local Spark: the executor is this JVM) stops
 * training with {@link TrainingDivergedException} naming the round, the partition and the layer,
 * and leaves nothing behind: the diverged nets close like any other (the native-leak check after
 * each test), and this same JVM then trains a fresh net bit for bit like a CaffeNet trained alone.
 *
 * <p>The mini LeNet's max pooling is what made divergence dangerous: a window of NaN leaves Caffe's
 * argmax at -1, and a backward pass would then add to the float before the conv1 gradient blob,
 * over malloc's chunk header. sparknet-caffe's pom runs its ITs under glibc's heap checks ({@code
 * MALLOC_CHECK_=3}, {@code libc_malloc_debug} preloaded; setUp checks both), so a write outside a
 * blob aborts the JVM when the blob is freed. Mutation: with the backward pass run on a non-finite
 * forward (CheckedStep.run calling Backward before returning what its check found), the NaN test's
 * JVM printed "free(): invalid pointer" and aborted (exit 134; failsafe: "The forked VM terminated
 * without properly saying goodbye"). The huge-learning-rate test alone passed under that mutation:
 * its first non-finite output is ip1's, after the pooling.
 */
class DivergedNetIT {
  private static final String HUGE_LR = "base_lr: 100000000\nmomentum: 0.9\nlr_policy: \"fixed\"\n";
  private static final Pattern NAMED =
      Pattern.compile(
          "Training diverged in round (\\d+), partition (\\d+): non-finite (output '[^']+' of"
              + " layers? '[^)]*?'|weights of layer '[^']+')");

  private static List<Example> images;
  private static JavaSparkContext sc;

  @BeforeAll
  static void setUp() throws IOException {
    if ("required".equals(System.getProperty("sparknet.test.mallocCheck"))) {
      assertEquals("3", System.getenv("MALLOC_CHECK_"), "MALLOC_CHECK_");
      assertTrue(
          Files.readString(Path.of("/proc/self/maps")).contains("libc_malloc_debug"),
          "glibc's heap checks (libc_malloc_debug.so, LD_PRELOAD) are not loaded");
    }
    assumeTrue(
        System.getenv("MALLOC_CHECK_") != null,
        "runs in sparknet-caffe's malloc-check failsafe execution");
    CaffeRuntime.load();
    images = FashionMnist.load(true, 200);
    sc = LocalSpark.context();
  }

  @Test
  void aHugeLearningRateStopsNamingRoundPartitionAndLayer() {
    NetDefinition def = CaffeTrainerIT.definition(HUGE_LR, 8);
    List<List<Example>> parts = List.of(images.subList(0, 100), images.subList(100, 200));
    try (SparkNetTrainer t = new SparkNetTrainer(sc, CaffeTrainerIT.config(def, 5, 2).build())) {
      t.setTrainingData(LocalSpark.partitioned(parts));
      TrainingDivergedException e = assertThrows(TrainingDivergedException.class, () -> t.train(6));
      Matcher m = NAMED.matcher(e.getMessage());
      assertTrue(m.find(), e.getMessage());
      assertEquals(e.round(), Integer.parseInt(m.group(1)), e.getMessage());
      assertEquals(e.partition(), Integer.parseInt(m.group(2)), e.getMessage());
      assertTrue(e.partition() == 0 || e.partition() == 1, e.getMessage());
    }
    aFreshNetTrainsExactlyAsACaffeNetAlone();
  }

  /**
   * A LeNet whose conv1 output goes through {@code log(100 - |x|)}: finite for images in [0, 1]
   * (|conv1| stays far below 100), NaN for inputs of 10^6, which are finite (NaN inputs are
   * rejected by the feeder as bad input) and whose magnitudes sum well within the float range.
   * Every max-pooling window over the NaN plane then leaves its argmax at -1.
   */
  private static final String LOG_LENET =
      "name: \"loglenet\"\n"
          + "layer { name: \"in\" type: \"Input\" top: \"data\" top: \"label\"\n"
          + "  input_param { shape { dim: 8 dim: 1 dim: 28 dim: 28 } shape { dim: 8 } } }\n"
          + "layer { name: \"conv1\" type: \"Convolution\" bottom: \"data\" top: \"conv1\"\n"
          + "  convolution_param { num_output: 4 kernel_size: 5\n"
          + "    weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" } } }\n"
          + "layer { name: \"abs1\" type: \"AbsVal\" bottom: \"conv1\" top: \"abs1\" }\n"
          + "layer { name: \"log1\" type: \"Log\" bottom: \"abs1\" top: \"log1\"\n"
          + "  log_param { scale: -1 shift: 100 } }\n"
          + "layer { name: \"pool1\" type: \"Pooling\" bottom: \"log1\" top: \"pool1\"\n"
          + "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
          + "layer { name: \"ip1\" type: \"InnerProduct\" bottom: \"pool1\" top: \"ip1\"\n"
          + "  inner_product_param { num_output: 10\n"
          + "    weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" } } }\n"
          + "layer { name: \"loss\" type: \"SoftmaxWithLoss\" bottom: \"ip1\" bottom: \"label\""
          + " top: \"loss\" }\n";

  @Test
  void aNanActivationBeforeMaxPoolingStopsNamingItsLayerAndPartition() {
    List<Example> poisoned = new ArrayList<>();
    for (Example x : images.subList(100, 200)) {
      float[] f = new float[x.features().length];
      Arrays.fill(f, 1e6f);
      poisoned.add(new Example(f, x.label()));
    }
    NetDefinition def =
        NetDefinition.caffe(CaffeTrainerIT.LENET_SOLVER, LOG_LENET, null).withSeed(3);
    List<List<Example>> parts = List.of(images.subList(0, 100), poisoned);
    try (SparkNetTrainer t = new SparkNetTrainer(sc, CaffeTrainerIT.config(def, 5, 2).build())) {
      t.setTrainingData(LocalSpark.partitioned(parts));
      TrainingDivergedException e = assertThrows(TrainingDivergedException.class, () -> t.train(3));
      assertEquals(1, e.round(), e.getMessage());
      assertEquals(1, e.partition(), e.getMessage());
      assertTrue(
          e.getMessage()
              .contains(
                  "partition 1: non-finite output 'log1' of layer 'log1' in the forward pass of"
                      + " iteration 0 (no backward pass or update ran)"),
          e.getMessage());
    }
    aFreshNetTrainsExactlyAsACaffeNetAlone();
  }

  /** In the JVM that hosted the diverged nets: 2 rounds of 5 steps, bit for bit. */
  private static void aFreshNetTrainsExactlyAsACaffeNetAlone() {
    NetDefinition def = CaffeTrainerIT.definition(CaffeTrainerIT.LENET_SOLVER, 8);
    List<Example> part = images.subList(0, 100);
    try (SparkNetTrainer t = new SparkNetTrainer(sc, CaffeTrainerIT.config(def, 5, 1).build());
        CaffeNet alone = CaffeNet.create(def)) {
      alone.setWeights(t.getWeights());
      t.setTrainingData(LocalSpark.partitioned(List.of(part)));
      ShardFeeder f = CaffeTrainerIT.feeder(part, 0);
      for (int r = 1; r <= 2; r++) {
        double loss = t.trainRound().meanLoss();
        alone.train(5, f);
        assertTrue(Double.isFinite(loss), "round " + r + " loss " + loss);
        CaffeTrainerIT.assertWeights(alone.getWeights(), t.getWeights(), Tolerance.EXACT);
      }
    }
  }
}
