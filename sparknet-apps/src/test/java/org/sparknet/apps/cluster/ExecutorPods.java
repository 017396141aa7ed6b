package org.sparknet.apps.cluster;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.Map;
import org.apache.spark.SecurityManager;
import org.apache.spark.SparkConf;
import org.apache.spark.deploy.k8s.KubernetesConf;
import org.apache.spark.deploy.k8s.KubernetesExecutorConf;
import org.apache.spark.deploy.k8s.SparkPod;
import org.apache.spark.resource.ResourceProfile;
import org.apache.spark.resource.ResourceProfile$;
import org.apache.spark.scheduler.cluster.k8s.KubernetesExecutorBuilder;
import scala.Option;

/**
 * Executor pods as Spark's driver would create them on Kubernetes, built in-process by Spark's own
 * code: {@code KubernetesExecutorBuilder} and its feature steps, called as the driver's pod
 * allocator calls them, with the default resource profile Spark derives from the same conf. Nothing
 * is sent to an API server; the client only parses a pod template.
 */
public final class ExecutorPods {
  /** The master URL of the confs built here; no server answers it. */
  public static final String MASTER = "k8s://https://kube.example.com:443";

  private ExecutorPods() {}

  /**
   * A driver's conf for a SparkNet job on {@link #MASTER}: executors of 2 cores and 2 GiB of heap,
   * then {@code settings}.
   */
  public static SparkConf conf(Map<String, String> settings) {
    SparkConf conf =
        new SparkConf(false)
            .setMaster(MASTER)
            .setAppName("sparknet-train")
            .set("spark.executor.memory", "2g")
            .set("spark.executor.cores", "2")
            .set("spark.driver.host", "sparknet-driver-svc.default.svc")
            .set("spark.driver.port", "7078");
    settings.forEach(conf::set);
    return conf;
  }

  /** Executor 1's pod for {@code conf}. */
  public static SparkPod build(SparkConf conf) {
    KubernetesExecutorConf executor =
        KubernetesConf.createExecutorConf(
            conf,
            "1",
            "spark-a1b2c3",
            Option.empty(),
            ResourceProfile.DEFAULT_RESOURCE_PROFILE_ID());
    SecurityManager security =
        new SecurityManager(
            conf,
            SecurityManager.$lessinit$greater$default$2(),
            SecurityManager.$lessinit$greater$default$3());
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      return new KubernetesExecutorBuilder()
          .buildFromFeatures(executor, security, client, defaultProfile(conf))
          .pod();
    } finally {
      // Spark keeps one default profile per JVM; the next conf must get its own.
      ResourceProfile$.MODULE$.clearDefaultProfile();
    }
  }

  /** The default resource profile Spark derives from {@code conf} (what the executor asks for). */
  public static ResourceProfile defaultProfile(SparkConf conf) {
    return ResourceProfile$.MODULE$.reInitDefaultProfile(conf);
  }

  /** A request or limit of the container, as Kubernetes writes it ("4096Mi"), or null. */
  public static String limit(Container c, String resource) {
    return quantity(c.getResources().getLimits().get(resource));
  }

  /** A request of the container, as Kubernetes writes it, or null. */
  public static String request(Container c, String resource) {
    return quantity(c.getResources().getRequests().get(resource));
  }

  private static String quantity(Quantity q) {
    return q == null ? null : q.getAmount() + q.getFormat();
  }
}
