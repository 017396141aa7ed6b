package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.sparknet.api.internal.averaging.AveragingStrategy;

/** The one reading of an averaging mode's name and parameters, and its one mapping to a rule. */
class AveragingTest {

  /**
   * Every name gives the value its factory gives, with alpha and the staleness bound where the mode
   * takes them. With {@code Mode.with} mapping easgd-async to Downpour this failed: "expected:
   * <easgd-async(alpha=0.25, staleness=4)> but was: <downpour(staleness=4)>".
   */
  @Test
  void eachNameParsesToItsValue() {
    assertEquals(
        List.of("plain", "easgd", "allreduce", "downpour", "easgd-async"), Averaging.Mode.labels());
    assertEquals(Averaging.PLAIN, Averaging.parse("plain", null, null, "--"));
    assertEquals(Averaging.elastic(0.25), Averaging.parse("easgd", 0.25, null, "--"));
    assertEquals(Averaging.ALL_REDUCE, Averaging.parse("allreduce", null, null, "--"));
    assertEquals(Averaging.downpour(), Averaging.parse("downpour", null, null, "--"));
    assertEquals(Averaging.downpour(4), Averaging.parse("downpour", null, 4, "--"));
    assertEquals(Averaging.asyncElastic(0.25, 4), Averaging.parse("easgd-async", 0.25, 4, "--"));
    for (Averaging.Mode m : Averaging.Mode.values()) {
      Averaging a = m.with(0.25, 4);
      assertEquals(m, a.mode());
      assertEquals(m, Averaging.Mode.parse(m.label(), "averaging"));
      assertEquals(m.takesAlpha(), a.isElastic(), m.label());
      assertEquals(m.takesStaleness(), a.isAsync(), m.label());
      assertEquals(m.takesStaleness() ? 4 : -1, a.staleness(), m.label());
    }
  }

  /** The messages name the options with the caller's prefix (the CLI's are "--averaging", ...). */
  @Test
  void wrongParametersAreRefusedNamingTheOption() {
    assertEquals(
        "--averaging must be plain, easgd, allreduce, downpour or easgd-async but was 'mean'",
        assertThrows(
                IllegalArgumentException.class, () -> Averaging.parse("mean", null, null, "--"))
            .getMessage());
    assertEquals(
        "--alpha applies only to --averaging easgd or easgd-async",
        assertThrows(
                IllegalArgumentException.class, () -> Averaging.parse("plain", 0.5, null, "--"))
            .getMessage());
    assertEquals(
        "--averaging easgd needs --alpha A (0 <= A <= 1)",
        assertThrows(
                IllegalArgumentException.class, () -> Averaging.parse("easgd", null, null, "--"))
            .getMessage());
    assertEquals(
        "--staleness applies only to --averaging downpour or easgd-async",
        assertThrows(IllegalArgumentException.class, () -> Averaging.parse("easgd", 0.5, 3, "--"))
            .getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> Averaging.parse("easgd-async", 1.5, null, "--"));
    assertThrows(IllegalArgumentException.class, () -> Averaging.parse("downpour", null, -1, ""));
  }

  /**
   * The rule of each mode: the elastic ones keep the workers' weights and pull them by alpha, the
   * others average. With the mapping giving the plain rule to easgd-async this failed: "easgd-async
   * ==> expected: <true> but was: <false>".
   */
  @Test
  void eachModeMapsToItsRule() {
    TrainerConfig.Builder b =
        TrainerConfig.builder().setNetDefinition(TrainerConfigTest.DEF).optTau(5);
    for (Averaging.Mode m : Averaging.Mode.values()) {
      AveragingStrategy rule = WorkerPlans.averaging(b.optAveraging(m.with(0.25, 4)).build());
      assertEquals(m.takesAlpha(), rule.workersKeepWeights(), m.label());
    }
    assertFalse(Averaging.PLAIN.isAllReduce());
    assertTrue(Averaging.ALL_REDUCE.isAllReduce());
  }
}
