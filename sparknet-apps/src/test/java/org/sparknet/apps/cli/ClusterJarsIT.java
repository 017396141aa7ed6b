package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.apps.cluster.MiniYarn;
import org.sparknet.apps.testing.MiniHdfs;

/**
 * bin/sparknet's upload of Spark's jars for {@code --master yarn} ({@link ClusterJars}) against the
 * YARN tests' real HDFS: the first run copies them to ~/.sparknet/spark-VERSION/, a second finds
 * them and copies nothing, a jar that changed size is replaced, and the glob it returns is the one
 * spark.yarn.jars takes. Broken build: an upload that skipped nothing rewrote the jars on the
 * second run, "re-uploaded ==> expected: <1796223501967> but was: <1796223502813>" (modification
 * times).
 */
class ClusterJarsIT {
  @TempDir Path tmp;

  @Test
  void uploadsOnceAndReplacesAJarThatChanged() throws Exception {
    MiniHdfs hdfs = MiniYarn.shared().hdfs();
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", hdfs.uri("/"));
    Path local = Files.createDirectories(tmp.resolve("jars"));
    Files.write(local.resolve("a.jar"), new byte[] {1, 2, 3});
    Files.write(local.resolve("b.jar"), new byte[] {4, 5});
    Files.writeString(local.resolve("README"), "not a jar");
    String version = "test-" + System.nanoTime();

    String glob = ClusterJars.upload(local, version, conf);
    FileSystem fs = FileSystem.get(conf);
    String dir = fs.getHomeDirectory().toUri().getPath() + "/.sparknet/spark-" + version;
    assertEquals(hdfs.uri(dir) + "/*.jar", glob);
    FileStatus[] first = fs.globStatus(new org.apache.hadoop.fs.Path(glob));
    assertEquals(2, first.length, Arrays.toString(first));
    assertFalse(hdfs.exists(dir + "/README"));

    ClusterJars.upload(local, version, conf);
    FileStatus[] second = fs.globStatus(new org.apache.hadoop.fs.Path(glob));
    for (int i = 0; i < first.length; i++) {
      assertEquals(first[i].getModificationTime(), second[i].getModificationTime(), "re-uploaded");
    }

    Files.write(local.resolve("a.jar"), new byte[] {9, 9, 9, 9});
    ClusterJars.upload(local, version, conf);
    assertArrayEquals(new byte[] {9, 9, 9, 9}, hdfs.bytes(dir + "/a.jar"));
    assertEquals(2, fs.listStatus(new org.apache.hadoop.fs.Path(dir)).length, "no temporaries");
  }
}
