package org.sparknet.apps.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;

/**
 * Spark's own jars on the cluster's file system, uploaded once: left to itself, Spark's YARN client
 * copies every jar under SPARK_HOME (some 250 MB) into each application's staging directory. Here
 * they go to {@code ~/.sparknet/spark-VERSION/} of the default file system (HDFS on a Hadoop
 * cluster) the first time, and later runs find them there (same names and sizes) and only point
 * {@code spark.yarn.jars} at them; YARN's NodeManagers then cache them between applications too.
 */
final class ClusterJars {
  private ClusterJars() {}

  /**
   * Copies the jars of {@code localDir} that are missing (or differ in size) to {@code
   * ~/.sparknet/spark-VERSION/} of the default file system of {@code conf}; returns the glob for
   * {@code spark.yarn.jars}. Each jar is written under a temporary name and renamed, so a client
   * killed mid-upload leaves no truncated jar for the next one to trust.
   */
  static String upload(Path localDir, String sparkVersion, Configuration conf) {
    try {
      FileSystem fs = FileSystem.get(conf);
      org.apache.hadoop.fs.Path dir =
          fs.makeQualified(
              new org.apache.hadoop.fs.Path(
                  fs.getHomeDirectory(), ".sparknet/spark-" + sparkVersion));
      fs.mkdirs(dir);
      for (Path jar : jars(localDir)) {
        org.apache.hadoop.fs.Path dst =
            new org.apache.hadoop.fs.Path(dir, jar.getFileName().toString());
        if (sameSize(fs, dst, Files.size(jar))) {
          continue;
        }
        org.apache.hadoop.fs.Path tmp = new org.apache.hadoop.fs.Path(dir, "." + UUID.randomUUID());
        fs.copyFromLocalFile(false, true, new org.apache.hadoop.fs.Path(jar.toUri()), tmp);
        fs.delete(dst, false);
        if (!fs.rename(tmp, dst)) {
          fs.delete(tmp, false);
          throw new IOException("could not rename " + tmp + " to " + dst);
        }
      }
      return dir + "/*.jar";
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Uploading Spark's jars from "
              + localDir
              + " to the cluster's file system failed; set spark.yarn.jars or"
              + " spark.yarn.archive to jars already there (docs/cluster-yarn.md)",
          e);
    }
  }

  private static boolean sameSize(FileSystem fs, org.apache.hadoop.fs.Path p, long size)
      throws IOException {
    if (!fs.exists(p)) {
      return false;
    }
    FileStatus s = fs.getFileStatus(p);
    return s.isFile() && s.getLen() == size;
  }

  private static List<Path> jars(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().toList();
    }
  }
}
