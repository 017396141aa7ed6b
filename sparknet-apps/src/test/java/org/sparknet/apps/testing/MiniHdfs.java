package org.sparknet.apps.testing;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * A real HDFS in the test JVM: Hadoop's {@link MiniDFSCluster}, one NameNode and one DataNode on
 * 127.0.0.1 with permissions on, its storage under a directory the test owns. Commands and Spark
 * executors in other JVMs reach it by its {@code hdfs://127.0.0.1:PORT} URIs.
 */
public final class MiniHdfs implements AutoCloseable {
  private final MiniDFSCluster cluster;
  private final FileSystem fs;
  private final String root;

  private MiniHdfs(MiniDFSCluster cluster) throws IOException {
    this.cluster = cluster;
    this.fs = cluster.getFileSystem();
    this.root = "hdfs://127.0.0.1:" + cluster.getNameNodePort();
  }

  /** Starts the cluster with its storage under {@code dir} and waits until it serves. */
  public static MiniHdfs start(Path dir) throws IOException {
    Configuration conf = new Configuration();
    conf.setBoolean("dfs.permissions.enabled", true);
    conf.set("dfs.namenode.rpc-address", "127.0.0.1:0");
    MiniDFSCluster cluster =
        new MiniDFSCluster.Builder(conf, dir.toFile()).numDataNodes(1).format(true).build();
    try {
      cluster.waitActive();
      MiniHdfs hdfs = new MiniHdfs(cluster);
      // The world may traverse the root: tests close directories below it where they mean to.
      hdfs.fs.setPermission(hdfs.path("/"), new FsPermission((short) 0777));
      return hdfs;
    } catch (IOException | RuntimeException e) {
      cluster.shutdown(true);
      throw e;
    }
  }

  /** The file system as the test's own (super)user sees it. */
  public FileSystem fs() {
    return fs;
  }

  /** {@code hdfs://127.0.0.1:PORT} followed by {@code path} (absolute, e.g. "/data/x"). */
  public String uri(String path) {
    return root + path;
  }

  public org.apache.hadoop.fs.Path path(String path) {
    return new org.apache.hadoop.fs.Path(path);
  }

  /** Copies the local file or directory {@code local} to {@code dir} (which it becomes). */
  public void upload(Path local, String dir) throws IOException {
    fs.copyFromLocalFile(false, true, new org.apache.hadoop.fs.Path(local.toUri()), path(dir));
  }

  public byte[] bytes(String path) throws IOException {
    try (InputStream in = fs.open(path(path))) {
      return in.readAllBytes();
    }
  }

  public boolean exists(String path) throws IOException {
    return fs.exists(path(path));
  }

  /**
   * Bytes the DataNode has served to readers since it started, from its metrics as JMX publishes
   * them (DataNodeActivity's BytesRead).
   */
  public long bytesRead() throws JMException {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    String name = cluster.getDataNodes().get(0).getMetrics().name();
    ObjectName bean = new ObjectName("Hadoop:service=DataNode,name=" + name);
    return ((Number) server.getAttribute(bean, "BytesRead")).longValue();
  }

  /**
   * Bytes this JVM's HDFS clients have read, as Hadoop's file system statistics count them at once
   * (the DataNode's own metric, {@link #bytesRead()}, reaches JMX only every 10 seconds).
   */
  public static long clientBytesRead() {
    Long read =
        org.apache.hadoop.fs.FileSystem.getGlobalStorageStatistics()
            .get("hdfs")
            .getLong("bytesRead");
    return read == null ? 0 : read;
  }

  @Override
  public void close() {
    cluster.shutdown(true);
  }
}
