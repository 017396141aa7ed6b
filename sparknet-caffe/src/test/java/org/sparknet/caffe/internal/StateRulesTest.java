package org.sparknet.caffe.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.sparknet.api.Phase;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * Caffe's layer filter (Net::FilterNet, Net::StateMeetsRule) in Java, each rule field on its own.
 *
 * <p>Mutation: an evaluator that ignored a rule's {@code stage} failed four of these tests
 * (everyStageOfTheRuleMustBeSet, includeKeepsWhenAnyRuleIsMet,
 * theAutoEncoderDataLayersSplitByStage: "expected: <false> but was: <true>";
 * excludeDropsWhenAnyRuleIsMet: "expected: <true> but was: <false>").
 */
class StateRulesTest {
  private static final NetState TRAIN = NetState.of(Phase.TRAIN);
  private static final NetState TEST = NetState.of(Phase.TEST);

  private static Message layer(String rules) {
    return TextFormat.parse("name: \"l\" type: \"ReLU\" " + rules, "test");
  }

  private static boolean kept(String rules, NetState state) {
    return StateRules.included(layer(rules), state, "layer 'l'");
  }

  private static NetState test(int level, String... stages) {
    return new NetState(Phase.TEST, level, List.of(stages));
  }

  @Test
  void aLayerWithoutRulesIsInEveryState() {
    assertTrue(kept("", TRAIN));
    assertTrue(kept("", test(3, "a")));
  }

  @Test
  void phaseMatchesWhenSet() {
    assertTrue(kept("include { phase: TRAIN }", TRAIN));
    assertFalse(kept("include { phase: TRAIN }", TEST));
    assertTrue(kept("include { phase: 1 }", TEST)); // Caffe's enum number
    assertTrue(kept("include { stage: 'a' }", new NetState(Phase.TRAIN, 0, List.of("a"))));
  }

  @Test
  void levelsBoundTheStateLevel() {
    assertFalse(kept("include { min_level: 1 }", test(0)));
    assertTrue(kept("include { min_level: 1 }", test(1)));
    assertTrue(kept("include { max_level: 1 }", test(1)));
    assertFalse(kept("include { max_level: 1 }", test(2)));
    assertTrue(kept("include { max_level: -1 }", test(-1)));
    assertFalse(kept("include { min_level: 0 max_level: 0 }", test(1)));
  }

  @Test
  void everyStageOfTheRuleMustBeSet() {
    assertFalse(kept("include { stage: 'a' stage: 'b' }", test(0, "a")));
    assertTrue(kept("include { stage: 'a' stage: 'b' }", test(0, "b", "a", "c")));
    assertFalse(kept("include { stage: 'a' }", TEST));
  }

  @Test
  void noNotStageMayBeSet() {
    assertTrue(kept("include { not_stage: 'deploy' }", test(0, "a")));
    assertFalse(kept("include { not_stage: 'deploy' }", test(0, "a", "deploy")));
  }

  @Test
  void includeKeepsWhenAnyRuleIsMet() {
    String rules = "include { phase: TRAIN } include { phase: TEST stage: 'x' }";
    assertTrue(kept(rules, TRAIN));
    assertTrue(kept(rules, test(0, "x")));
    assertFalse(kept(rules, TEST));
  }

  @Test
  void excludeDropsWhenAnyRuleIsMet() {
    String rules = "exclude { phase: TRAIN } exclude { stage: 'deploy' }";
    assertFalse(kept(rules, TRAIN));
    assertFalse(kept(rules, test(0, "deploy")));
    assertTrue(kept(rules, TEST));
  }

  @Test
  void theAutoEncoderDataLayersSplitByStage() {
    String onTrain = "include { phase: TEST stage: 'test-on-train' }";
    String onTest = "include { phase: TEST stage: 'test-on-test' }";
    NetState first = TEST.merge(TextFormat.parse("stage: 'test-on-train'", "s"), "test_state #0");
    assertTrue(kept(onTrain, first));
    assertFalse(kept(onTest, first));
    assertFalse(kept("include { phase: TRAIN }", first));
  }

  @Test
  void bothIncludeAndExcludeIsAnError() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> kept("include { phase: TRAIN } exclude { stage: 'a' }", TRAIN));
    assertEquals(
        "layer 'l' has both include and exclude rules; Caffe takes either include rules or"
            + " exclude rules, not both: keep one kind",
        e.getMessage());
  }

  @Test
  void aBadPhaseIsNamed() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> kept("include { phase: DEPLOY }", TEST));
    assertTrue(e.getMessage().contains("'DEPLOY' is not a phase"), e.getMessage());
  }

  @Test
  void mergeReplacesPhaseAndLevelAndAppendsStages() {
    NetState s =
        new NetState(Phase.TEST, 0, List.of("a"))
            .merge(TextFormat.parse("level: 2 stage: 'b' phase: TRAIN", "s"), "state");
    assertEquals(new NetState(Phase.TRAIN, 2, List.of("a", "b")), s);
    assertEquals(s, s.merge(null, "none"));
    assertEquals(s, NetState.of(Phase.TEST).merge(s.toMessage(), "printed").merge(null, "none"));
  }
}
