package org.sparknet.api.internal.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.InputBlobs;
import org.sparknet.api.internal.wire.RoundOrders;
import org.sparknet.api.internal.wire.RoundSteps;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.api.internal.wire.WorkerLineages;
import org.sparknet.api.internal.wire.WorkerReport;

/**
 * Whether a worker's solver carries on, when speculative copies leave a partition's net on two
 * executors: here two {@link Worker}s of one partition stand for the nets on executors A and B, and
 * the test plays the driver, which takes one result a round and names its lineage in the next
 * round's orders.
 */
class WorkerLineageTest {
  private static final NetDefinition DEF =
      new NetDefinition(
          "java-softmax", "features=4\nclasses=2\nbatch=2\nlr=0.1", null, null, 1L, "cpu");
  private static final int TAU = 3;

  private final List<Net> nets = new ArrayList<>();
  private final WorkerPlan plan = plan();
  private final DataShard shard = shard();

  @AfterEach
  void close() {
    nets.forEach(Net::close);
  }

  private Worker worker() {
    Net net = NetProvider.build(DEF);
    nets.add(net);
    return new Worker(net, List.of("cpu"), DEF.engine());
  }

  private static WorkerPlan plan() {
    try (Net net = NetProvider.build(DEF)) {
      return WorkerPlan.builder()
          .trainerId("lineage-test")
          .definition(DEF)
          .layout(WeightLayout.of(net.getWeights()))
          .tau(TAU)
          .seed(5)
          .blobs(InputBlobs.DEFAULT)
          .build();
    }
  }

  private static DataShard shard() {
    Random r = new Random(9);
    List<Example> examples = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      float[] x = {r.nextFloat(), r.nextFloat(), r.nextFloat(), r.nextFloat()};
      examples.add(new Example(x, x[0] > 0.5f ? 1 : 0));
    }
    return DataShard.pack(0, examples.iterator());
  }

  private WorkerReport train(Worker w, int round, WorkerLineages previous) {
    RoundOrders orders =
        new RoundOrders(
            round, null, new long[] {0}, 0, null, null, new RoundSteps(TAU, 0, 0), null, previous);
    float[] centre = new float[plan.layout().size()];
    return w.train(plan, orders, 0, shard, round == 1, centre).report();
  }

  private static WorkerLineages taken(int round, WorkerReport r) {
    return new WorkerLineages(round, new long[] {r.lineage()});
  }

  /**
   * Round 1 runs on both (original and copy: equal histories, equal tokens), the original alone
   * runs round 2, both run round 3 (the copy on a net that missed round 2) and the original's
   * result is taken; in round 4 the copy's executor wins. Its net completed round 3, but not the
   * history the driver took, so its solver is reported restarted. Judged by the last round alone
   * (the build before lineages) the broken build gave "a net whose round the driver did not take
   * continues ==> expected: <true> but was: <false>", with no warning in the trainer's log.
   */
  @Test
  void aNetWhoseResultTheDriverDidNotTakeDoesNotContinue() {
    Worker a = worker();
    Worker b = worker();
    WorkerReport a1 = train(a, 1, null);
    WorkerReport b1 = train(b, 1, null);
    assertEquals(a1.lineage(), b1.lineage(), "two new nets after the same round 1 are alike");
    assertFalse(a1.solverRestarted() || b1.solverRestarted());

    WorkerReport a2 = train(a, 2, taken(1, b1));
    assertFalse(a2.solverRestarted(), "the copy's round-1 result stands for the original's");

    WorkerReport a3 = train(a, 3, taken(2, a2));
    WorkerReport b3 = train(b, 3, taken(2, a2));
    assertFalse(a3.solverRestarted());
    assertTrue(b3.solverRestarted(), "a net that missed round 2 restarts");
    assertNotEquals(a3.lineage(), b3.lineage());

    WorkerReport b4 = train(b, 4, taken(3, a3));
    assertTrue(b4.solverRestarted(), "a net whose round the driver did not take continues");
    WorkerReport a4 = train(a, 4, taken(3, a3));
    assertFalse(a4.solverRestarted(), "the net whose round-3 result was taken continues");
  }

  /** Without a lineage to compare with (asynchronous rounds, a resume), the last round decides. */
  @Test
  void withoutLineagesTheLastRoundDecides() {
    Worker a = worker();
    train(a, 1, null);
    assertFalse(train(a, 2, WorkerLineages.none(1)).solverRestarted());
    assertTrue(train(a, 4, WorkerLineages.none(3)).solverRestarted(), "round 3 was missed");
  }
}
