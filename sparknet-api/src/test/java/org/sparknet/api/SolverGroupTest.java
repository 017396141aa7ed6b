package org.sparknet.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.sparknet.api.testnet.SoftmaxNet;
import org.sparknet.ndarray.NDArray;

/**
 * SolverGroup over the pure-Java softmax engine, which lends no weight views: the heap path of the
 * per-step averaging. (CaffeTrainerIT checks the in-place path with CaffeNets.)
 */
class SolverGroupTest {
  private static final int FEATURES = 5;

  private static NetDefinition softmax(int batch) {
    return new NetDefinition(
        "java-softmax",
        "features=" + FEATURES + "\nclasses=3\nbatch=" + batch + "\nlr=0.2\nmomentum=0.9",
        null,
        null,
        7L,
        "cpu");
  }

  /** Example j: features sin(j + f), label j mod 3; each fill writes the next rows. */
  private static BatchFeeder counting(int[] next) {
    return in -> {
      NDArray data = in.get("data");
      NDArray label = in.get("label");
      int rows = data.shape().dim(0);
      for (int r = 0; r < rows; r++) {
        int j = next[0]++;
        for (int f = 0; f < FEATURES; f++) {
          data.set((float) Math.sin(j + f), r, f);
        }
        label.set(j % 3, r);
      }
    };
  }

  @Test
  void twoSolversOfBatch4EqualOneOfBatch8WithMomentum() {
    int live = SoftmaxNet.live();
    try (SolverGroup group = SolverGroup.build(softmax(4), 2);
        Net big = NetProvider.build(softmax(8))) {
      assertEquals(2, group.size());
      big.setWeights(group.getWeights());
      int[] g = {0};
      int[] b = {0};
      float groupLoss = group.train(6, counting(g));
      float bigLoss = big.train(6, counting(b));
      assertEquals(48, g[0], "6 group steps take 6 x 2 batches of 4");
      assertEquals(b[0], g[0]);
      assertEquals(6, group.iteration());
      assertEquals(bigLoss, groupLoss, 1e-5, "mean loss over members and steps");
      String diff = group.getWeights().differenceFrom(big.getWeights(), 1e-5, 1e-6);
      assertTrue(diff == null, diff);
    }
    assertEquals(live, SoftmaxNet.live(), "the group closes its members");
  }

  @Test
  void aFailingFeederFailsTheStepWithoutLeavingAMemberWaiting() {
    int live = SoftmaxNet.live();
    SolverGroup group = SolverGroup.build(softmax(4), 3);
    BatchFeeder failing =
        in -> {
          throw new IllegalArgumentException("bad row");
        };
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> group.train(1, failing));
    assertEquals("bad row", e.getMessage());
    int[] next = {0};
    assertTrue(Float.isFinite(group.train(2, counting(next))), "the group still trains");
    assertEquals(24, next[0]);
    group.close();
    group.close();
    assertEquals(live, SoftmaxNet.live());
    assertThrows(IllegalStateException.class, () -> group.train(1, counting(next)));
    assertFalse(group.toString().isEmpty());
  }
}
