package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;

class TrainerConfigTest {
  static final NetDefinition DEF =
      new NetDefinition("java-softmax", "lr=0.1", null, null, 5L, "cpu");

  @Test
  void defaultsAndValues() {
    TrainerConfig c =
        TrainerConfig.builder()
            .setNetDefinition(DEF)
            .optTau(10)
            .optWorkers(3)
            .optAveraging(Averaging.elastic(0.25))
            .build();
    assertEquals(10, c.tau());
    assertEquals(3, c.workers());
    assertEquals(1, c.groupSize(), "a worker is one solver unless asked");
    assertEquals(5L, c.seed(), "seed defaults to the definition's");
    assertEquals("data", c.dataBlob());
    assertEquals("label", c.labelBlob());
    assertTrue(c.averaging().isElastic());
    assertEquals(0.25f, c.averaging().alpha());
    assertEquals(0.0, TrainerConfig.builder().setNetDefinition(DEF).build().tauSeconds());
  }

  @Test
  void rejectsBadValuesNamingThem() {
    TrainerConfig.Builder b = TrainerConfig.builder();
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> b.optTau(0))
            .getMessage()
            .contains("tau"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> b.optWorkers(-1))
            .getMessage()
            .contains("workers"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> b.optGroupSize(0))
            .getMessage()
            .contains("groupSize"));
    assertThrows(IllegalArgumentException.class, () -> b.optTauSeconds(0));
    assertThrows(IllegalArgumentException.class, () -> b.optMaxEpochs(0));
    assertThrows(IllegalArgumentException.class, () -> b.optMaxEpochs(Double.POSITIVE_INFINITY));
    assertThrows(IllegalArgumentException.class, () -> b.optInitialWeights(" "));
    TrainerConfig c =
        TrainerConfig.builder()
            .setNetDefinition(DEF)
            .optMaxEpochs(2.5)
            .optInitialWeights("hdfs:///zoo/lenet.caffemodel")
            .build();
    assertEquals(2.5, c.maxEpochs());
    assertEquals("hdfs:///zoo/lenet.caffemodel", c.initialWeights().orElseThrow());
    assertThrows(IllegalArgumentException.class, () -> Averaging.elastic(1.5));
    assertThrows(IllegalArgumentException.class, () -> Averaging.elastic(-0.1));
    assertThrows(IllegalArgumentException.class, () -> b.optDataBlob(" "));
    assertThrows(IllegalStateException.class, () -> TrainerConfig.builder().build());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            TrainerConfig.builder()
                .setNetDefinition(DEF)
                .optTauSeconds(1)
                .optDeterministic(true)
                .build());
    assertThrows(
        IllegalArgumentException.class,
        () -> TrainerConfig.builder().setNetDefinition(DEF).optTargetMetric("accuracy", 1).build());
  }

  @Test
  void metricDirection() {
    assertTrue(StopRules.lowerIsBetter("loss"));
    assertTrue(StopRules.lowerIsBetter("top1_error"));
    assertFalse(StopRules.lowerIsBetter("accuracy"));
  }

  /**
   * A checkpoint does not hold EASGD workers' own weights, so a deterministic EASGD run could not
   * resume exactly: refused, naming both settings (without the check, it built).
   */
  /**
   * Deterministic elastic averaging builds: checkpoints hold the workers' own weights, so a resumed
   * run repeats an uninterrupted one (ElasticResumeIT checks it).
   */
  @Test
  void deterministicElasticAveragingIsAccepted() {
    TrainerConfig c =
        TrainerConfig.builder()
            .setNetDefinition(DEF)
            .optAveraging(Averaging.elastic(0.5))
            .optDeterministic(true)
            .build();
    assertTrue(c.deterministic());
    assertEquals(Averaging.elastic(0.5), c.averaging());
  }

  /**
   * The asynchronous modes are refused with optDeterministic, naming the mode; they are distinct
   * values by staleness bound. Without the check in DeterministicTraining, the downpour config
   * built (seen red: "Expected java.lang.IllegalArgumentException to be thrown").
   */
  @Test
  void deterministicAsynchronousAveragingIsRefused() {
    for (Averaging a : new Averaging[] {Averaging.downpour(), Averaging.asyncElastic(0.5, 4)}) {
      IllegalArgumentException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              IllegalArgumentException.class,
              () ->
                  TrainerConfig.builder()
                      .setNetDefinition(DEF)
                      .optAveraging(a)
                      .optDeterministic(true)
                      .build());
      assertTrue(e.getMessage().contains("asynchronous averaging (" + a + ")"), e.getMessage());
    }
    assertTrue(Averaging.downpour().isAsync());
    assertFalse(Averaging.elastic(0.5).isAsync());
    assertEquals(Averaging.downpour(32), Averaging.downpour());
    assertFalse(Averaging.downpour(4).equals(Averaging.downpour(5)));
    assertEquals("easgd-async(alpha=0.5, staleness=4)", Averaging.asyncElastic(0.5, 4).toString());
  }

  /** Without the deterministic check, adaptive tau with optDeterministic built (seen red). */
  @Test
  void adaptiveTauAndCompressionAreOptionsWithTheirLimits() {
    TrainerConfig c =
        TrainerConfig.builder()
            .setNetDefinition(DEF)
            .optTau(8)
            .optAdaptiveTau(0.05, 200)
            .optCompress(org.sparknet.api.averaging.Compression.BF16)
            .build();
    assertTrue(c.adaptiveTau());
    assertEquals(8, c.tau(), "the first round's tau");
    assertEquals(200, c.tauMax());
    assertEquals(org.sparknet.api.averaging.Compression.BF16, c.compression());
    assertTrue(c.toString().contains("tau adaptive (≤ 200, overhead ≤ 5.0 %)"), c.toString());
    assertTrue(c.toString().contains("compress bf16"), c.toString());
    TrainerConfig fixed = TrainerConfig.builder().setNetDefinition(DEF).optTau(8).build();
    assertFalse(fixed.adaptiveTau());
    assertEquals(8, fixed.tauMax());
    assertEquals(org.sparknet.api.averaging.Compression.NONE, fixed.compression());
    for (double bad : new double[] {0, 1, -0.1, Double.NaN}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> TrainerConfig.builder().optAdaptiveTau(bad, 10));
      assertTrue(
          e.getMessage().startsWith("maxOverhead must be a fraction in (0, 1)"), e.getMessage());
    }
    assertThrows(
        IllegalArgumentException.class, () -> TrainerConfig.builder().optAdaptiveTau(0.05, 0));
    IllegalArgumentException det =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                TrainerConfig.builder()
                    .setNetDefinition(DEF)
                    .optAdaptiveTau(0.05, 100)
                    .optDeterministic(true)
                    .build());
    assertTrue(det.getMessage().contains("needs a fixed tau"), det.getMessage());
    assertFalse(
        TrainerConfig.builder()
            .setNetDefinition(DEF)
            .optAdaptiveTau(0.05, 100)
            .optTauSeconds(2)
            .build()
            .adaptiveTau(),
        "timed rounds replace adaptive tau");
  }
}
