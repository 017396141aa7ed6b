package org.sparknet.apps.cli;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * What a driver started by {@code bin/sparknet --master yarn} (client mode, no spark-submit) must
 * tell Spark so that YARN's containers can run SparkNet: the apps jar (SparkNet, JavaCPP and the
 * Caffe natives) as {@code spark.jars}, which the executors fetch from the driver, and Spark's own
 * jars as {@code spark.yarn.jars}, uploaded once to the cluster's file system ({@link
 * ClusterJars}). A setting the user gave (a system property, as spark-submit's {@code --conf}
 * arrives) is left alone; under spark-submit both are already known.
 *
 * <p>The cluster is the one {@code HADOOP_CONF_DIR}/{@code YARN_CONF_DIR} describe: bin/sparknet
 * puts those directories on the class path, where Hadoop's configuration finds {@code
 * core-site.xml} and {@code yarn-site.xml}.
 */
final class YarnSettings {
  private static final Pattern CORE_JAR = Pattern.compile("spark-core_[\\d.]+-(.+)\\.jar");

  private YarnSettings() {}

  /** True for Spark's {@code yarn} master URL. */
  static boolean isYarn(String master) {
    return master != null && master.strip().equals("yarn");
  }

  /**
   * True in the driver of {@code spark-submit --master yarn --deploy-mode cluster}: YARN's
   * ApplicationMaster runs the main class in its own JVM and, before it starts it, sets every Spark
   * setting of the application as a system property, {@code spark.master} (yarn) and {@code
   * spark.submit.deployMode} (cluster) among them.
   */
  static boolean inClusterDriver() {
    return isYarn(System.getProperty("spark.master"))
        && "cluster".equals(System.getProperty("spark.submit.deployMode"));
  }

  /** Adds the jars' settings to {@code b} when {@code master} is yarn in client mode. */
  static void apply(SparkSession.Builder b, String master) {
    if (!isYarn(master) || "cluster".equals(System.getProperty("spark.submit.deployMode"))) {
      return;
    }
    if (System.getProperty("spark.jars") == null) {
      jarOf(SparkNetCli.class).ifPresent(j -> b.config("spark.jars", j.toString()));
    }
    if (System.getProperty("spark.yarn.jars") == null
        && System.getProperty("spark.yarn.archive") == null) {
      jarOf(SparkContext.class)
          .ifPresent(
              core ->
                  b.config(
                      "spark.yarn.jars",
                      ClusterJars.upload(core.getParent(), versionOf(core), new Configuration())));
    }
  }

  /** "4.2.0" of spark-core_2.13-4.2.0.jar: the upload's directory is per Spark version. */
  static String versionOf(Path sparkCoreJar) {
    Matcher m = CORE_JAR.matcher(sparkCoreJar.getFileName().toString());
    return m.matches() ? m.group(1) : "unknown";
  }

  /** The jar file {@code c} was loaded from, if it was loaded from a jar. */
  static Optional<Path> jarOf(Class<?> c) {
    CodeSource src = c.getProtectionDomain().getCodeSource();
    if (src == null || src.getLocation() == null) {
      return Optional.empty();
    }
    try {
      Path p = Path.of(src.getLocation().toURI());
      return Files.isRegularFile(p) && p.toString().endsWith(".jar")
          ? Optional.of(p)
          : Optional.empty();
    } catch (URISyntaxException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
