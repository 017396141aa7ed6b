package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A round's JSON line reads back into the same metrics (a saved model's history). Broken on
 * purpose: reading "epoch" from "meanLoss" wrote back "epoch":0.25 for 1.2345; reading a null
 * device as text wrote back "null" in quotes; without "learningRate" in the line, the rate read
 * back as NaN.
 */
class RoundMetricsJsonTest {

  private static RoundMetrics sample(double loss) {
    return RoundMetrics.builder()
        .round(7)
        .iteration(350)
        .steps(50)
        .examples(6400)
        .epoch(1.2345)
        .meanLoss(loss)
        .learningRate(0.0125)
        .validation(Map.of("accuracy", 0.8125f, "loss", 0.5f))
        .devices(Arrays.asList("cpu", null, "gpu:1"))
        .timings(new RoundMetrics.Timings(11, 12, 13, 14, 60, 9))
        .timestampMillis(1_700_000_000_123L)
        .build();
  }

  @Test
  void jsonLineReadsBackIntoTheSameRound() {
    RoundMetrics m = sample(0.25);
    RoundMetrics back = RoundMetrics.fromJson(m.toJson());
    assertEquals(m.toJson(), back.toJson());
    assertEquals(7, back.round());
    assertEquals(350, back.iteration());
    assertEquals(50, back.steps());
    assertEquals(6400, back.examples());
    assertEquals(1.2345, back.epoch());
    assertEquals(0.25, back.meanLoss());
    assertEquals(0.0125, back.learningRate());
    assertEquals(Map.of("accuracy", 0.8125f, "loss", 0.5f), back.validation());
    assertEquals(Arrays.asList("cpu", null, "gpu:1"), back.devices());
    assertNull(back.devices().get(1));
    assertEquals(new RoundMetrics.Timings(11, 12, 13, 14, 60, 9), back.timings());
    assertEquals(1_700_000_000_123L, back.timestampMillis());
  }

  /**
   * Every test net's results read back by number, stages and outputs; test net #0's stay in
   * "validation" as before.
   */
  @Test
  void testNetsReadBackByNumberAndStage() {
    TestNetResult onTrain = new TestNetResult(0, List.of("test-on-train"), Map.of("l2", 0.5f));
    TestNetResult onTest =
        new TestNetResult(1, List.of("test-on-test"), Map.of("l2", Float.NaN, "ce", 2f));
    RoundMetrics m =
        RoundMetrics.builder()
            .round(2)
            .timestampMillis(1_700_000_000_123L)
            .validation(onTrain.outputs())
            .testNets(List.of(onTrain, onTest))
            .build();
    String json = m.toJson();
    assertTrue(
        json.endsWith(
            "\"validation\":{\"l2\":0.5},\"testNets\":[{\"net\":0,\"stages\":[\"test-on-train\"],"
                + "\"outputs\":{\"l2\":0.5}},{\"net\":1,\"stages\":[\"test-on-test\"],"
                + "\"outputs\":{\"ce\":2.0,\"l2\":null}}]}"),
        json);
    RoundMetrics back = RoundMetrics.fromJson(json);
    assertEquals(json, back.toJson());
    assertEquals(2, back.testNets().size());
    assertEquals(List.of("test-on-test"), back.testNets().get(1).stages());
    assertTrue(Float.isNaN(back.testNets().get(1).outputs().get("l2")));
    assertTrue(
        m.summary()
            .endsWith(
                "val Test net #0 (test-on-train) l2 0.5000 val Test net #1"
                    + " (test-on-test) ce 2.0000 l2 NaN"),
        m.summary());
    // one test net: the line is today's, without testNets
    assertTrue(
        sample(0.25).toJson().endsWith("\"validation\":{\"accuracy\":0.8125,\"loss\":0.5}}"));
  }

  @Test
  void aLossThatWasNotFiniteReadsAsNaN() {
    RoundMetrics back = RoundMetrics.fromJson(sample(Double.NaN).toJson());
    assertTrue(Double.isNaN(back.meanLoss()));
  }

  @Test
  void aLineWithoutALearningRateReadsItAsNaN() {
    RoundMetrics back =
        RoundMetrics.fromJson("{\"round\": 2, \"timestamp\": \"2026-11-26T00:00:00Z\"}");
    assertTrue(Double.isNaN(back.learningRate()));
  }

  @Test
  void otherTextIsRejectedWithTheLine() {
    for (String bad : new String[] {"", "{", "[1]", "{\"round\": 1}", "{\"round\": \"x\"}"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> RoundMetrics.fromJson(bad), bad);
      assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
    }
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RoundMetrics.fromJson("{\"round\": 3, \"timestamp\": \"yesterday\"}"));
    assertTrue(e.getMessage().startsWith("Round 3 has a bad timestamp"), e.getMessage());
  }
}
