package org.sparknet.api.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.VersionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paths on the local file system through Hadoop's API (HdfsIT in sparknet-apps runs the same code
 * on HDFS): qualification, resolution, the write that never leaves a partial file under the final
 * name, messages naming the URI, and the settings surviving Java serialization as a Spark task's
 * closure carries them (a broken build that dropped them on reading gave null for the setting).
 */
class StoragePathTest {
  @TempDir Path tmp;

  @Test
  void plainPathsAreQualifiedAndResolvedOnTheirFileSystem() {
    StoragePath solver = StoragePath.of(tmp.resolve("caffe/solver.prototxt").toString());
    assertEquals("file:" + tmp.resolve("caffe/solver.prototxt"), solver.toString());
    assertEquals(StoragePath.of(tmp.resolve("caffe")), solver.parent());
    assertEquals(
        "file:" + tmp.resolve("caffe/examples/net.prototxt"),
        solver.parent().resolve("examples/net.prototxt").toString());
    assertEquals("file:/etc/net.prototxt", solver.parent().resolve("/etc/net.prototxt").toString());
    assertEquals(
        "hdfs://127.0.0.1:9/x", solver.parent().resolve("hdfs://127.0.0.1:9/x").toString());
    assertEquals(
        "file:" + tmp.resolve("caffe/mean.binaryproto"),
        solver.sibling("mean.binaryproto").toString());
    assertEquals("solver.prototxt", solver.name());
  }

  @Test
  void writeReplacesAtomicallyAndRefusesToOverwriteUnlessAsked() throws Exception {
    StoragePath f = StoragePath.of(tmp.resolve("out/model.bin"));
    f.write(new byte[] {1, 2, 3}, false);
    assertArrayEquals(new byte[] {1, 2, 3}, f.readAllBytes());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> f.write(new byte[] {4}, false));
    assertTrue(e.getMessage().contains(f + " already exists"), e.getMessage());
    f.write(new byte[] {4}, true);
    assertArrayEquals(new byte[] {4}, f.readAllBytes());
    try (var files = Files.list(tmp.resolve("out"))) {
      // Only the file: no temporary file left, and no hidden checksum file beside it (written
      // through Hadoop's checksummed local file system, ".model.bin.crc" was there too).
      assertEquals(
          List.of("model.bin"), files.map(p -> p.getFileName().toString()).sorted().toList());
    }
  }

  @Test
  void failuresNameTheUri() {
    StoragePath missing = StoragePath.of(tmp.resolve("none.idx"));
    assertFalse(missing.exists());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, missing::readAllBytes);
    assertEquals(missing + " does not exist", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> StoragePath.of("nosuchfs://x/y"));
    assertTrue(e.getMessage().startsWith("Cannot use nosuchfs://x/y: "), e.getMessage());
  }

  /**
   * Spark's Hadoop client jars name S3AFileSystem in core-default.xml but lack the class: the
   * message names the URI and the package to add. A broken build that let Hadoop's exception
   * through threw a RuntimeException (ClassNotFoundException: S3AFileSystem), which the CLI reports
   * as exit 1 without naming the URI.
   */
  @Test
  void s3aWithoutHadoopAwsSaysHowToAddIt() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> StoragePath.of("s3a://bucket/fashion/x"));
    assertTrue(e.getMessage().startsWith("Cannot use s3a://bucket/fashion/x: "), e.getMessage());
    assertTrue(
        e.getMessage()
            .contains(
                "spark-submit --packages org.apache.hadoop:hadoop-aws:" + VersionInfo.getVersion()),
        e.getMessage());
  }

  /** A broken build that listed one level only gave [e.txt]. */
  @Test
  void listsTheFilesAtEveryDepthSortedByUri() throws Exception {
    Files.createDirectories(tmp.resolve("a/b/empty"));
    Files.writeString(tmp.resolve("a/b/c.txt"), "c");
    Files.writeString(tmp.resolve("a/d.txt"), "d");
    Files.writeString(tmp.resolve("e.txt"), "e");
    StoragePath root = StoragePath.of(tmp);
    assertEquals(
        List.of(root.resolve("a/b/c.txt"), root.resolve("a/d.txt"), root.resolve("e.txt")),
        root.listFilesRecursively());
  }

  @Test
  void settingsTravelWithThePath() throws Exception {
    Configuration conf = new Configuration();
    conf.set("sparknet.test.setting", "kept");
    StoragePath p = StoragePath.of(tmp.resolve("a").toString(), StorageSettings.of(conf));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(p);
    }
    StoragePath back;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      back = (StoragePath) in.readObject();
    }
    assertEquals(p, back);
    assertEquals("kept", back.settings().conf().get("sparknet.test.setting"));
  }
}
