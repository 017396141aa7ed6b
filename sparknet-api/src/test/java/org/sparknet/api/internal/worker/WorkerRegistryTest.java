package org.sparknet.api.internal.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.device.GpuSharing;
import org.sparknet.api.testnet.SoftmaxNet;

/** The lifetime of the workers an executor holds. */
class WorkerRegistryTest {
  private static final NetDefinition DEF =
      new NetDefinition(
          "java-softmax", "features=4\nclasses=2\nbatch=2\nlr=0.1", null, null, 1L, "cpu");

  /**
   * A task of a failed round can outlive its trainer (Spark does not interrupt the other tasks of
   * an aborted stage): once the trainer's nets are released, such a task gets no new net, so
   * nothing is built that nobody would close.
   */
  @Test
  void aReleasedTrainerGetsNoNewNet() {
    int live = SoftmaxNet.live();
    String trainer = UUID.randomUUID().toString();
    WorkerRegistry.Acquired a =
        WorkerRegistry.acquire(
            trainer, WorkerRegistry.Role.TRAIN, 0, DEF, 1, GpuSharing.DEFAULT, 1);
    assertNotNull(a.worker());
    assertTrue(a.builtNow());
    assertFalse(
        WorkerRegistry.acquire(trainer, WorkerRegistry.Role.TRAIN, 0, DEF, 1, GpuSharing.DEFAULT, 1)
            .builtNow(),
        "the second task finds the net the first one built");
    assertEquals(live + 1, SoftmaxNet.live());
    assertEquals(1, WorkerRegistry.release(trainer));
    assertEquals(live, SoftmaxNet.live(), "release closed the net");

    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                WorkerRegistry.acquire(
                    trainer, WorkerRegistry.Role.TRAIN, 1, DEF, 1, GpuSharing.DEFAULT, 2));
    assertTrue(e.getMessage().contains("was closed"), e.getMessage());
    assertEquals(live, SoftmaxNet.live(), "no net was built for the straggler");
    assertEquals(0, WorkerRegistry.count(trainer));

    // another trainer is not affected
    String other = UUID.randomUUID().toString();
    WorkerRegistry.acquire(other, WorkerRegistry.Role.TEST, 0, DEF, 1, GpuSharing.DEFAULT, 0);
    assertEquals(1, WorkerRegistry.release(other));
    assertEquals(live, SoftmaxNet.live());
  }

  /**
   * After an executor loss a partition can move to another executor for good. The net it left
   * behind here is closed once a training task of another partition runs here two rounds later, and
   * a task of that partition coming back builds a new one. Without the clean-up (closeStale not
   * called) the stale net stayed: 3 live nets where 2 are expected after round 3.
   */
  @Test
  void aNetWhosePartitionTrainsElsewhereIsClosed() {
    int live = SoftmaxNet.live();
    String trainer = UUID.randomUUID().toString();
    try {
      WorkerRegistry.acquire(trainer, WorkerRegistry.Role.TRAIN, 0, DEF, 1, GpuSharing.DEFAULT, 1);
      WorkerRegistry.acquire(trainer, WorkerRegistry.Role.TRAIN, 1, DEF, 1, GpuSharing.DEFAULT, 1);
      WorkerRegistry.acquire(trainer, WorkerRegistry.Role.TEST, 1, DEF, 1, GpuSharing.DEFAULT, 0);
      // round 2: partition 1 trains on another executor; its net here is one round behind
      WorkerRegistry.acquire(trainer, WorkerRegistry.Role.TRAIN, 0, DEF, 1, GpuSharing.DEFAULT, 2);
      assertEquals(live + 3, SoftmaxNet.live(), "a net one round behind is kept");
      // round 3: two rounds behind, closed; the test net is not a training worker and stays
      WorkerRegistry.acquire(trainer, WorkerRegistry.Role.TRAIN, 0, DEF, 1, GpuSharing.DEFAULT, 3);
      assertEquals(live + 2, SoftmaxNet.live(), "partition 1's stale training net was closed");
      assertEquals(2, WorkerRegistry.count(trainer));
      assertTrue(
          WorkerRegistry.acquire(
                  trainer, WorkerRegistry.Role.TRAIN, 1, DEF, 1, GpuSharing.DEFAULT, 4)
              .builtNow(),
          "partition 1 back here gets a new net");
      assertFalse(
          WorkerRegistry.acquire(
                  trainer, WorkerRegistry.Role.TRAIN, 0, DEF, 1, GpuSharing.DEFAULT, 4)
              .builtNow(),
          "partition 0's net, claimed every round, is kept");
    } finally {
      WorkerRegistry.release(trainer);
    }
    assertEquals(live, SoftmaxNet.live());
  }
}
