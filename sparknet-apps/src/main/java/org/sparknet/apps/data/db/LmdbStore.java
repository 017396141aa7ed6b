package org.sparknet.apps.data.db;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.sparknet.api.storage.StoragePath;

/**
 * A Caffe LMDB (what {@code convert_mnist_data} and {@code convert_imageset} write: one record a
 * key in the main, unnamed database) read in pure Java from any Hadoop file system, page by page,
 * never the whole file. The record count is the meta page's exact {@code md_entries}; {@link
 * #split} reads only branch pages near the root; {@link #scan} descends to its first key and walks
 * the leaves in order along the branch path (LMDB's leaves have no sibling links).
 *
 * <p>The lock file is neither read nor taken: LMDB's copy-on-write pages and two meta pages let a
 * reader see the last committed transaction without it, which is what a read-only copy on HDFS or
 * S3 needs. An LMDB written to while it is read may show a later or an earlier transaction.
 */
public final class LmdbStore extends ReadOnlyStore {
  /** md_flags that change LMDB's key order or keep several values a key: not Caffe's layout. */
  private static final int MDB_REVERSEKEY = 0x02;

  private static final int MDB_DUPSORT = 0x04;
  private static final int MDB_INTEGERKEY = 0x08;

  private final LmdbFile file;

  private LmdbStore(String location, LmdbFile file) {
    super("LMDB", location);
    this.file = file;
  }

  /**
   * Opens the LMDB directory {@code path} (holding {@code data.mdb}), or its data file itself, and
   * checks that it holds Caffe's layout. An empty database is not an error (count 0).
   *
   * @throws IllegalArgumentException naming the URI: nothing there, a directory without data.mdb (a
   *     LevelDB is named as such), bad meta pages, a truncated file, named sub-databases or a
   *     dup-sort database
   */
  public static LmdbStore open(StoragePath path) {
    LmdbDirectory data = LmdbDirectory.locate(path);
    LmdbFile file = LmdbFile.open(data.dataFile());
    try {
      LmdbStore store = new LmdbStore(data.location(), file);
      store.checkCaffeLayout();
      return store;
    } catch (RuntimeException e) {
      file.close();
      throw e;
    }
  }

  private void checkCaffeLayout() {
    int flags = file.meta().flags();
    if ((flags & MDB_DUPSORT) != 0) {
      throw new IllegalArgumentException(
          "LMDB "
              + location()
              + " is a dup-sort database (several values a key), not Caffe's layout of one Datum"
              + " a key; write it with convert_imageset or one put per key");
    }
    if ((flags & (MDB_REVERSEKEY | MDB_INTEGERKEY)) != 0) {
      throw new IllegalArgumentException(
          String.format(
              "LMDB %s orders its keys by its own comparator (flags 0x%04X), not bytewise as"
                  + " Caffe's LMDBs do; it cannot be split into key ranges",
              location(), flags));
    }
    if (file.meta().root() != LmdbFile.NO_ROOT) {
      LmdbPage leaf = leftmostLeaf(file.page(file.meta().root()), new ArrayDeque<>());
      if (leaf.size() > 0) {
        checkNode(leaf, 0);
      }
    }
  }

  /** Exactly: the main database's {@code md_entries}. */
  @Override
  public long count() {
    checkOpen();
    return file.meta().entries();
  }

  /** The B+tree's depth (0 when empty, 1 when the root is a leaf). */
  public int depth() {
    checkOpen();
    return file.meta().depth();
  }

  /** Reads of the data file so far (a page, or one value's overflow pages): what a split costs. */
  long pagesRead() {
    return file.pagesRead();
  }

  /** How a record of this LMDB is named in messages: "LMDB URI, record 'KEY'". */
  public String recordName(byte[] key) {
    return "LMDB " + location() + ", record " + KeyRange.show(key);
  }

  @Override
  List<KeyRange> ranges(int n) {
    return LmdbSplit.ranges(file, n);
  }

  @Override
  public void scan(KeyRange range, RecordVisitor visitor) {
    checkOpen();
    if (file.meta().root() == LmdbFile.NO_ROOT) {
      return;
    }
    Deque<Position> path = new ArrayDeque<>();
    LmdbPage page = file.page(file.meta().root());
    while (page.isBranch()) {
      int i = range.from() == null ? 0 : page.childFor(range.from());
      path.push(new Position(page, i));
      page = child(page, i, path.size());
    }
    int i = range.from() == null ? 0 : page.lowerBound(range.from());
    while (page != null) {
      for (; i < page.size(); i++) {
        if (range.to() != null && page.compareKey(i, range.to()) >= 0) {
          return;
        }
        checkNode(page, i);
        visitor.record(page.key(i), value(page, i));
      }
      page = nextLeaf(path);
      i = 0;
    }
  }

  /** The leaf after the one the top of {@code path} leads to, or null after the last. */
  private LmdbPage nextLeaf(Deque<Position> path) {
    while (!path.isEmpty()) {
      Position top = path.peek();
      if (++top.index < top.page.size()) {
        return leftmostLeaf(child(top.page, top.index, path.size()), path);
      }
      path.pop();
    }
    return null;
  }

  /** The first leaf under {@code page}, pushing the branch pages on the way onto {@code path}. */
  private LmdbPage leftmostLeaf(LmdbPage page, Deque<Position> path) {
    while (page.isBranch()) {
      path.push(new Position(page, 0));
      page = child(page, 0, path.size());
    }
    return page;
  }

  /**
   * Child {@code i} of {@code branch}, at {@code level} (1 under the root); a leaf must be at the
   * tree's depth and a branch above it, as in every sound B+tree.
   */
  private LmdbPage child(LmdbPage branch, int i, int level) {
    LmdbPage c = file.page(branch.child(i));
    boolean leafLevel = level + 1 == file.meta().depth();
    if (c.isLeaf() != leafLevel) {
      throw new IllegalArgumentException(
          String.format(
              "%s is corrupt at page %d: a %s at level %d of a tree of depth %d (under page %d)",
              file.path(),
              c.pgno(),
              c.isLeaf() ? "leaf" : "branch page",
              level + 1,
              file.meta().depth(),
              branch.pgno()));
    }
    return c;
  }

  private void checkNode(LmdbPage leaf, int i) {
    int flags = leaf.nodeFlags(i);
    if ((flags & LmdbPage.F_SUBDATA) != 0) {
      throw new IllegalArgumentException(
          "LMDB "
              + location()
              + " holds named sub-databases ("
              + KeyRange.show(leaf.key(i))
              + " is one), not Caffe's layout of records in the main database");
    }
    if ((flags & LmdbPage.F_DUPDATA) != 0) {
      throw new IllegalArgumentException(
          recordName(leaf.key(i))
              + " holds several values (a dup-sort database), not Caffe's layout of one Datum a"
              + " key");
    }
  }

  private byte[] value(LmdbPage leaf, int i) {
    if ((leaf.nodeFlags(i) & LmdbPage.F_BIGDATA) != 0) {
      return file.overflow(leaf.overflowPgno(i), leaf.valueSize(i));
    }
    return leaf.inlineValue(i);
  }

  @Override
  void release() {
    file.close();
  }

  /** A branch page on the path to the current leaf and the child taken there. */
  private static final class Position {
    final LmdbPage page;
    int index;

    Position(LmdbPage page, int index) {
      this.page = page;
      this.index = index;
    }
  }
}
