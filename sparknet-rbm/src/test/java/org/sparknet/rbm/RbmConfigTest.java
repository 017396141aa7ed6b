package org.sparknet.rbm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;

/** Definitions: the text round-trips; every bad one is an IllegalArgumentException naming it. */
class RbmConfigTest {
  static final String GOOD =
      "visible: 6\nhidden: 4\nbatch: 2\nbase_lr: 0.1\n# a comment\nk: 3  # Gibbs steps\n";

  @Test
  void parsesDefaultsAndRoundTripsThroughText() {
    RbmConfig c = RbmConfig.parse(GOOD);
    assertEquals(6, c.visible());
    assertEquals(4, c.hidden());
    assertEquals(3, c.k());
    assertEquals(2, c.testBatch());
    assertEquals(0f, c.momentum());
    assertEquals(0.01f, c.initStd());
    assertEquals(RbmConfig.HiddenUnits.BINARY, c.hiddenUnits());
    RbmConfig g =
        c.withHiddenUnits(RbmConfig.HiddenUnits.GAUSSIAN)
            .withSolver(0.001f, 0.9f, 2e-4f)
            .withSeed(-5);
    assertEquals(g, RbmConfig.parse(g.text()));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "missing hidden     | visible: 6\\nbatch: 2\\nbase_lr: 0.1         | 'hidden'",
        "zero visible       | visible: 0\\nhidden: 4\\nbatch: 2\\nbase_lr: 1 | 'visible'",
        "not a number       | visible: six\\nhidden: 4\\nbatch: 2\\nbase_lr: 1 | 'visible' is 'six'",
        "negative k         | k: -1\\nvisible: 6\\nhidden: 4\\nbatch: 2\\nbase_lr: 1 | 'k'",
        "zero base_lr       | visible: 6\\nhidden: 4\\nbatch: 2\\nbase_lr: 0 | 'base_lr'",
        "momentum of 1      | momentum: 1\\nvisible: 6\\nhidden: 4\\nbatch: 2\\nbase_lr: 1 | 'momentum'",
        "negative decay     | weight_decay: -1\\nvisible: 6\\nhidden: 4\\nbatch: 2\\nbase_lr: 1 | 'weight_decay'",
        "unknown units      | hidden_units: relu\\nvisible: 6\\nhidden: 4\\nbatch: 2\\nbase_lr: 1 | 'hidden_units'",
        "unknown field      | visible: 6\\nhiden: 4\\nbatch: 2\\nbase_lr: 1 | 'hiden'",
        "repeated field     | visible: 6\\nvisible: 7\\nhidden: 4\\nbatch: 2\\nbase_lr: 1 | 'visible' is given twice",
        "no colon           | visible 6\\nhidden: 4\\nbatch: 2\\nbase_lr: 1 | line 1",
        "bad test_batch     | test_batch: 0\\nvisible: 6\\nhidden: 4\\nbatch: 2\\nbase_lr: 1 | 'test_batch'",
        "bad seed           | seed: 1.5\\nvisible: 6\\nhidden: 4\\nbatch: 2\\nbase_lr: 1 | 'seed'",
      })
  void badDefinitionsNameTheField(String what, String text, String expected) {
    String t = text.replace("\\n", "\n");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> NetProvider.build(new NetDefinition("rbm", t, null, null, 0, "cpu")));
    assertTrue(e.getMessage().contains(expected), what + ": " + e.getMessage());
  }

  @Test
  void badDefinitionEnvelopes() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> NetProvider.build(new NetDefinition("rbm", GOOD, "layer {}", null, 0, "cpu")));
    assertTrue(e.getMessage().contains("no net text"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> NetProvider.build(new NetDefinition("rbm", GOOD, null, null, 0, "gpu:0")));
    assertTrue(e.getMessage().contains("gpu:0"), e.getMessage());
  }

  @Test
  void providerRewritesBatchAndLearningRate() {
    NetDefinition d = RbmConfig.parse(GOOD).definition(9);
    NetProvider p = NetProvider.forEngine("rbm");
    RbmConfig c = RbmConfig.parse(p.withBatchSize(d, 17).solverText());
    assertEquals(17, c.batch());
    assertEquals(17, c.testBatch());
    assertEquals(0.25f, RbmConfig.parse(p.withBaseLearningRate(d, 0.25).solverText()).baseLr());
    assertEquals(9, p.withBatchSize(d, 17).seed());
  }
}
