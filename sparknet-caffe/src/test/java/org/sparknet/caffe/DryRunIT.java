package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

  /**
   * A CPU definition whose dry run passed on the driver is built here without a child JVM; a GPU
   * one is not taken, since the device's memory decides there. A provider that took nothing (no
   * DryRun.accept) failed with "any seed: the same check ==> expected: <true> but was: <false>".
   */
  @Test
  void aCpuCheckFromTheDriverIsTakenAndAGpuOneIsNot() {
    CaffeNetProvider provider = new CaffeNetProvider();
    NetDefinition d =
        NetDefinition.caffe(TinyNets.SOLVER, TinyNets.net("dryrun-accepted", "ReLU"), null);
    assertFalse(provider.passedIsolatedCheck(d));
    provider.acceptIsolatedCheck(d.withDevice("gpu:0"));
    assertFalse(provider.passedIsolatedCheck(d.withDevice("gpu:0")), "a GPU's check taken");

    provider.acceptIsolatedCheck(d.withSeed(5));
    assertTrue(provider.passedIsolatedCheck(d), "any seed: the same check");
    int before = DryRun.children();
    CaffeNet.create(d.withSeed(8), true).close();
    assertEquals(before, DryRun.children(), "a child JVM for a definition the driver checked");

    NetDefinition other =
        NetDefinition.caffe(TinyNets.SOLVER, TinyNets.net("dryrun-not-accepted", "ReLU"), null);
    CaffeNet.create(other, true).close();
    assertEquals(before + 1, DryRun.children(), "the dry run of a definition nobody checked");
    assertTrue(provider.passedIsolatedCheck(other));
  }
}
