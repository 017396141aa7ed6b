package org.sparknet.apps.data.db.leveldb;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.BiConsumer;

/**
 * Merges sorted entry sources (tables of every level, and the logs) into the database's live
 * records: for each user key the entry with the highest sequence number wins, and a winning
 * deletion hides the key.
 */
final class MergedScan {
  private static final Comparator<EntrySource> ORDER =
      Comparator.<EntrySource, byte[]>comparing(EntrySource::userKey, Arrays::compareUnsigned)
          .thenComparing(Comparator.comparingLong(EntrySource::sequence).reversed());

  private MergedScan() {}

  /** Calls {@code visitor} with each live record of {@code sources}, in key order. */
  static void run(List<EntrySource> sources, BiConsumer<byte[], byte[]> visitor) {
    PriorityQueue<EntrySource> heads = new PriorityQueue<>(Math.max(1, sources.size()), ORDER);
    for (EntrySource s : sources) {
      if (s.valid()) {
        heads.add(s);
      }
    }
    byte[] lastKey = null;
    while (!heads.isEmpty()) {
      EntrySource s = heads.poll();
      byte[] key = s.userKey();
      if (lastKey == null || !Arrays.equals(key, lastKey)) {
        lastKey = key;
        byte[] value = s.value();
        if (value != null) {
          visitor.accept(key, value);
        }
      }
      s.next();
      if (s.valid()) {
        heads.add(s);
      }
    }
  }
}
