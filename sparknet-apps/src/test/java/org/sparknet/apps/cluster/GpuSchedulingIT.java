package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spark's GPU scheduling, end to end without a GPU: a standalone cluster on loopback whose worker
 * discovers GPU addresses 0 and 1 through the shipped discovery script (bin/getGpusResources.sh,
 * with an nvidia-smi that lists two devices), an app that asks for them ({@code
 * spark.executor.resource.gpu.amount}, {@code spark.task.resource.gpu.amount}), and an engine that
 * records each net it builds ({@link DeviceRecorderProvider}) instead of Caffe.
 *
 * <p>Broken builds this catches (each run once against a mutated TaskDevices): every task's net on
 * "gpu:0" whatever Spark assigned gave "partition 1 built on another device ==> expected: gpu:1 but
 * was: gpu:0" and, for the group, "the group's two solvers on the two GPUs ==> expected [gpu:1,
 * gpu:0] but was [gpu:0]"; a group whose members all took the task's first GPU gave the latter.
 */
class GpuSchedulingIT {
  private static StandaloneCluster cluster;
  private static Path appJar;
  private static Path apiTestJar;

  @BeforeAll
  static void startCluster() throws Exception {
    Path scripts = Files.createDirectories(StandaloneCluster.TARGET.resolve("gpu-scheduling"));
    // The shipped discovery script, run by the worker with an nvidia-smi that lists devices 0, 1.
    Path discovery =
        GpuDiscoveryScriptTest.withDevices(scripts, "0\n1\n").resolve("getGpusResources.sh");
    cluster =
        StandaloneCluster.start(
            1,
            new StandaloneCluster.WorkerSpec(
                2,
                "2g",
                Map.of(
                    "spark.worker.resource.gpu.amount",
                    "2",
                    "spark.worker.resource.gpu.discoveryScript",
                    discovery.toString())));
    appJar = GpuAppJars.appJar(scripts.resolve("gpu-scheduling-app.jar"));
    apiTestJar = GpuAppJars.apiTestJar(scripts.resolve("sparknet-api-testnet.jar"));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void eachTaskBuildsItsNetOnTheGpuSparkAssignedIt() throws Exception {
    GpuSchedulingRun run = submit("one-gpu-per-task", "gpu", 1, "1");
    List<String[]> built = run.builtNets();
    assertFalse(built.isEmpty(), "no net was built on the executors: " + run.output());
    for (String[] b : built) {
      assertEquals("gpu:" + b[1], b[2], "partition " + b[0] + " built on another device");
    }
    // Both partitions' tasks run at once on the one executor of 2 cores and 2 GPUs: distinct GPUs.
    for (List<String> devices : run.roundDevices()) {
      assertEquals(2, devices.size(), run.output());
      assertEquals(Set.of("gpu:0", "gpu:1"), new HashSet<>(devices), "a round's devices");
    }
  }

  @Test
  void aGroupOfTwoSolversTakesTwoGpus() throws Exception {
    GpuSchedulingRun run = submit("two-gpus-per-task", "auto", 2, "2");
    for (String[] b : run.builtNets()) {
      List<String> assigned = List.of(b[1].split(","));
      assertEquals(2, assigned.size(), "the task holds two GPUs");
      assertTrue(assigned.contains(b[2].substring(4)), "member on an assigned GPU: " + b[2]);
    }
    Set<String> members = new HashSet<>();
    run.builtNets().forEach(b -> members.add(b[2]));
    assertEquals(Set.of("gpu:0", "gpu:1"), members, "the group's two solvers on the two GPUs");
    for (List<String> devices : run.roundDevices()) {
      for (String d : devices) {
        assertEquals(Set.of("gpu:0", "gpu:1"), Set.of(d.split(",")), "a worker of two GPUs");
      }
    }
  }

  /**
   * Spark's own sharing: {@code spark.task.resource.gpu.amount=0.5} on an executor of one GPU puts
   * both tasks of a round on the same address at once, and each builds its net there. A broken
   * build that took the task's partition for its GPU instead of the address Spark assigned
   * (TaskDevices writing "gpu:" + partition) gave "partition 1 built on another device ==>
   * expected: <gpu:0> but was: <gpu:1>".
   */
  @Test
  void twoTasksSharingOneGpuBothRunOnIt() throws Exception {
    GpuSchedulingRun run = submit("half-a-gpu-per-task", "gpu", 1, "1", "0.5");
    List<String[]> built = run.builtNets();
    Set<String> partitions = new HashSet<>();
    for (String[] b : built) {
      assertEquals(1, b[1].split(",").length, "one address per task: " + b[1]);
      assertEquals("gpu:" + b[1], b[2], "partition " + b[0] + " built on another device");
      partitions.add(b[0]);
    }
    assertEquals(Set.of("0", "1"), partitions, run.output());
    for (List<String> devices : run.roundDevices()) {
      assertEquals(2, devices.size(), run.output());
      assertEquals(1, new HashSet<>(devices).size(), "both workers on the one GPU: " + devices);
    }
  }

  private static GpuSchedulingRun submit(String name, String device, int group, String gpusPerTask)
      throws Exception {
    return submit(name, device, group, "2", gpusPerTask);
  }

  private static GpuSchedulingRun submit(
      String name, String device, int group, String gpusPerExecutor, String gpusPerTask)
      throws Exception {
    Path deviceLog = cluster.dir().resolve(name + "-devices.log");
    SparkSubmitProcess s =
        cluster.submit(
            name,
            appJar,
            GpuSchedulingApp.class.getName(),
            List.of(StandaloneCluster.shadedJar(), apiTestJar),
            Map.of(
                "spark.executor.cores",
                "2",
                "spark.task.cpus",
                "1",
                "spark.executor.resource.gpu.amount",
                gpusPerExecutor,
                "spark.task.resource.gpu.amount",
                gpusPerTask),
            log4j(),
            List.of(device, Integer.toString(group), "3", deviceLog.toString()));
    int rc = s.await(Duration.ofMinutes(4));
    assertEquals(0, rc, s.output());
    return new GpuSchedulingRun(s.output(), deviceLog);
  }

  /** The build's launcher log4j2 settings (warnings only), for the driver. */
  private static Path log4j() {
    return StandaloneCluster.TARGET.resolve("launcher/log4j2.properties");
  }
}
