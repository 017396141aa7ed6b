package org.sparknet.apps.data.db;

import java.io.Serializable;
import java.util.Arrays;

/**
 * The keys from {@code from} (inclusive) to {@code to} (exclusive) in the store's byte order
 * (unsigned lexicographic, as LMDB's and LevelDB's default comparators); a null bound is open.
 */
public record KeyRange(byte[] from, byte[] to) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Every key. */
  public static final KeyRange ALL = new KeyRange(null, null);

  /** Whether {@code key} lies in this range. */
  public boolean contains(byte[] key) {
    return (from == null || Arrays.compareUnsigned(key, from) >= 0)
        && (to == null || Arrays.compareUnsigned(key, to) < 0);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyRange r && Arrays.equals(from, r.from) && Arrays.equals(to, r.to);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(from) + Arrays.hashCode(to);
  }

  @Override
  public String toString() {
    return "[" + show(from) + ", " + show(to) + ")";
  }

  /** A key (or a bound: null is "-") as messages give it: printable ASCII as is, others \xNN. */
  public static String show(byte[] k) {
    if (k == null) {
      return "-";
    }
    StringBuilder sb = new StringBuilder("'");
    for (byte b : k) {
      sb.append(b >= 32 && b < 127 ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xff));
    }
    return sb.append("'").toString();
  }
}
