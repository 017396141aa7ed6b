package org.sparknet.api.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * A path's Hadoop settings travel in every task of every training round (the data source's RDD is
 * in each round's lineage), so they must cost nothing there: written once, parsed only when a file
 * is opened. Written and parsed in every task, they were a large part of each round's fixed cost
 * (BENCHMARKS.md, the reading of sections 1, 2, 6 and 7).
 */
class StorageSettingsTest {

  /** {@code o} written by Java serialisation, as Spark writes a task's closure. */
  static byte[] serialise(Object o) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    return bytes.toByteArray();
  }

  /** A copy of {@code o} through Java serialisation, as a task receives it. */
  @SuppressWarnings("unchecked")
  static <T> T copy(T o) throws Exception {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(serialise(o)))) {
      return (T) in.readObject();
    }
  }

  @Test
  void aCopyParsesItsSettingsOnlyWhenAskedFor() throws Exception {
    Configuration conf = new Configuration();
    conf.set("sparknet.test.setting", "kept");
    StorageSettings copy = copy(StorageSettings.of(conf));
    // Parsing in readObject, as a task's deserialisation of the round's lineage would, gave true.
    assertFalse(copy.parsed());
    assertEquals("kept", copy.conf().get("sparknet.test.setting"));
    assertTrue(copy.parsed());
  }

  @Test
  void theSettingsAreWrittenOnceAndCopiesCarryThemAsTheyWereThen() throws Exception {
    Configuration conf = new Configuration();
    conf.set("sparknet.test.setting", "first");
    StorageSettings settings = StorageSettings.of(conf);
    byte[] once = serialise(settings);
    conf.set("sparknet.test.setting", "second");
    // Writing all of Hadoop's settings at every serialisation gave "second" here.
    assertArrayEquals(once, serialise(settings));
    assertEquals("first", copy(settings).conf().get("sparknet.test.setting"));
    assertEquals("second", settings.conf().get("sparknet.test.setting"));
  }

  @Test
  void aCopyOfACopyCarriesTheSameSettings() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", "hdfs://namenode.example:8020");
    StorageSettings copy = copy(StorageSettings.of(conf));
    StorageSettings again = copy(copy);
    assertFalse(copy.parsed());
    assertEquals("hdfs://namenode.example:8020", again.conf().get("fs.defaultFS"));
  }
}
