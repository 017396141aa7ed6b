package org.sparknet.apps.cluster;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerAppReport;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.sparknet.apps.testing.MiniHdfs;

/**
 * A real YARN and HDFS in the test JVM, started once and shared by every YARN test of the JVM
 * (starting them costs some 15 seconds): Hadoop's {@link MiniYARNCluster} (a ResourceManager and
 * one NodeManager that runs containers as child processes of this JVM) and a {@link MiniHdfs} as
 * its default file system. Drivers in other JVMs reach both through {@link #confDir()}, a
 * HADOOP_CONF_DIR with the cluster's core-site.xml and yarn-site.xml.
 *
 * <p>Set up as Spark's own YARN tests do (BaseYarnClusterSuite): the NodeManager's disk check at
 * 100 % (a busy CI disk would mark the node unhealthy), the capacity scheduler's one queue given by
 * hand (the shaded minicluster carries no capacity-scheduler.xml), and a wait until the
 * ResourceManager has published its port. Virtual memory checks are off (a JVM reserves far more
 * address space than it uses); physical memory checks are on, as on a production cluster, so that a
 * container that outgrows its size is killed here too.
 *
 * <p>The node offers {@link #NODE_GPUS} GPUs as the resource {@value #GPU} (docs/cluster-yarn.md,
 * "GPUs as YARN resources"), as a cluster with Hadoop's resource types does: {@code
 * yarn.resource-types} names it, the node's {@code yarn.nodemanager.resource-type.yarn.io/gpu}
 * counts them, and the capacity scheduler allocates them with the DominantResourceCalculator (with
 * its default calculator, which counts memory alone, the ResourceManager refuses to start: "RM uses
 * DefaultResourceCalculator which used only memory as resource-type but invalid resource-types
 * specified {yarn.io/gpu=...}"). Only the count is offered, without the NodeManager's GPU plugin
 * (no device to isolate): an app that asks for none gets none, and counts vcores as a real cluster
 * does.
 */
public final class MiniYarn {
  /** What the NodeManager offers: room for an ApplicationMaster and a few small executors. */
  public static final int NODE_MEMORY_MB = 6144;

  public static final int NODE_VCORES = 4;

  /** YARN's name of the GPU resource, which Spark asks for when executors need resource "gpu". */
  public static final String GPU = "yarn.io/gpu";

  public static final int NODE_GPUS = 2;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private static final Set<RMAppState> FINAL_STATES =
      EnumSet.of(RMAppState.FINISHED, RMAppState.FAILED, RMAppState.KILLED);

  private static MiniYarn shared;

  private final Path dir;
  private final MiniHdfs hdfs;
  private final MiniYARNCluster yarn;
  private final Path confDir;

  private MiniYarn(Path dir, MiniHdfs hdfs, MiniYARNCluster yarn, Path confDir) {
    this.dir = dir;
    this.hdfs = hdfs;
    this.yarn = yarn;
    this.confDir = confDir;
  }

