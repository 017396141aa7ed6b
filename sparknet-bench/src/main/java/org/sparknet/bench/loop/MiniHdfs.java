package org.sparknet.bench.loop;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.apps.data.IdxFile;

/**
 * An HDFS in this JVM for the storage section: Hadoop's {@link MiniDFSCluster} (a NameNode and one
 * DataNode on 127.0.0.1, replication 1, blocks under {@code dir}), and Fashion-MNIST's training set
 * written to it as plain IDX files replicated {@code copies} times, so that a data set of any size
 * is made of real images. Executors in other JVMs reach it through {@link #uri}. {@link #close}
 * shuts it down and deletes its blocks.
 */
final class MiniHdfs implements AutoCloseable {
  /** IDX magic numbers: unsigned bytes, rank 3 (images) and rank 1 (labels). */
  private static final int IMAGES_MAGIC = 0x0803;

  private static final int LABELS_MAGIC = 0x0801;

  private final MiniDFSCluster cluster;
  private final FileSystem fs;
  private final String root;

  /** One replicated training set on HDFS: its two files and sizes. */
  record Replica(String images, String labels, int count, long imageBytes) {}

  private MiniHdfs(MiniDFSCluster cluster) throws IOException {
    this.cluster = cluster;
    this.fs = cluster.getFileSystem();
    this.root = "hdfs://127.0.0.1:" + cluster.getNameNodePort();
  }

  static MiniHdfs start(Path dir) throws IOException {
    Configuration conf = new Configuration();
    conf.set("dfs.namenode.rpc-address", "127.0.0.1:0");
    conf.setInt("dfs.replication", 1);
    MiniDFSCluster c =
        new MiniDFSCluster.Builder(conf, dir.toFile()).numDataNodes(1).format(true).build();
    try {
      c.waitActive();
      return new MiniHdfs(c);
    } catch (IOException | RuntimeException e) {
      c.shutdown(true);
      throw e;
    }
  }

  /** {@code path} (absolute, on this HDFS) as a full URI. */
  String uri(String path) {
    return root + path;
  }

  FileSystem fileSystem() {
    return fs;
  }

  /**
   * Writes Fashion-MNIST's 60,000 training images and labels from {@code data} (null: the default
   * place) {@code copies} times over into {@code dir} as plain IDX files named as MNIST names them.
   */
  Replica writeTrainingSet(Path data, String dir, int copies) throws IOException {
    StoragePath local = FashionMnist.locate(data).dir();
    IdxFile images = IdxFile.open(gzOrPlain(local, "train-images-idx3-ubyte"));
    IdxFile labels = IdxFile.open(gzOrPlain(local, "train-labels-idx1-ubyte"));
    byte[] pixels = images.readRecords(0, images.count());
    byte[] labelBytes = labels.readRecords(0, labels.count());
    int count = images.count() * copies;
    String imagesPath = dir + "/train-images-idx3-ubyte";
    String labelsPath = dir + "/train-labels-idx1-ubyte";
    int[] dims = images.recordDims();
    try (DataOutputStream out =
        new DataOutputStream(fs.create(new org.apache.hadoop.fs.Path(imagesPath), true))) {
      out.writeInt(IMAGES_MAGIC);
      out.writeInt(count);
      for (int d : dims) {
        out.writeInt(d);
      }
      for (int c = 0; c < copies; c++) {
        out.write(pixels);
      }
    }
    try (DataOutputStream out =
        new DataOutputStream(fs.create(new org.apache.hadoop.fs.Path(labelsPath), true))) {
      out.writeInt(LABELS_MAGIC);
      out.writeInt(count);
      for (int c = 0; c < copies; c++) {
        out.write(labelBytes);
      }
    }
    return new Replica(uri(imagesPath), uri(labelsPath), count, (long) pixels.length * copies);
  }

  private static StoragePath gzOrPlain(StoragePath dir, String name) {
    StoragePath gz = dir.resolve(name + ".gz");
    return gz.exists() ? gz : dir.resolve(name);
  }

  @Override
  public void close() {
    cluster.shutdown(true);
  }
}
