package org.sparknet.caffe.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.sparknet.caffe.internal.SolverNets.TestNetSource;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * How many test nets a solver defines and Caffe's CHECKs on them (Solver::InitTrainNet,
 * Solver::InitTestNets), as errors instead of aborts.
 *
 * <p>Mutation: counting test nets by test_state instead of test_iter failed three tests
 * (aGenericNetIsInstantiatedOncePerTestIter "expected: <2> but was: <0>",
 * withoutAGenericNetTestItersMustMatchTheTestNets "expected: <1> but was: <0>",
 * ownTestNetsComeFirstThenTheGenericNet with an IndexOutOfBoundsException).
 */
class SolverNetsTest {
  private static Message solver(String text) {
    return TextFormat.parse(text, "solver definition");
  }

  private static List<TestNetSource> nets(String text, boolean generic) {
    return SolverNets.testNets(solver(text), generic);
  }

  private static String rejected(String text, boolean generic) {
    return assertThrows(IllegalArgumentException.class, () -> nets(text, generic)).getMessage();
  }

  @Test
  void theAutoEncoderSolverHasTwoStagedTestNets() {
    List<TestNetSource> n =
        nets(
            "net: 'ae.prototxt' test_state: { stage: 'test-on-train' } test_iter: 500"
                + " test_state: { stage: 'test-on-test' } test_iter: 100",
            true);
    assertEquals(2, n.size());
    assertEquals(List.of(0, 1), n.stream().map(TestNetSource::index).toList());
    assertEquals(List.of(500, 100), n.stream().map(TestNetSource::testIter).toList());
    assertEquals(List.of("test-on-test"), n.get(1).testState().values("stage"));
    assertNull(n.get(0).net());
  }

  @Test
  void aGenericNetIsInstantiatedOncePerTestIter() {
    assertEquals(2, nets("test_iter: 5 test_iter: 7", true).size());
    assertEquals(0, nets("base_lr: 0.1", true).size());
  }

  @Test
  void ownTestNetsComeFirstThenTheGenericNet() {
    List<TestNetSource> n = nets("test_net_param { name: 'own' } test_iter: 3 test_iter: 4", true);
    assertEquals("own", n.get(0).net().value("name", null));
    assertEquals("solver definition, test_net_param #0", n.get(0).source());
    assertNull(n.get(1).net());
  }

  @Test
  void eachOwnTestNetNeedsATestIter() {
    String m =
        rejected("test_net_param { name: 'a' } test_net_param { name: 'b' } test_iter: 1", true);
    assertTrue(m.contains("2 test net(s) of their own (test_net_param)"), m);
    assertTrue(m.contains("but 1 test_iter value(s); test_iter must be given once for each"), m);
  }

  @Test
  void withoutAGenericNetTestItersMustMatchTheTestNets() {
    String m = rejected("train_net_param { name: 't' } test_iter: 10", false);
    assertTrue(m.contains("0 test net(s) of their own"), m);
    assertTrue(m.contains("there is no generic net"), m);
    assertEquals(1, nets("test_net_param { name: 'a' } test_iter: 1", false).size());
  }

  @Test
  void testStateIsLeftOutOrGivenOncePerTestNet() {
    String m = rejected("test_iter: 1 test_iter: 2 test_state { stage: 'a' }", true);
    assertEquals(
        "solver definition: 1 test_state value(s) for 2 test net(s) (one per test_iter);"
            + " test_state must be left out or given once per test net",
        m);
  }

  @Test
  void aTestNetFileNeedsItsText() {
    String m = rejected("test_net: 'test.prototxt' test_iter: 1", true);
    assertTrue(m.contains("names the test net file 'test.prototxt' but no net text"), m);
  }

  @Test
  void aNegativeTestIterIsNamed() {
    String m = rejected("test_iter: -1", true);
    assertTrue(m.contains("field 'test_iter': must be >= 0 but is -1"), m);
  }

  @Test
  void exactlyOneTrainNet() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> SolverNets.checkTrainNet(solver("net: 'a' train_net_param { name: 'b' }")));
    assertEquals(
        "solver definition: the train net is given by [train_net_param, net]; Caffe takes"
            + " exactly one of train_net_param, train_net, net_param and net",
        e.getMessage());
    SolverNets.checkTrainNet(solver("net: 'a'"));
  }

  @Test
  void theGenericNet() {
    assertTrue(SolverNets.hasGenericNet(solver("net: 'a'"), true));
    assertTrue(SolverNets.hasGenericNet(solver("base_lr: 1"), true)); // the net text alone
    assertFalse(SolverNets.hasGenericNet(solver("train_net: 'a'"), true));
    assertFalse(SolverNets.hasGenericNet(solver("train_net_param { name: 'a' }"), false));
  }
}
