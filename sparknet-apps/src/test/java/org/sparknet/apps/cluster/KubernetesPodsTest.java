package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sparknet.apps.cluster.ExecutorPods.limit;
import static org.sparknet.apps.cluster.ExecutorPods.request;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Toleration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkException;
import org.apache.spark.deploy.k8s.SparkPod;
import org.apache.spark.resource.ExecutorResourceRequest;
import org.junit.jupiter.api.Test;

/**
 * The executor pods Spark would create for {@link KubernetesSettings}, built by Spark's own
 * Kubernetes code ({@link ExecutorPods}); no cluster runs here.
 *
 * <p>Broken builds this catches: KubernetesSettings without the GPU vendor failed twice in Spark's
 * builder with "Resource: gpu was requested, but vendor was not specified."; without the memory
 * overhead Spark's default (384 MiB on 2 GiB) gave "expected: <4096Mi> but was: <2432Mi>" (and
 * 3584Mi, 3072Mi in the other two cases); with the discovery script at
 * /opt/sparknet/bin/getGpusResources.sh "Dockerfile.gpu copies the discovery script to
 * /opt/sparknet/bin/getGpusResources.sh"; with the template file not given, the template test's
 * label was "expected: <sparknet> but was: <null>".
 */
class KubernetesPodsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final String IMAGE = "registry.example.com/sparknet:k8s-gpu";
  private static final String GPU = "nvidia.com/gpu";

  @Test
  void gpuExecutorsAskKubernetesForTheirGpusAndNativeMemory() throws IOException {
    SparkConf conf = ExecutorPods.conf(KubernetesSettings.executors(IMAGE, 2, 2048));
    Container c = ExecutorPods.build(conf).container();
    assertEquals(IMAGE, c.getImage());
    assertEquals("2", limit(c, GPU));
    // 2 GiB of heap and 2 GiB outside it: Kubernetes kills the container above 4 GiB.
    assertEquals("4096Mi", request(c, "memory"));
    assertEquals("4096Mi", limit(c, "memory"));
    assertEquals("2", request(c, "cpu"));
    assertEquals("executor", c.getArgs().get(c.getArgs().size() - 1), "Spark's entrypoint mode");
    assertEquals("2048m", env(c, "SPARK_EXECUTOR_MEMORY"), "the heap is the executor memory");

    // The executor runs the discovery script of its resource request; the GPU image has it there.
    ExecutorResourceRequest gpus =
        ExecutorPods.defaultProfile(conf).executorResources().get("gpu").get();
    assertEquals(KubernetesSettings.DISCOVERY_SCRIPT, gpus.discoveryScript());
    assertEquals("nvidia.com", gpus.vendor());
    String gpuImage = Files.readString(ROOT.resolve("docker/Dockerfile.gpu"));
    assertTrue(
        gpuImage.contains("COPY bin/getGpusResources.sh " + gpus.discoveryScript() + "\n"),
        "Dockerfile.gpu copies the discovery script to " + gpus.discoveryScript());
  }

  @Test
  void cpuExecutorsAskForNoGpuAndStillDeclareTheirNativeMemory() {
    Container c =
        ExecutorPods.build(ExecutorPods.conf(KubernetesSettings.executors(IMAGE, 0, 1536)))
            .container();
    assertEquals(null, limit(c, GPU), "no GPU limit: " + c.getResources().getLimits());
    assertEquals("3584Mi", limit(c, "memory"));
  }

  @Test
  void sparkRefusesGpusWithoutAVendorAndMissingSettingsSupplyIt() {
    SparkConf conf = ExecutorPods.conf(Map.of("spark.kubernetes.container.image", IMAGE));
    conf.set("spark.executor.resource.gpu.amount", "1");
    SparkException e = assertThrows(SparkException.class, () -> ExecutorPods.build(conf));
    assertTrue(e.getMessage().contains("vendor was not specified"), e.getMessage());

    KubernetesSettings.missing(k -> conf.contains(k) ? conf.get(k) : null).forEach(conf::set);
    assertEquals("1", limit(ExecutorPods.build(conf).container(), GPU));
    assertEquals(Map.of(), KubernetesSettings.missing(k -> conf.contains(k) ? conf.get(k) : null));
  }

  @Test
  void thePodTemplateSurvivesSparksBuilder() {
    SparkConf conf = ExecutorPods.conf(KubernetesSettings.executors(IMAGE, 1, 1024));
    conf.set(
        "spark.kubernetes.executor.podTemplateFile",
        ROOT.resolve("docker/executor-pod-template.yaml").toString());
    SparkPod sparkPod = ExecutorPods.build(conf);
    Pod pod = sparkPod.pod();
    assertEquals("sparknet", pod.getMetadata().getLabels().get("app.kubernetes.io/name"));
    assertEquals("executor", pod.getMetadata().getLabels().get("app.kubernetes.io/component"));
    assertEquals(1, pod.getSpec().getTolerations().size(), "tolerations");
    Toleration t = pod.getSpec().getTolerations().get(0);
    assertEquals(GPU, t.getKey());
    assertEquals("NoSchedule", t.getEffect());
    Container c = sparkPod.container();
    assertEquals("spark-kubernetes-executor", c.getName());
    assertFalse(c.getSecurityContext().getAllowPrivilegeEscalation(), "container settings kept");
    // Spark's own settings on top of the template.
    assertEquals(IMAGE, c.getImage());
    assertEquals("1", limit(c, GPU));
    assertEquals("3072Mi", limit(c, "memory"));
    assertTrue(
        pod.getMetadata().getLabels().containsKey("spark-exec-id"), "Spark's labels added too");
  }

  @Test
  void theK8sImageRunsSparksEntrypointOverTheGpuImage() throws IOException {
    String k8s = Files.readString(ROOT.resolve("docker/Dockerfile.k8s"));
    assertTrue(k8s.contains("ARG BASE=sparknet:gpu\nFROM ${BASE}\n"), "built on the GPU image");
    assertTrue(
        k8s.contains("cp /opt/spark/kubernetes/dockerfiles/spark/entrypoint.sh /opt/entrypoint.sh"),
        "Spark's own entrypoint, from the distribution the base image holds");
    assertTrue(k8s.contains("ENTRYPOINT [\"/opt/entrypoint.sh\"]"), "entrypoint");
    assertTrue(k8s.contains("install -y --no-install-recommends tini"), "the entrypoint runs tini");
    String jar = KubernetesSettings.APP_JAR.substring("local://".length());
    for (String base : new String[] {"Dockerfile.gpu", "Dockerfile.cpu"}) {
      String text = Files.readString(ROOT.resolve("docker").resolve(base));
      assertTrue(text.contains(" " + jar + "\n"), base + " copies the apps jar to " + jar);
    }
  }

  @Test
  void badSettingsAreRefusedBeforeSparkSeesThem() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> KubernetesSettings.executors(" ", 1, 512));
    assertTrue(e.getMessage().contains("docker/Dockerfile.k8s"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> KubernetesSettings.executors(IMAGE, -1, 0));
    assertThrows(IllegalArgumentException.class, () -> KubernetesSettings.executors(IMAGE, 1, -1));
  }

  private static String env(Container c, String name) {
    return c.getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .map(e -> e.getValue())
        .findFirst()
        .orElse(null);
  }
}
