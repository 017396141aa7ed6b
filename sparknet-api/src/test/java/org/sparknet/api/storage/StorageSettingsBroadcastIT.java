package org.sparknet.api.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.testing.spark.LocalSpark;
import scala.reflect.ClassTag$;

/**
 * On a running driver a path's Hadoop settings travel to tasks as a broadcast's handle: a data
 * source's RDD is in the lineage of every stage of every training round, and Spark writes the whole
 * lineage into each stage's task binary, which each executor fetches from the driver. With the
 * settings written into it, that lineage was 165,350 bytes (BENCHMARKS section 22), 97 % of it
 * Hadoop's settings.
 */
class StorageSettingsBroadcastIT {
  private static final String KEY = "sparknet.test.broadcast-setting";

  @TempDir Path dir;

  private StoragePath file(String name, String text) throws IOException {
    Path f = dir.resolve(name);
    Files.writeString(f, text);
    return StoragePath.of(f);
  }

  /**
   * Broken build seen: with the settings written into the copy (no broadcast), "a serialised path
   * took 111574 bytes".
   */
  @Test
  void aPathOnARunningDriverCarriesAHandleNotTheSettings() throws Exception {
    LocalSpark.session();
    StoragePath path = file("a.txt", "a");
    int written = StorageSettingsTest.serialise(path).length;
    assertTrue(written < 4096, "a serialised path took " + written + " bytes");
    StoragePath copy = StorageSettingsTest.copy(path);
    assertNotEquals(-1, copy.settings().broadcastId());
    assertFalse(copy.settings().parsed());
    assertEquals(path.toUri(), copy.toUri());
    assertEquals(
        path.settings().conf().get("fs.defaultFS"), copy.settings().conf().get("fs.defaultFS"));
  }

  /**
   * Paths made one by one each have their own settings object, and a data set has many. Broken
   * build seen: a broadcast per object gave "expected: <0> but was: <1>".
   */
  @Test
  void pathsWithTheSameSettingsShareOneBroadcast() throws Exception {
    LocalSpark.session();
    long a = StorageSettingsTest.copy(file("a.txt", "a")).settings().broadcastId();
    long b = StorageSettingsTest.copy(file("b.txt", "b")).settings().broadcastId();
    assertEquals(a, b);
  }

  /**
   * Tasks open the path with the driver's settings of when the path was first sent, and the data
   * RDD's lineage is small. Broken builds seen: without the broadcast, "the RDD's lineage took
   * 114820 bytes"; a copy that passed on bytes instead of its handle when a task serialised it,
   * "contents from the driver false".
   */
  @Test
  void tasksOpenThePathWithTheDriversSettingsThroughTheBroadcast() throws Exception {
    JavaSparkContext sc = LocalSpark.context();
    sc.hadoopConfiguration().set(KEY, "from the driver");
    try {
      StoragePath path = file("c.txt", "contents");
      JavaRDD<String> read =
          sc.parallelize(List.of(0, 1), 2)
              .map(
                  i -> {
                    try (InputStream in = path.open()) {
                      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                          + " "
                          + path.settings().conf().get(KEY)
                          + " "
                          + (StorageSettingsTest.copy(path).settings().broadcastId()
                              == path.settings().broadcastId());
                    }
                  });
      long lineage =
          SparkEnv.get()
              .closureSerializer()
              .newInstance()
              .serialize(read.rdd(), ClassTag$.MODULE$.apply(Object.class))
              .limit();
      assertTrue(lineage < 16384, "the RDD's lineage took " + lineage + " bytes");
      assertEquals(
          List.of("contents from the driver true", "contents from the driver true"),
          read.collect());
    } finally {
      sc.hadoopConfiguration().unset(KEY);
    }
  }
}
