package org.sparknet.api.storage;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serial;
import java.io.Serializable;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;

/**
 * The Hadoop settings a {@link StoragePath} opens its file system with, serializable so that a path
 * captured in a Spark task opens the same file system on the executor (hdfs: addresses, s3a:
 * credentials providers, ...). Hadoop's {@code Configuration} is only {@code Writable}.
 */
public final class StorageSettings implements Serializable {
  @Serial private static final long serialVersionUID = 1L;

  private transient Configuration conf;

  private StorageSettings(Configuration conf) {
    this.conf = conf;
  }

  /** {@code conf} itself (not a copy): later changes to it are seen. */
  public static StorageSettings of(Configuration conf) {
    return new StorageSettings(conf);
  }

  /**
   * The active Spark session's Hadoop settings; before Spark starts (the CLI checks its files
   * first), Hadoop's defaults plus the {@code spark.hadoop.*} system properties that spark-submit
   * sets, as Spark itself would apply them.
   */
  public static StorageSettings current() {
    scala.Option<SparkSession> s = SparkSession.getActiveSession();
    if (s.isEmpty()) {
      s = SparkSession.getDefaultSession();
    }
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

  public Configuration conf() {
    return conf;
  }

  @Serial
  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    conf.write(out);
  }

  @Serial
  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    conf = new Configuration(false);
    conf.readFields(in);
  }
}
