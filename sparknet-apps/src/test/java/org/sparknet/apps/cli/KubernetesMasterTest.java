package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.apps.cluster.ExecutorPods;
import org.sparknet.apps.cluster.KubernetesSettings;
import org.sparknet.apps.mnist.LeNet;
import picocli.CommandLine;

/**
 * {@code --master k8s://...} goes to Spark as it is: nothing in the CLI refuses it or takes it for
 * a local master, and the session the CLI creates for it carries what Kubernetes needs for GPU
 * executors ({@link KubernetesSettings#missing}), checked by building the executor pod from the
 * CLI's own settings with Spark's builder ({@link ExecutorPods}).
 *
 * <p>Broken builds this catches: with SparkSessions.settings leaving out the cluster settings, the
 * executor pod failed in Spark's builder with "Resource: gpu was requested, but vendor was not
 * specified."; with DeviceOptions taking every master for a local one, {@code --device gpu} on the
 * CPU jar was refused before Spark started ("--device gpu: no GPU can be used here: this SparkNet
 * build is CPU-only ...").
 */
class KubernetesMasterTest {
  private static final String MASTER = ExecutorPods.MASTER;

  @Test
  void aKubernetesMasterReachesSparkAsGiven() {
    SparkOptions options = new SparkOptions();
    new CommandLine(options).parseArgs("--master", MASTER, "--workers", "4");
    options.check();
    assertEquals(MASTER, options.master);
    assertEquals(0, TaskSlots.local(MASTER, 1), "a cluster's task slots come from its session");
    assertEquals(4, TaskSlots.resolve(4, MASTER, 1, "k8s"), "--workers needs no session");
  }

  @Test
  void gpuWorkersOnKubernetesAreLeftToTheExecutorsToCheck() {
    NetDefinition lenet = LeNet.definition(1, 0.01);
    DeviceOptions device = new DeviceOptions();
    device.device = "gpu";
    assertEquals("gpu", device.apply(lenet, MASTER).device());
    // The same on a local master is checked here, against this (CPU-only) build.
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> device.apply(lenet, "local[1]"));
    assertTrue(e.getMessage().contains("no GPU can be used here"), e.getMessage());
  }

  @Test
  void kubernetesMastersGetTheGpuVendorAndDiscoveryScript() {
    Map<String, String> user = Map.of("spark.executor.resource.gpu.amount", "2");
    Map<String, String> added = SparkSessions.clusterSettings(MASTER, user::get);
    assertEquals(
        Map.of(
            "spark.executor.resource.gpu.vendor", KubernetesSettings.GPU_VENDOR,
            "spark.executor.resource.gpu.discoveryScript", KubernetesSettings.DISCOVERY_SCRIPT),
        added);
    // spark-submit's master (a system property) counts as much as --master.
    Map<String, String> submitted = new HashMap<>(user);
    submitted.put("spark.master", MASTER);
    assertEquals(added, SparkSessions.clusterSettings(null, submitted::get));
    // The user's own vendor stays; other masters and CPU executors get nothing.
    Map<String, String> own = new HashMap<>(user);
    own.put("spark.executor.resource.gpu.vendor", "example.com");
    assertEquals(
        Map.of("spark.executor.resource.gpu.discoveryScript", KubernetesSettings.DISCOVERY_SCRIPT),
        SparkSessions.clusterSettings(MASTER, own::get));
    assertEquals(Map.of(), SparkSessions.clusterSettings("spark://host:7077", user::get));
    assertEquals(Map.of(), SparkSessions.clusterSettings("yarn", user::get));
    assertEquals(Map.of(), SparkSessions.clusterSettings(MASTER, k -> null));
  }

  @Test
  void theCliSettingsMakeAGpuExecutorPodThroughSparksBuilder() {
    // What the CLI's session gets on a Kubernetes master for a user who asked for 1 GPU and gave
    // the
    // image (spark-submit's --conf): the user's settings and what the CLI adds to them.
    Map<String, String> user =
        Map.of(
            "spark.executor.resource.gpu.amount", "1",
            "spark.kubernetes.container.image", "registry.example.com/sparknet:k8s-gpu");
    Map<String, String> session = new LinkedHashMap<>(user);
    session.putAll(SparkSessions.settings(MASTER, 1, user::get));
    SparkConf conf = ExecutorPods.conf(session);
    Container c = ExecutorPods.build(conf).container();
    assertEquals("1", ExecutorPods.limit(c, "nvidia.com/gpu"));
    String overhead = SparkSettings.recommended().get("spark.executor.memoryOverhead");
    assertEquals("512m", overhead, "the recommended overhead this test counts with");
    assertEquals("2560Mi", ExecutorPods.limit(c, "memory"), "2 GiB heap + 512 MiB overhead");
    assertEquals(
        KubernetesSettings.DISCOVERY_SCRIPT,
        ExecutorPods.defaultProfile(conf).executorResources().get("gpu").get().discoveryScript());
  }
}
