package org.sparknet.api.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.testnet.SoftmaxNet;

/**
 * A task of a failed round can outlive its trainer (Spark does not interrupt the other tasks of an
 * aborted stage): once the trainer's nets are released, such a task gets no new net, so nothing is
 * built that nobody would close.
 */
class WorkerRegistryTest {
  private static final NetDefinition DEF =
      new NetDefinition(
          "java-softmax", "features=4\nclasses=2\nbatch=2\nlr=0.1", null, null, 1L, "cpu");

  @Test
  void aReleasedTrainerGetsNoNewNet() {
    int live = SoftmaxNet.live();
    String trainer = UUID.randomUUID().toString();
    WorkerRegistry.Acquired a =
        WorkerRegistry.acquire(trainer, WorkerRegistry.Role.TRAIN, 0, DEF, 1);
    assertNotNull(a.worker());
    assertTrue(a.builtNow());
    assertFalse(
        WorkerRegistry.acquire(trainer, WorkerRegistry.Role.TRAIN, 0, DEF, 1).builtNow(),
        "the second task finds the net the first one built");
    assertEquals(live + 1, SoftmaxNet.live());
    assertEquals(1, WorkerRegistry.release(trainer));
    assertEquals(live, SoftmaxNet.live(), "release closed the net");

    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> WorkerRegistry.acquire(trainer, WorkerRegistry.Role.TRAIN, 1, DEF, 1));
    assertTrue(e.getMessage().contains("was closed"), e.getMessage());
    assertEquals(live, SoftmaxNet.live(), "no net was built for the straggler");
    assertEquals(0, WorkerRegistry.count(trainer));

    // another trainer is not affected
    String other = UUID.randomUUID().toString();
    WorkerRegistry.acquire(other, WorkerRegistry.Role.TEST, 0, DEF, 1);
    assertEquals(1, WorkerRegistry.release(other));
    assertEquals(live, SoftmaxNet.live());
  }
}
