package org.sparknet.apps.data.db;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.fs.FSDataInputStream;
import org.sparknet.api.storage.StoragePath;

/**
 * An LMDB data file ({@code data.mdb}) read page by page with positional reads, on any Hadoop file
 * system: its current meta page and its branch, leaf and overflow pages, with a small cache of
 * recently read pages (the upper levels of the tree are read again and again). The file may be
 * sparse or longer than its last used page; only the pages asked for are read.
 *
 * <p>The format is x86_64 LMDB 0.9's: pages 0 and 1 are meta pages, each a 16-byte page header then
 * MDB_meta: mm_magic 4 (0xBEEFC0DE), mm_version 4 (1), mm_address 8, mm_mapsize 8, two MDB_db of 48
 * bytes (the free list's, whose md_pad holds the page size, then the main database's: md_pad 4,
 * md_flags 2, md_depth 2, md_branch_pages 8, md_leaf_pages 8, md_overflow_pages 8, md_entries 8,
 * md_root 8), mm_last_pg 8, mm_txnid 8. The meta page with the higher transaction id is current.
 */
final class LmdbFile implements AutoCloseable {
  static final long MAGIC = 0xBEEFC0DEL;
  static final long VERSION = 1;

  /** md_root of an empty database (P_INVALID, all ones). */
  static final long NO_ROOT = -1L;

  private static final int META_END = LmdbPage.HEADER + 136;
  private static final int CACHED_PAGES = 64;

  /** The main database as the current meta page describes it. */
  record Meta(
      long txnid, int pageSize, int flags, int depth, long entries, long root, long lastPg) {}

