package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.storage.StoragePath;

/**
 * The solver file's fields, the flags that win over them, and the lines that say which is which.
 */
class SolverSettingsTest {
  private static final String LENET =
      "net: \"lenet_train_test.prototxt\"\ntest_iter: 100\ntest_interval: 500\nbase_lr: 0.01\n"
          + "momentum: 0.9\nlr_policy: \"inv\"\ndisplay: 100\nmax_iter: 10000\nsnapshot: 5000\n"
          + "snapshot_prefix: \"examples/mnist/lenet\"\n";
  private static final SolverSettings.Flags NONE =
      new SolverSettings.Flags(null, null, null, null, null, null);

  @Test
  void theFileGivesTheValues() {
    SolverSettings s =
        SolverSettings.of(LENET, "lenet_solver.prototxt", NONE, StoragePath.of("out"));
    assertEquals(new SolverSettings.Setting(10000, "solver file"), s.maxIter());
    assertEquals(500, s.testInterval().value());
    assertEquals(100, s.testIter().value());
    assertEquals(100, s.display().value());
    assertEquals(5000, s.snapshot().value());
    assertEquals(
        StoragePath.of("out/examples/mnist/lenet_iter_5000.caffemodel"),
        s.snapshotFile(5000, ".caffemodel"));
    assertEquals("0.01 (solver file)", s.baseLr().toString());
    NetDefinition def = NetDefinition.caffe(LENET, "", List.of(1, 28, 28));
    assertEquals(def, s.apply(def), "no --lr: the solver text unchanged");
  }

  @Test
  void flagsWin() {
    SolverSettings s =
        SolverSettings.of(
            LENET,
            "lenet_solver.prototxt",
            new SolverSettings.Flags(40L, 0L, 10L, 20L, "/abs/snap", 0.05),
            StoragePath.of("out"));
    assertEquals(new SolverSettings.Setting(40, "--max-iter"), s.maxIter());
    assertEquals(new SolverSettings.Setting(0, "--test-interval"), s.testInterval());
    assertEquals(10, s.display().value());
    assertEquals(20, s.snapshot().value());
    assertEquals(
        StoragePath.of("/abs/snap_iter_20.solverstate"), s.snapshotFile(20, ".solverstate"));
    String solver = s.apply(NetDefinition.caffe(LENET, "", List.of(1, 28, 28))).solverText();
    // A build that leaves base_lr alone keeps "base_lr: 0.01".
    assertTrue(solver.contains("base_lr: 0.05\n"), solver);
    assertFalse(solver.contains("0.01"), solver);
    String lines = String.join("\n", s.describe());
    assertTrue(lines.contains("max_iter 40 (--max-iter)"), lines);
    assertTrue(lines.contains("lr 0.05 (--lr)"), lines);
    assertTrue(lines.contains("test_iter 100 (solver file)"), lines);
  }

  @Test
  void absentFieldsAndTheDefaultPrefix() {
    SolverSettings s =
        SolverSettings.of(
            "net: \"n.prototxt\"\n", "my_solver.prototxt", NONE, StoragePath.of("out"));
    assertEquals(new SolverSettings.Setting(0, "default"), s.maxIter());
    assertEquals(
        StoragePath.of("out/my_solver_iter_7.caffemodel"), s.snapshotFile(7, ".caffemodel"));
    String solver =
        s.apply(NetDefinition.caffe("net: \"n.prototxt\"\n", "", List.of(1))).solverText();
    assertFalse(solver.contains("base_lr"), "no --lr, no base_lr added");
  }

  @Test
  void dueAfterTheRoundThatReachesAMultiple() {
    SolverSettings.Setting every20 = new SolverSettings.Setting(20, "solver file");
    assertFalse(SolverSettings.due(every20, 0, 10));
    assertTrue(SolverSettings.due(every20, 10, 20));
    assertTrue(SolverSettings.due(every20, 15, 30), "tau 15 passes 20 in the second round");
    assertFalse(SolverSettings.due(every20, 20, 30));
    assertFalse(SolverSettings.due(new SolverSettings.Setting(0, "default"), 0, 100));
  }

  @Test
  void negativeValuesAreRefused() {
    String f = "s.prototxt";
    StoragePath o = StoragePath.of("out");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                SolverSettings.of(
                    LENET, f, new SolverSettings.Flags(-1L, null, null, null, null, null), o));
    assertTrue(e.getMessage().contains("--max-iter"), e.getMessage());
  }
}
