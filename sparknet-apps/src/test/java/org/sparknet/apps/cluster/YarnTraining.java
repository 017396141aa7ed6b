package org.sparknet.apps.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.MiniHdfs;

/**
 * {@code train} runs on the shared {@link MiniYarn}: 3,000/1,000 Fashion-MNIST images as IDX files
 * and Caffe's unchanged LeNet solver uploaded once to its HDFS, and {@code bin/sparknet train
 * --master yarn} started in a child process as a user starts it (HADOOP_CONF_DIR set, Spark
 * settings as system properties in SPARKNET_JAVA_OPTS). The YARN ITs share it so that each states
 * only its scenario.
 */
final class YarnTraining {
  static final int WORKERS = 2;
  static final int TAU = 40;
  static final int ROUNDS = 3;

  private static YarnTraining shared;

  private final MiniYarn yarn;
  private final Path bin;

  private YarnTraining(MiniYarn yarn) {
    this.yarn = yarn;
    this.bin = StandaloneCluster.TARGET.getParent().getParent().resolve("bin/sparknet");
  }

  /** The JVM's cluster with the data and solver on its HDFS. */
  static synchronized YarnTraining shared() throws Exception {
    if (shared == null) {
      MiniYarn yarn = MiniYarn.shared();
      Path staging = yarn.dir().resolve("staging");
      CliFixtures.fashionMnistSubset(staging.resolve("data"), 3000, 1000);
      Path caffe = CliFixtures.caffeLeNet(staging.resolve("caffe")).getParent();
      yarn.hdfs().upload(staging.resolve("data"), "/data");
      yarn.hdfs().upload(caffe, "/caffe");
      shared = new YarnTraining(yarn);
    }
    return shared;
  }

  MiniYarn yarn() {
    return yarn;
  }

  MiniHdfs hdfs() {
    return yarn.hdfs();
  }

  /**
   * The {@code train} options of LeNet on the HDFS data with {@link #WORKERS} workers, writing to
   * {@code out} on HDFS.
   */
  List<String> trainArgs(String out) {
    return trainArgs(out, WORKERS, TAU);
  }

  /** The {@code train} options with {@code workers} workers of {@code tau} steps a round. */
  List<String> trainArgs(String out, int workers, int tau) {
    MiniHdfs hdfs = hdfs();
    return List.of(
        "train",
        "--solver",
        hdfs.uri("/caffe/lenet_solver.prototxt"),
        "--train",
        hdfs.uri("/data/train-images-idx3-ubyte"),
        "--test",
        hdfs.uri("/data/t10k-images-idx3-ubyte"),
        "--workers",
        Integer.toString(workers),
        "--tau",
        Integer.toString(tau),
        "--rounds",
        Integer.toString(ROUNDS),
        "--output",
        hdfs.uri(out));
  }

  /**
   * The Spark settings of every run: {@link #WORKERS} executors of one core and 512m, tagged {@code
   * tag} in YARN (so that a test finds its application).
   */
  static Map<String, String> sparkConf(String tag) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("spark.yarn.tags", tag);
    all.put("spark.executor.instances", Integer.toString(WORKERS));
    all.put("spark.executor.cores", "1");
    all.put("spark.executor.memory", "512m");
    all.put("spark.yarn.am.memory", "256m");
    // Spark adds the module flags Java 17 needs to its containers itself.
    String shortLived = String.join(" ", StandaloneCluster.SHORT_LIVED_JVM);
    all.put("spark.executor.extraJavaOptions", shortLived);
    all.put("spark.yarn.am.extraJavaOptions", shortLived);
    // Spark's jars as a cluster with Spark installed on every node has them (local: is a path on
    // each node), here the build's copy: bin/sparknet's default, an upload of 320 MB to HDFS
    // (ClusterJars, tested by ClusterJarsIT), took two minutes of a loaded 2-core machine.
    all.put("spark.yarn.jars", "local:" + StandaloneCluster.TARGET.resolve("spark-jars") + "/*");
    // Nothing reads Spark's UI here, and its start raced once on a loaded machine (a
    // ConcurrentModificationException in Jetty's ServletHandler failed the SparkContext).
    all.put("spark.ui.enabled", "false");
    // The containers' java: the NodeManager passes on no JAVA_HOME of its own here.
    String javaHome = System.getProperty("java.home");
    all.put("spark.executorEnv.JAVA_HOME", javaHome);
    all.put("spark.yarn.appMasterEnv.JAVA_HOME", javaHome);
    return all;
  }

  /**
   * Starts {@code bin/sparknet train --master yarn} with {@link #trainArgs} and {@link #sparkConf}
   * ({@code conf} adds to or overrides them, {@code more} adds options) in a child process, its
   * output in the cluster's directory as TAG.log.
   */
  SparkSubmitProcess train(String tag, String out, Map<String, String> conf, List<String> more)
      throws IOException {
    List<String> args = new ArrayList<>(trainArgs(out));
    args.addAll(more);
    return train(tag, args, conf);
  }

  /**
   * Starts {@code bin/sparknet} with {@code args} (a {@code train} command) on this YARN, with
   * {@link #sparkConf} and {@code conf} (a null value unsets one of sparkConf's settings).
   */
  SparkSubmitProcess train(String tag, List<String> args, Map<String, String> conf)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(bin.toString());
    cmd.addAll(args);
    cmd.add(2, "yarn");
    cmd.add(2, "--master");
    Map<String, String> all = sparkConf(tag);
    all.putAll(conf);
    all.values().removeIf(Objects::isNull);
    StringBuilder opts = new StringBuilder("-Xmx1g");
    all.forEach((k, v) -> opts.append(" -D").append(k).append('=').append(v));
    Path log = yarn.dir().resolve(tag + ".log");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    pb.environment().put("HADOOP_CONF_DIR", yarn.confDir().toString());
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().put("SPARKNET_JAVA_OPTS", opts.toString());
    return new SparkSubmitProcess(tag, pb.start(), log);
  }
}
