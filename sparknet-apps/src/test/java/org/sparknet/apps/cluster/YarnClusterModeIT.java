package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.spark.launcher.InProcessLauncher;
import org.apache.spark.launcher.SparkAppHandle;
import org.junit.jupiter.api.Test;
import org.sparknet.apps.cli.SparkNetCli;

/**
 * The apps jar under {@code spark-submit --master yarn --deploy-mode cluster}, through Spark's
 * launcher ({@link InProcessLauncher}: SparkSubmit in this JVM, which YARN's cluster mode allows,
 * so that no Spark distribution's bin/spark-submit is needed): the driver runs in the
 * ApplicationMaster's container, reads the data from HDFS and writes the model there, and the
 * ResourceManager records SUCCEEDED. Broken builds: without the apps jar as the application
 * resource the ApplicationMaster failed with ClassNotFoundException for SparkNetCli, FAILED in the
 * ResourceManager. With SparkNetCli.main's System.exit back unconditionally the driver trained to
 * accuracy 0.783 and wrote the model, then the ApplicationMaster reported "Final app status:
 * FAILED, exitCode: 16, (reason: Shutdown hook called before final status was reported.)" and the
 * test failed with "Shutdown hook called before final status was reported. ==> expected: <FINISHED>
 * but was: <FAILED>". Before the test allowed one attempt, YARN's second attempt hid that: its
 * train stopped at once ("final.caffemodel already exists") and the diagnostics were its.
 */
class YarnClusterModeIT {
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(8);

  private static String emptyFile(java.nio.file.Path p) throws java.io.IOException {
    if (!Files.exists(p)) {
      Files.createFile(p);
    }
    return p.toString();
  }

  @Test
  void trainsWithTheDriverInTheApplicationMaster() throws Exception {
    YarnTraining training = YarnTraining.shared();
    MiniYarn yarn = training.yarn();
    String out = "/yarn/cluster-mode";
    InProcessLauncher l =
        new InProcessLauncher()
            .setMaster("yarn")
            .setDeployMode("cluster")
            .setAppResource(StandaloneCluster.shadedJar().toString())
            .setMainClass(SparkNetCli.class.getName())
            // Without it the launcher looks for SPARK_HOME/conf/spark-defaults.conf, and there
            // is no Spark distribution here; the containers' jars come from spark.yarn.jars.
            .setPropertiesFile(emptyFile(yarn.dir().resolve("spark-defaults.conf")));
    Configuration conf = yarn.liveConf();
    for (String key :
        new String[] {
          "fs.defaultFS",
          "yarn.resourcemanager.address",
          "yarn.resourcemanager.scheduler.address",
          "yarn.resourcemanager.hostname"
        }) {
      l.setConf("spark.hadoop." + key, conf.get(key));
    }
    YarnTraining.sparkConf("cluster-mode").forEach(l::setConf);
    l.setConf("spark.driver.memory", "768m");
    // One attempt: YARN reruns a failed ApplicationMaster (the cluster's default is 2 attempts),
    // and the rerun's train stops at the model the first one wrote ("already exists"), which
    // hides the first failure's cause and doubles the time to see it.
    l.setConf("spark.yarn.maxAppAttempts", "1");
    l.setConf("spark.yarn.appMasterEnv.GLOG_minloglevel", "2");
    l.setConf("spark.yarn.appMasterEnv.OPENBLAS_NUM_THREADS", "1");
    l.addAppArgs(training.trainArgs(out).toArray(new String[0]));

    CountDownLatch done = new CountDownLatch(1);
    SparkAppHandle h;
    // spark-submit refuses a yarn master unless HADOOP_CONF_DIR or YARN_CONF_DIR is in its
    // environment or Spark runs under test (the system property spark.testing). A JVM cannot set
    // its own environment, and HADOOP_CONF_DIR in failsafe's environment would reach every IT's
    // bin/sparknet, which puts that directory on its class path: target/yarn/hadoop-conf outlives
    // its cluster, and its core-site.xml would make a dead HDFS the default file system of every
    // later run. So spark.testing, for this submission only; the cluster's addresses come as the
    // spark.hadoop.* settings above. Spark copies the property into the application's settings,
    // so the ApplicationMaster and the executors see it too: there it adds Spark's internal
    // checks and drops the 300 MB the memory manager keeps in reserve, nothing this test checks.
    String testing = System.getProperty("spark.testing");
    System.setProperty("spark.testing", "true");
    try {
      h = start(l, done);
      assertTrue(done.await(RUN_TIMEOUT.toSeconds(), TimeUnit.SECONDS), "state " + h.getState());
    } finally {
      if (testing == null) {
        System.clearProperty("spark.testing");
      } else {
        System.setProperty("spark.testing", testing);
      }
    }
    RMApp app = yarn.awaitFinalState("cluster-mode", Duration.ofSeconds(60));
    assertEquals(SparkAppHandle.State.FINISHED, h.getState(), app.getDiagnostics().toString());
    assertEquals(RMAppState.FINISHED, app.getState(), app.getDiagnostics().toString());
    assertEquals(FinalApplicationStatus.SUCCEEDED, app.getFinalApplicationStatus());
    assertTrue(
        training.hdfs().bytes(out + "/final.caffemodel").length > 431_080 * 4, "LeNet's weights");
    String metrics =
        new String(training.hdfs().bytes(out + "/metrics.jsonl"), StandardCharsets.UTF_8);
    assertEquals(YarnTraining.ROUNDS, metrics.lines().count(), metrics);
  }

  /** Starts the application; {@code done} counts down when it reaches a final state. */
  private static SparkAppHandle start(InProcessLauncher l, CountDownLatch done)
      throws java.io.IOException {
    return l.startApplication(
        new SparkAppHandle.Listener() {
          @Override
          public void stateChanged(SparkAppHandle handle) {
            if (handle.getState().isFinal()) {
              done.countDown();
            }
          }

          @Override
          public void infoChanged(SparkAppHandle handle) {}
        });
  }
}