  private final StoragePath path;
  private final FSDataInputStream in;
  private final long length;
  private final Meta meta;
  private long pagesRead;
  private final Map<Long, LmdbPage> cache =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, LmdbPage> eldest) {
          return size() > CACHED_PAGES;
        }
      };

  private LmdbFile(StoragePath path, FSDataInputStream in, long length) {
    this.path = path;
    this.in = in;
    this.length = length;
    this.meta = readMeta();
  }

  /**
   * Opens {@code path} and reads its meta pages; bad ones fail naming the URI. A local file is read
   * through the raw local file system: the checksummed one opens the file again for every
   * positional read (a page), which made a scan several times slower.
   */
  static LmdbFile open(StoragePath path) {
    long length = path.length();
    FSDataInputStream in;
    try {
      in = StoragePath.withoutChecksums(path.fileSystem()).open(path.hadoopPath());
    } catch (IOException e) {
      throw path.problem("read", e);
    }
    try {
      return new LmdbFile(path, in, length);
    } catch (RuntimeException e) {
      try {
        in.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  StoragePath path() {
    return path;
  }

  Meta meta() {
    return meta;
  }

  /** How many reads of the file were made so far (a page or a value's overflow pages each). */
  synchronized long pagesRead() {
    return pagesRead;
  }

  private Meta readMeta() {
    if (length < META_END) {
      throw new IllegalArgumentException(
          path + " is not an LMDB: it is " + length + " bytes, too short for LMDB's meta page");
    }
    byte[] first = readAt(0, META_END, 0);
    checkMagic(first, 0);
    int pageSize = (int) LmdbPage.u32(first, LmdbPage.HEADER + 24);
    if (pageSize < 512 || pageSize > 65536 || Integer.bitCount(pageSize) != 1) {
      throw new IllegalArgumentException(
          path
              + " is not an LMDB this reader can read: its meta page gives a page size of "
              + pageSize
              + " bytes (a power of two from 512 to 65536 expected; a 32-bit LMDB lays its meta"
              + " page out differently)");
    }
    Meta m0 = meta(first, pageSize);
    byte[] second = readAt(pageSize, META_END, 1);
    if (LmdbPage.u32(second, LmdbPage.HEADER) != MAGIC
        || LmdbPage.u32(second, LmdbPage.HEADER + 4) != VERSION) {
      return m0;
    }
    Meta m1 = meta(second, pageSize);
    return Long.compareUnsigned(m1.txnid(), m0.txnid()) > 0 ? m1 : m0;
  }

  private void checkMagic(byte[] page, long pgno) {
    long magic = LmdbPage.u32(page, LmdbPage.HEADER);
    if (magic != MAGIC) {
      throw new IllegalArgumentException(
          String.format(
              "%s is not an LMDB: meta page %d has magic 0x%08X where LMDB writes 0x%08X",
              path, pgno, magic, MAGIC));
    }
    long version = LmdbPage.u32(page, LmdbPage.HEADER + 4);
    if (version != VERSION) {
      throw new IllegalArgumentException(
          path
              + " is an LMDB of data format version "
              + version
              + "; this reader reads version "
              + VERSION
              + " (LMDB 0.9, which Caffe uses)");
    }
  }

  private static Meta meta(byte[] b, int pageSize) {
    int main = LmdbPage.HEADER + 72;
    return new Meta(
        LmdbPage.u64(b, LmdbPage.HEADER + 128),
        pageSize,
        LmdbPage.u16(b, main + 4),
        LmdbPage.u16(b, main + 6),
        LmdbPage.u64(b, main + 32),
        LmdbPage.u64(b, main + 40),
        LmdbPage.u64(b, LmdbPage.HEADER + 120));
  }

  /** Branch or leaf page {@code pgno}, checked: its header, its type, every node inside it. */
  synchronized LmdbPage page(long pgno) {
    LmdbPage p = cache.get(pgno);
    if (p != null) {
      return p;
    }
    checkPgno(pgno);
    p = new LmdbPage(pgno, readAt(pgno * meta.pageSize(), meta.pageSize(), pgno));
    if (p.headerPgno() != pgno) {
      throw corrupt(pgno, "its header names page " + p.headerPgno());
    }
    if ((p.flags() & LmdbPage.P_LEAF2) != 0) {
      throw corrupt(pgno, "it is a LEAF2 page, which only dup-sort sub-databases use");
    }
    if (!p.isBranch() && !p.isLeaf()) {
      throw corrupt(pgno, String.format("its flags 0x%04X mark no branch or leaf page", p.flags()));
    }
    String defect = p.defect();
    if (defect != null) {
      throw corrupt(pgno, defect);
    }
    cache.put(pgno, p);
    return p;
  }

  /** The {@code size} bytes of a value stored on the overflow pages from {@code pgno}. */
  synchronized byte[] overflow(long pgno, long size) {
    checkPgno(pgno);
    if (size > Integer.MAX_VALUE - LmdbPage.HEADER) {
      throw corrupt(pgno, "it is to hold a value of " + size + " bytes, over 2 GiB");
    }
    byte[] b = readAt(pgno * meta.pageSize(), LmdbPage.HEADER + (int) size, pgno);
    LmdbPage header = new LmdbPage(pgno, b);
    if (header.headerPgno() != pgno || (header.flags() & LmdbPage.P_OVERFLOW) == 0) {
      throw corrupt(
          pgno,
          String.format(
              "a value's overflow page was expected, but it names page %d with flags 0x%04X",
              header.headerPgno(), header.flags()));
    }
    if ((long) header.overflowPages() * meta.pageSize() < LmdbPage.HEADER + size) {
      throw corrupt(
          pgno, "its " + header.overflowPages() + " pages cannot hold " + size + " bytes");
    }
    byte[] value = new byte[(int) size];
    System.arraycopy(b, LmdbPage.HEADER, value, 0, value.length);
    return value;
  }

  private void checkPgno(long pgno) {
    if (pgno < 2 || pgno > meta.lastPg()) {
      throw corrupt(pgno, "it is a page number outside the database's pages 2 to " + meta.lastPg());
    }
  }

  /** {@code len} bytes at {@code offset}, part of page {@code pgno}; beyond the end: truncated. */
  private byte[] readAt(long offset, int len, long pgno) {
    if (offset + len > length) {
      throw new IllegalArgumentException(
          String.format(
              "%s is truncated: page %d (bytes %d to %d) lies beyond its end at %d bytes; copy"
                  + " the LMDB again in full",
              path, pgno, offset, offset + len - 1, length));
    }
    byte[] b = new byte[len];
    pagesRead++;
    try {
      in.readFully(offset, b, 0, len);
    } catch (IOException e) {
      throw path.problem("read page " + pgno + " of", e);
    }
    return b;
  }

  private IllegalArgumentException corrupt(long pgno, String what) {
    return new IllegalArgumentException(path + " is corrupt at page " + pgno + ": " + what);
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      throw path.problem("close", e);
    }
  }
}
