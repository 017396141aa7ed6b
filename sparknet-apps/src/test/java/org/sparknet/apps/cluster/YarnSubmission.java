package org.sparknet.apps.cluster;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code spark-submit --master yarn} (client mode) of any main class onto the shared {@link
 * MiniYarn}, in a child JVM as a Spark distribution's bin/spark-submit starts it: SparkSubmit on
 * Spark's jars, HADOOP_CONF_DIR in its environment (Spark ships that directory's files to the
 * containers) and on its class path (where Hadoop finds the ResourceManager), with {@link
 * YarnTraining#sparkConf} under the settings given.
 *
 * @param tag the application's YARN tag, also the name of its log in the cluster's directory
 * @param appJar the jar of {@code mainClass}
 * @param mainClass the driver
 * @param jars more jars for the driver and the executors ({@code --jars})
 */
record YarnSubmission(String tag, Path appJar, String mainClass, List<Path> jars) {
  /** Starts the driver with {@code conf} added to the YARN settings and {@code args} for it. */
  SparkSubmitProcess start(MiniYarn yarn, Map<String, String> conf, List<String> args)
      throws IOException {
    Path target = StandaloneCluster.TARGET;
    List<String> flags = StandaloneCluster.clusterJvmFlags();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.addAll(flags);
    cmd.add("-Dlog4j2.configurationFile=" + target.resolve("launcher/log4j2.properties"));
    cmd.add("-cp");
    cmd.add(
        target.resolve("spark-jars") + File.separator + "*" + File.pathSeparator + yarn.confDir());
    cmd.add("org.apache.spark.deploy.SparkSubmit");
    cmd.add("--master");
    cmd.add("yarn");
    Map<String, String> all = YarnTraining.sparkConf(tag);
    all.put("spark.executor.extraJavaOptions", String.join(" ", flags));
    all.putAll(conf);
    all.forEach(
        (k, v) -> {
          cmd.add("--conf");
          cmd.add(k + "=" + v);
        });
    if (!jars.isEmpty()) {
      cmd.add("--jars");
      cmd.add(String.join(",", jars.stream().map(Path::toString).toList()));
    }
    cmd.add("--class");
    cmd.add(mainClass);
    cmd.add(appJar.toString());
    cmd.addAll(args);
    Path log = yarn.dir().resolve(tag + ".log");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    pb.environment().put("HADOOP_CONF_DIR", yarn.confDir().toString());
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return new SparkSubmitProcess(tag, pb.start(), log);
  }
}
