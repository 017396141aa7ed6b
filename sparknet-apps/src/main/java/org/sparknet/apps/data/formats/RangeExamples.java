package org.sparknet.apps.data.formats;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Supplier;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;
import org.sparknet.api.data.Example;
import org.sparknet.apps.data.db.KeyRange;
import org.sparknet.apps.data.db.RecordStore;

/**
 * A partition's records as examples, decoded one key range at a time (a store's scan pushes records
 * to a visitor, a partition is pulled as an iterator): the executor holds one range's examples
 * while they are packed, never the whole partition's. The store is opened on the first record
 * wanted and closed after the last range, or when the task ends first.
 */
final class RangeExamples implements Iterator<Example> {
  /** Turns one record into an example; {@code index} counts the partition's records from 0. */
  @FunctionalInterface
  interface Decoder {
    Example decode(byte[] key, byte[] value, long index);
  }

  private final Iterator<KeyRange> ranges;
  private final Supplier<RecordStore> opener;
  private final Decoder decoder;
  private final ArrayDeque<Example> pending = new ArrayDeque<>();
  private RecordStore store;
  private long index;

  RangeExamples(List<KeyRange> ranges, Supplier<RecordStore> opener, Decoder decoder) {
    this.ranges = ranges.iterator();
    this.opener = opener;
    this.decoder = decoder;
  }

  @Override
  public boolean hasNext() {
    while (pending.isEmpty() && ranges.hasNext()) {
      KeyRange r = ranges.next();
      open().scan(r, (k, v) -> pending.add(decoder.decode(k, v, index++)));
    }
    if (pending.isEmpty()) {
      close();
    }
    return !pending.isEmpty();
  }

  @Override
  public Example next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return pending.poll();
  }

  private RecordStore open() {
    if (store == null) {
      store = opener.get();
      TaskContext task = TaskContext.get();
      if (task != null) {
        task.addTaskCompletionListener((TaskCompletionListener) t -> close());
      }
    }
    return store;
  }

  private void close() {
    if (store != null) {
      store.close();
      store = null;
    }
  }
}
