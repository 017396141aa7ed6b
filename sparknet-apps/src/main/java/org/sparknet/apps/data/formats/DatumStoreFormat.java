package org.sparknet.apps.data.formats;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ReadPlan;
import org.sparknet.api.data.SampleHints;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.ImageTransform;
import org.sparknet.apps.data.db.Datum;
import org.sparknet.apps.data.db.DatumShape;
import org.sparknet.apps.data.db.KeyRange;
import org.sparknet.apps.data.db.RecordStore;

/**
 * A database of Caffe {@code Datum} records (what convert_mnist_data, convert_cifar_data and
 * convert_imageset write, and a Data layer reads): the driver reads the first record for the shape
 * and the index pages for the key ranges; each partition's executor reads its own range from
 * storage (the format travels with the tasks to open the store there: it holds no state). Every
 * record must have the first one's channels, height and width, as a Caffe net's fixed input shape
 * needs.
 */
abstract class DatumStoreFormat extends NamedFormat {
  private static final long serialVersionUID = 1L;

  /**
   * Key ranges per partition: an executor decodes one range at a time while its partition is
   * packed, so it holds one range's examples beside the packed shard, not the whole partition's
   * twice.
   */
  static final int CHUNKS = 16;

  /** Opens a store on any Hadoop file system; travels with the tasks (a method reference). */
  @FunctionalInterface
  interface Opener extends Serializable {
    RecordStore open(StoragePath location);
  }

  private final String kindName;
  private final Opener opener;

  /** {@code kindName} ("LMDB", "LevelDB") names the store in messages. */
  DatumStoreFormat(String name, String description, String kindName, Opener opener) {
    super(name, description, Kind.IMAGE);
    this.kindName = kindName;
    this.opener = opener;
  }

  /** The store at {@code location}, on any Hadoop file system. */
  final RecordStore openStore(StoragePath location) {
    return opener.open(location);
  }

  @Override
  DataSource openData(DataRequest r) {
    StoragePath location = Sources.existing(r);
    String what = kindName + " " + location;
    try (RecordStore store = openStore(location)) {
      First first = First.of(store);
      if (first == null) {
        throw new IllegalArgumentException(
            r.option() + " " + what + " holds no records; there is nothing to read");
      }
      String where = what + ", record " + KeyRange.show(first.key);
      Datum d = Datum.parse(first.value, where);
      return new Source(this, location, store.count(), d.shape(where), what);
    }
  }

  /** The first record of a store, found by a scan that stops there. */
  private record First(byte[] key, byte[] value) {
    static First of(RecordStore store) {
      List<First> found = new ArrayList<>(1);
      try {
        store.scan(
            KeyRange.ALL,
            (k, v) -> {
              found.add(new First(k, v));
              throw new StopScan();
            });
      } catch (StopScan stop) {
        // the first record is all that was wanted
      }
      return found.isEmpty() ? null : found.get(0);
    }
  }

  /** Ends a scan early; carries no stack trace. */
  private static final class StopScan extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StopScan() {
      super(null, null, false, false);
    }
  }

  private record Source(
      DatumStoreFormat format, StoragePath location, long count, DatumShape shape, String what)
      implements DataSource {
    @Override
    public boolean labelled() {
      return true;
    }

    @Override
    public List<Integer> sampleShape(SampleHints hints) {
      return List.of(shape.channels(), shape.height(), shape.width());
    }

    @Override
    public JavaRDD<Example> read(SparkSession spark, ReadPlan plan) {
      List<List<KeyRange>> groups;
      try (RecordStore store = format.openStore(location)) {
        groups = groups(store.split(plan.partitions() * CHUNKS), plan.partitions());
      }
      // Locals only: the closure must not capture this source or its format's instance state.
      DatumStoreFormat f = format;
      StoragePath at = location;
      DatumShape expected = shape;
      String name = what;
      float scale = plan.scale();
      ImageTransform mean = Sources.meanTransform(plan, sampleShape(SampleHints.NONE));
      // The ranges travel in the closure (Java serialization), the partitions as their indices.
      List<Integer> indices = IntStream.range(0, groups.size()).boxed().toList();
      return Sources.context(spark)
          .parallelize(indices, Math.max(1, groups.size()))
          .mapPartitions(
              it -> {
                List<KeyRange> ranges = it.hasNext() ? groups.get(it.next()) : List.of();
                return new RangeExamples(
                    ranges,
                    () -> f.openStore(at),
                    (k, v, n) -> example(k, v, name, expected, scale, mean, n));
              });
    }
  }

  /**
   * {@code ranges} (in key order) dealt into at most {@code n} runs of consecutive ranges, as even
   * in length as they divide.
   */
  static List<List<KeyRange>> groups(List<KeyRange> ranges, int n) {
    int g = Math.min(n, ranges.size());
    List<List<KeyRange>> out = new ArrayList<>(g);
    for (int i = 0; i < g; i++) {
      int from = (int) ((long) ranges.size() * i / g);
      int to = (int) ((long) ranges.size() * (i + 1) / g);
      out.add(List.copyOf(ranges.subList(from, to)));
    }
    return out;
  }

  private static Example example(
      byte[] key,
      byte[] value,
      String what,
      DatumShape expected,
      float scale,
      ImageTransform mean,
      long index) {
    String where = what + ", record " + KeyRange.show(key);
    Datum d = Datum.parse(value, where);
    DatumShape s = d.shape(where);
    if (!s.equals(expected)) {
      throw new IllegalArgumentException(
          where
              + " is "
              + s
              + " but the first record is "
              + expected
              + "; a net's input has one shape, so every record must have it (resize them"
              + " with convert_imageset --resize_height/--resize_width)");
    }
    float[] chw = d.toChw(where);
    if (scale != 1f) {
      for (int i = 0; i < chw.length; i++) {
        chw[i] *= scale;
      }
    }
    chw = mean.apply(chw, s.channels(), s.height(), s.width(), index);
    return new Example(chw, d.label());
  }
}
