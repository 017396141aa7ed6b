package org.sparknet.apps.data.db;

import java.util.ArrayList;
import java.util.List;

/**
 * Key ranges of an LMDB of roughly equal record counts, from the pages near the root only. The tree
 * is read level by level from the root until a level has at least {@link #SUBTREES_A_RANGE}
 * subtrees a range (or its leaves have been read, whose records are then the units); each subtree's
 * size is estimated as an equal share of its parent's (the root's share is the exact record count),
 * and consecutive subtrees are grouped into ranges by their cumulative estimated size. A range's
 * bounds are separator keys of branch pages: every key in a subtree lies at or above its separator
 * and below the next one, so the ranges cover every record exactly once whatever the estimate.
 */
final class LmdbSplit {
  /**
   * Subtrees per range to reach before grouping: the finer the units, the closer the sizes; each
   * level read costs one page read per subtree of the level above.
   */
  static final int SUBTREES_A_RANGE = 8;

  private LmdbSplit() {}

  /**
   * A subtree (page {@code pgno}) or, at the leaf level, one record ({@code pgno} -1), whose keys
   * are at or above {@code low} (null: the first subtree), of estimated size {@code size}.
   */
  private record Unit(long pgno, byte[] low, double size) {
    boolean isRecord() {
      return pgno < 0;
    }
  }

  static List<KeyRange> ranges(LmdbFile file, int n) {
    LmdbFile.Meta meta = file.meta();
    if (n == 1 || meta.root() == LmdbFile.NO_ROOT) {
      return List.of(KeyRange.ALL);
    }
    List<Unit> level = List.of(new Unit(meta.root(), null, meta.entries()));
    while (level.size() < (long) n * SUBTREES_A_RANGE
        && !level.isEmpty()
        && !level.get(0).isRecord()) {
      level = expand(file, level);
    }
    return group(level, n);
  }

  /** The next level down: each subtree's children, or each leaf's records. */
  private static List<Unit> expand(LmdbFile file, List<Unit> level) {
    List<Unit> next = new ArrayList<>();
    for (Unit u : level) {
      LmdbPage p = file.page(u.pgno());
      int k = p.size();
      for (int i = 0; i < k; i++) {
        byte[] low = i == 0 ? u.low() : p.key(i);
        next.add(p.isBranch() ? new Unit(p.child(i), low, u.size() / k) : new Unit(-1, low, 1));
      }
    }
    return next;
  }

  /**
   * Consecutive units grouped into at most {@code n} ranges: a unit goes to the range its midpoint
   * falls in, by cumulative size; the first range starts open, the last ends open.
   */
  private static List<KeyRange> group(List<Unit> units, int n) {
    double total = units.stream().mapToDouble(Unit::size).sum();
    List<KeyRange> out = new ArrayList<>();
    byte[] from = null;
    int current = 0;
    double before = 0;
    for (Unit u : units) {
      int g =
          total <= 0 ? 0 : (int) Math.min(n - 1, Math.floor((before + u.size() / 2) * n / total));
      if (g != current && u.low() != null) {
        out.add(new KeyRange(from, u.low()));
        from = u.low();
        current = g;
      }
      before += u.size();
    }
    out.add(new KeyRange(from, null));
    return out;
  }
}
