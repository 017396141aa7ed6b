package org.sparknet.api.storage;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serial;
import java.io.Serializable;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;

/**
 * The Hadoop settings a {@link StoragePath} opens its file system with, serializable so that a path
 * captured in a Spark task opens the same file system on the executor (hdfs: addresses, s3a:
 * credentials providers, ...). Hadoop's {@code Configuration} is only {@code Writable}.
 *
 * <p>A path is captured in the closure of a data source's RDD, and Spark serialises an RDD's whole
 * lineage into every job's tasks, cached partitions or not: each training round would write and
 * parse all of Hadoop's settings (about a thousand, some 160 KB) again, in every task. So the
 * settings are written once, at the first serialisation, and a deserialised copy parses them only
 * when a file is opened, which a round over cached data never does. On a running driver they are
 * not written into the task at all but broadcast, as Spark's own Hadoop RDDs broadcast their
 * configuration ({@link SettingsBroadcasts}): a task carries the broadcast's handle, and each
 * executor fetches the settings once. Without Spark (or on an executor that passes a copy on) a
 * copy carries the bytes, or the handle it came with. Either way a serialised copy carries the
 * settings as they were at the first serialisation; the driver's object keeps seeing later changes.
 */
public final class StorageSettings implements Serializable {
  @Serial private static final long serialVersionUID = 1L;

  private transient Configuration conf;

  /** The settings as written at the first serialisation (Hadoop's {@code Writable} form). */
  private transient byte[] written;

  /** The broadcast that a deserialised copy read its settings from; null when it came as bytes. */
  private transient Broadcast<byte[]> received;

  private StorageSettings(Configuration conf) {
    this.conf = conf;
  }

  /**
   * {@code conf} itself (not a copy): this object sees later changes to it, a serialised copy those
   * made before this object was first serialised.
   */
  public static StorageSettings of(Configuration conf) {
    return new StorageSettings(conf);
  }

  /**
   * The active Spark session's Hadoop settings; before Spark starts (the CLI checks its files
   * first), Hadoop's defaults plus the {@code spark.hadoop.*} system properties that spark-submit
   * sets, as Spark itself would apply them.
   */
  public static StorageSettings current() {
    scala.Option<SparkSession> s = session();
    if (s.isDefined()) {
      return new StorageSettings(s.get().sparkContext().hadoopConfiguration());
    }
    Configuration conf = new Configuration();
    for (Map.Entry<Object, Object> e : System.getProperties().entrySet()) {
      String key = String.valueOf(e.getKey());
      if (key.startsWith("spark.hadoop.")) {
        conf.set(key.substring("spark.hadoop.".length()), String.valueOf(e.getValue()));
      }
    }
    return new StorageSettings(conf);
  }

  /** The session paths are made for: the thread's active one, else the default one. */
  static scala.Option<SparkSession> session() {
    scala.Option<SparkSession> s = SparkSession.getActiveSession();
    return s.isDefined() ? s : SparkSession.getDefaultSession();
  }

  public synchronized Configuration conf() {
    if (conf == null) {
      Configuration c = new Configuration(false);
      try {
        c.readFields(new DataInputStream(new ByteArrayInputStream(written())));
      } catch (IOException e) {
        throw new IllegalStateException(
            "Hadoop settings that travelled with a path are corrupt", e);
      }
      conf = c;
    }
    return conf;
  }

  /** Whether this object holds its settings parsed (a deserialised copy: only once asked for). */
  synchronized boolean parsed() {
    return conf != null;
  }

  /** The id of the broadcast this copy came with instead of the settings; -1 when it had bytes. */
  synchronized long broadcastId() {
    return received == null ? -1 : received.id();
  }

  private synchronized byte[] written() throws IOException {
    if (written == null && conf == null) {
      try {
        written = received.value();
      } catch (RuntimeException e) {
        throw new IllegalStateException(
            "The Hadoop settings broadcast with a path ("
                + received
                + ") cannot be read: it belongs to a Spark application that has ended",
            e);
      }
    } else if (written == null) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        conf.write(out);
      }
      written = bytes.toByteArray();
    }
    return written;
  }

  /**
   * The broadcast to send instead of the settings: the one this copy came with, else, on a running
   * driver, that driver's broadcast of these settings; null to send the bytes.
   */
  private synchronized Broadcast<byte[]> forTasks() throws IOException {
    if (received != null) {
      return received;
    }
    SparkContext sc = SettingsBroadcasts.driverContext();
    return sc == null ? null : SettingsBroadcasts.share(sc, written());
  }

  @Serial
  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    Broadcast<byte[]> b = forTasks();
    out.writeBoolean(b != null);
    if (b != null) {
      out.writeObject(b);
    } else {
      byte[] w = written();
      out.writeInt(w.length);
      out.write(w);
    }
  }

  @Serial
  @SuppressWarnings("unchecked")
  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    if (in.readBoolean()) {
      received = (Broadcast<byte[]>) in.readObject();
    } else {
      byte[] b = new byte[in.readInt()];
      in.readFully(b);
      written = b;
    }
  }
}
