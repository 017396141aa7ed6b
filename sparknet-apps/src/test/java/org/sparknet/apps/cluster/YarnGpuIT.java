package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * GPUs as YARN resources without a GPU: {@link GpuSchedulingApp} under {@code spark-submit --master
 * yarn} on the shared {@link MiniYarn}, whose node offers two {@code yarn.io/gpu}, with the
 * settings of docs/cluster-yarn.md ("GPUs as YARN resources"): {@code
 * spark.executor.resource.gpu.amount=2}, which Spark asks YARN for as {@code yarn.io/gpu}, {@code
 * spark.task.resource.gpu.amount=1}, and the shipped discovery script given to the containers as a
 * YARN file ({@code spark.yarn.dist.files}, spark-submit's {@code --files}) and run there as {@code
 * ./getGpusResources.sh}, with an nvidia-smi that lists devices 0 and 1 (GpuDiscoveryScriptTest).
 *
 * <p>What is checked where it happens: the ResourceManager's scheduler allocated the executor's
 * container two {@code yarn.io/gpu} (and the ApplicationMaster's none); the executor found the
 * addresses through the script and Spark gave each task one of them, on which the engine built its
 * net ({@link DeviceRecorderProvider}).
 *
 * <p>Broken builds seen: the discovery script listing one device: the executor's containers were
 * each allocated two yarn.io/gpu and exited at start, "Resource: gpu, with addresses: 0 is less
 * than what the user requested: 2"; without {@code spark.yarn.dist.files}: "Resource script:
 * ./getGpusResources.sh to discover gpu doesn't exist!" in every executor container. Without the
 * DominantResourceCalculator in MiniYarn the ResourceManager did not start (MiniYarn says how). One
 * executor failure and one attempt end such a run at its first failed container.
 */
class YarnGpuIT {
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(4);
  private static final String TAG = "yarn-gpu";

  @Test
  void executorsAskYarnForGpusAndEachTaskBuildsItsNetOnTheGpuSparkAssignedIt() throws Exception {
    MiniYarn yarn = MiniYarn.shared();
    Path dir = Files.createDirectories(yarn.dir().resolve(TAG));
    Path script = GpuDiscoveryScriptTest.withDevices(dir, "0\n1\n").resolve("getGpusResources.sh");
    Path deviceLog = dir.resolve("devices.log");
    YarnSubmission submission =
        new YarnSubmission(
            TAG,
            GpuAppJars.appJar(dir.resolve("gpu-scheduling-app.jar")),
            GpuSchedulingApp.class.getName(),
            List.of(
                StandaloneCluster.shadedJar(),
                GpuAppJars.apiTestJar(dir.resolve("sparknet-api-testnet.jar"))));
    SparkSubmitProcess driver =
        submission.start(
            yarn,
            Map.of(
                "spark.executor.instances", "1",
                "spark.executor.cores", "2",
                "spark.executor.resource.gpu.amount", "2",
                "spark.executor.resource.gpu.discoveryScript", "./getGpusResources.sh",
                "spark.yarn.dist.files", script.toString(),
                "spark.task.resource.gpu.amount", "1",
                "spark.executor.maxNumFailures", "1",
                "spark.yarn.maxAppAttempts", "1"),
            List.of("gpu", "1", "3", deviceLog.toString()));
    Map<String, Long> gpus = new TreeMap<>();
    long deadline = System.nanoTime() + RUN_TIMEOUT.toNanos();
    while (driver.isAlive() && System.nanoTime() < deadline) {
      yarn.liveContainers(TAG).forEach((id, r) -> gpus.put(id, r.getResourceValue(MiniYarn.GPU)));
      Thread.sleep(100);
    }
    assertEquals(0, driver.await(Duration.ofSeconds(30)), driver.output());

    // The ApplicationMaster's container and the executor's, each once allocated.
    assertEquals(2, gpus.size(), "containers " + gpus);
    assertEquals(
        List.of(0L, 2L),
        gpus.values().stream().sorted().toList(),
        "yarn.io/gpu of the ApplicationMaster's and the executor's containers " + gpus);

    GpuSchedulingRun run = new GpuSchedulingRun(driver.output(), deviceLog);
    List<String[]> built = run.builtNets();
    assertFalse(built.isEmpty(), "no net was built on the executors: " + run.output());
    Set<String> addresses = new HashSet<>();
    for (String[] b : built) {
      assertEquals("gpu:" + b[1], b[2], "partition " + b[0] + " built on another device");
      addresses.add(b[1]);
    }
    assertEquals(Set.of("0", "1"), addresses, "the addresses the executor's script found");
    for (List<String> devices : run.roundDevices()) {
      assertEquals(Set.of("gpu:0", "gpu:1"), new HashSet<>(devices), "a round's devices");
    }
  }
}