  /** The JVM's cluster, started on first use and stopped when the JVM exits. */
  public static synchronized MiniYarn shared() throws Exception {
    if (shared == null) {
      shared = start();
      MiniYarn s = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(s::stop, "MiniYarn teardown"));
    }
    return shared;
  }

  private static MiniYarn start() throws Exception {
    String run = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS"));
    Path dir = StandaloneCluster.TARGET.resolve("yarn").resolve(run);
    Files.createDirectories(dir);
    MiniHdfs hdfs = MiniHdfs.start(dir.resolve("dfs"));
    try {
      YarnConfiguration conf = new YarnConfiguration();
      conf.set("fs.defaultFS", hdfs.uri("/"));
      conf.set(
          "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", "100.0");
      conf.set("yarn.scheduler.capacity.root.queues", "default");
      conf.setInt("yarn.scheduler.capacity.root.default.capacity", 100);
      conf.setFloat("yarn.scheduler.capacity.root.default.user-limit-factor", 1);
      conf.setInt("yarn.scheduler.capacity.root.default.maximum-capacity", 100);
      conf.set("yarn.scheduler.capacity.root.default.state", "RUNNING");
      conf.set("yarn.scheduler.capacity.root.default.acl_submit_applications", "*");
      conf.set("yarn.scheduler.capacity.root.default.acl_administer_queue", "*");
      conf.setInt("yarn.scheduler.capacity.node-locality-delay", -1);
      conf.set("yarn.resourcemanager.hostname", "127.0.0.1");
      conf.setInt("yarn.nodemanager.resource.memory-mb", NODE_MEMORY_MB);
      conf.setInt("yarn.nodemanager.resource.cpu-vcores", NODE_VCORES);
      conf.set("yarn.resource-types", GPU);
      conf.setInt("yarn.nodemanager.resource-type." + GPU, NODE_GPUS);
      conf.set(
          "yarn.scheduler.capacity.resource-calculator",
          "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator");
      // The resource types are the JVM's, read once from the class path's resource-types.xml;
      // the ResourceManager and NodeManager here learn them from this configuration instead.
      ResourceUtils.resetResourceTypes(conf);
      conf.setInt("yarn.scheduler.minimum-allocation-mb", 128);
      conf.setBoolean("yarn.nodemanager.vmem-check-enabled", false);
      conf.setBoolean("yarn.nodemanager.pmem-check-enabled", true);
      // Finished containers' directories stay for a test to read their logs.
      conf.setInt("yarn.nodemanager.delete.debug-delay-sec", 600);
      MiniYARNCluster yarn = new MiniYARNCluster("sparknet-yarn", 1, 1, 1);
      yarn.init(conf);
      yarn.start();
      Configuration live = yarn.getConfig();
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (live.get(YarnConfiguration.RM_ADDRESS).endsWith(":0")) {
        if (System.nanoTime() > deadline) {
          yarn.stop();
          throw new IllegalStateException("The ResourceManager published no port");
        }
        Thread.sleep(100);
      }
      // The HADOOP_CONF_DIR of the drivers this JVM starts (YarnTraining's bin/sparknet).
      Path confDir = Files.createDirectories(StandaloneCluster.TARGET.resolve("yarn/hadoop-conf"));
      try (OutputStream out = Files.newOutputStream(confDir.resolve("yarn-site.xml"))) {
        live.writeXml(out);
      }
      Configuration core = new Configuration(false);
      core.set("fs.defaultFS", hdfs.uri("/"));
      try (OutputStream out = Files.newOutputStream(confDir.resolve("core-site.xml"))) {
        core.writeXml(out);
      }
      return new MiniYarn(dir, hdfs, yarn, confDir);
    } catch (Exception | Error e) {
      hdfs.close();
      throw e;
    }
  }

  /** This cluster's directory under target/yarn (HDFS storage, the conf directory, logs). */
  public Path dir() {
    return dir;
  }

  public MiniHdfs hdfs() {
    return hdfs;
  }

  /** The cluster's configuration as it runs (the ResourceManager's addresses with their ports). */
  public Configuration liveConf() {
    return yarn.getConfig();
  }

  /** A HADOOP_CONF_DIR for clients in other JVMs. */
  public Path confDir() {
    return confDir;
  }

  /** The applications the ResourceManager knows, finished ones included. */
  public List<RMApp> applications() {
    return List.copyOf(yarn.getResourceManager().getRMContext().getRMApps().values());
  }

  /** The application tagged {@code tag} (spark.yarn.tags) that was submitted last. */
  public RMApp application(String tag) {
    return applications().stream()
        .filter(a -> a.getApplicationTags().contains(tag))
        .max((a, b) -> Long.compare(a.getSubmitTime(), b.getSubmitTime()))
        .orElseThrow(
            () ->
                new AssertionError(
                    "The ResourceManager knows no application tagged '"
                        + tag
                        + "': "
                        + applications().stream().map(RMApp::getApplicationTags).toList()));
  }

  /**
   * The application tagged {@code tag} once the ResourceManager has moved it to a final state (a
   * driver that exited leaves it FINISHING for a moment, while the RM records it).
   */
  public RMApp awaitFinalState(String tag, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      RMApp app = application(tag);
      if (FINAL_STATES.contains(app.getState()) || System.nanoTime() > deadline) {
        return app;
      }
      Thread.sleep(200);
    }
  }

  /**
   * The containers the ResourceManager's scheduler holds now for the application tagged {@code tag}
   * (its ApplicationMaster's among them), each with what it was allocated: container id to
   * resource. Empty before the application is submitted and once it ended.
   */
  public Map<String, Resource> liveContainers(String tag) {
    Map<String, Resource> out = new TreeMap<>();
    for (RMApp app : applications()) {
      RMAppAttempt attempt = app.getCurrentAppAttempt();
      if (!app.getApplicationTags().contains(tag) || attempt == null) {
        continue;
      }
      SchedulerAppReport report =
          yarn.getResourceManager()
              .getResourceScheduler()
              .getSchedulerAppInfo(attempt.getAppAttemptId());
      if (report != null) {
        for (RMContainer c : report.getLiveContainers()) {
          out.put(c.getContainerId().toString(), c.getAllocatedResource());
        }
      }
    }
    return out;
  }

  /** Executor JVMs (YarnCoarseGrainedExecutorBackend; not the shells that start them) now. */
  public static List<ProcessHandle> executors() {
    return ProcessHandle.current()
        .descendants()
        .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false))
        .filter(p -> ProcessTree.runs(p, "YarnCoarseGrainedExecutorBackend"))
        .toList();
  }

  private void stop() {
    try {
      yarn.stop();
    } finally {
      hdfs.close();
    }
  }
}
