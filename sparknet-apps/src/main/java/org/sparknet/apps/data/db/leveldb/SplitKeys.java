package org.sparknet.apps.data.db.leveldb;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Boundary keys that cut weighted key points into parts of about equal weight. A point stands for a
 * data block (its highest possible key and its bytes) or a write in the log; each boundary is the
 * smallest key above a point, so that the whole block falls before it.
 */
final class SplitKeys {
  private SplitKeys() {}

  /** A key and the bytes of records at or below it that it stands for. */
  record Point(byte[] key, long weight) {}

  /** At most {@code parts - 1} strictly increasing boundaries. */
  static List<byte[]> choose(List<Point> points, int parts) {
    List<Point> sorted = new ArrayList<>(points);
    sorted.sort(Comparator.comparing(Point::key, Arrays::compareUnsigned));
    double total = 0;
    for (Point p : sorted) {
      total += p.weight();
    }
    List<byte[]> out = new ArrayList<>();
    double sum = 0;
    int part = 1;
    // The last point ends the last part: no boundary after it.
    for (int i = 0; i < sorted.size() - 1 && part < parts; i++) {
      sum += sorted.get(i).weight();
      if (sum >= total * part / parts) {
        byte[] boundary = successor(sorted.get(i).key());
        if (out.isEmpty() || Arrays.compareUnsigned(boundary, out.get(out.size() - 1)) > 0) {
          out.add(boundary);
        }
        while (part < parts && sum >= total * part / parts) {
          part++;
        }
      }
    }
    return out;
  }

  /** The smallest key above {@code key}: itself and a zero byte. */
  private static byte[] successor(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }
}
