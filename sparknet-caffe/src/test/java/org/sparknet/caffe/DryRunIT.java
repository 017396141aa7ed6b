package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;

/** The dry run runs once per definition (seed ignored) and its cost is measured. */
class DryRunIT {
  @Test
  void dryRunIsCachedPerDefinitionAndItsCostIsMeasured() {
    NetDefinition d =
        NetDefinition.caffe(TinyNets.SOLVER, TinyNets.net("dryrun-cost", "ReLU"), null);
    long t0 = System.nanoTime();
    CaffeNet.create(d, false).close();
    long plain = System.nanoTime() - t0;
    int before = DryRun.cachedVerdicts();
    t0 = System.nanoTime();
    CaffeNet.create(d, true).close();
    long first = System.nanoTime() - t0;
    assertEquals(before + 1, DryRun.cachedVerdicts());
    t0 = System.nanoTime();
    CaffeNet.create(d.withSeed(99), true).close();
    long cached = System.nanoTime() - t0;
    assertEquals(before + 1, DryRun.cachedVerdicts(), "same definition, another seed: cached");
    System.out.printf(
        "build without dry run %.1f ms; first build with dry run %.1f ms; cached %.1f ms%n",
        plain / 1e6, first / 1e6, cached / 1e6);
    assertTrue(cached < first, "the cached verdict costs less than a child JVM");
  }
}
