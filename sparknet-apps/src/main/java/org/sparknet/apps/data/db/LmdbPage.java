package org.sparknet.apps.data.db;

import java.util.Arrays;

/**
 * One branch or leaf page of an LMDB B+tree, as x86_64 LMDB 0.9 lays it out (little-endian, 8-byte
 * page numbers): a 16-byte header (mp_pgno 8, mp_pad 2, mp_flags 2, mp_lower 2, mp_upper 2), then
 * one 2-byte offset per node from the page's start; each node is mn_lo 2, mn_hi 2, mn_flags 2,
 * mn_ksize 2, the key, then (in a leaf) the value or, for {@link #F_BIGDATA}, the 8-byte number of
 * the overflow page that holds it. A branch node's page number is mn_lo | mn_hi << 16 | mn_flags <<
 * 32; its key 0 is ignored (the child holds every key below key 1).
 */
final class LmdbPage {
  static final int HEADER = 16;
  static final int P_BRANCH = 0x01;
  static final int P_LEAF = 0x02;
  static final int P_OVERFLOW = 0x04;
  static final int P_META = 0x08;
  static final int P_LEAF2 = 0x20;
  static final int F_BIGDATA = 0x01;
  static final int F_SUBDATA = 0x02;
  static final int F_DUPDATA = 0x04;
  private static final int NODE_HEADER = 8;

  private final long pgno;
  private final byte[] b;

  LmdbPage(long pgno, byte[] bytes) {
    this.pgno = pgno;
    this.b = bytes;
  }

  long pgno() {
    return pgno;
  }

  /** The page number written in the header (equal to {@link #pgno()} in a sound file). */
  long headerPgno() {
    return u64(b, 0);
  }

  int flags() {
    return u16(b, 10);
  }

  boolean isBranch() {
    return (flags() & P_BRANCH) != 0;
  }

  boolean isLeaf() {
    return (flags() & P_LEAF) != 0;
  }

  /** The number of nodes: (mp_lower - header) / 2. */
  int size() {
    return (u16(b, 12) - HEADER) >> 1;
  }

  /** Overflow pages only: how many pages the value spans (mp_pages). */
  int overflowPages() {
    return (int) u32(b, 12);
  }

  /** The offset of node {@code i} in the page. */
  private int node(int i) {
    return u16(b, HEADER + 2 * i);
  }

  /**
   * What makes this branch or leaf page unreadable (a node table or a node outside the page), or
   * null when every node lies inside it; checked once, when the page is read.
   */
  String defect() {
    int lower = u16(b, 12);
    if (lower < HEADER || lower > b.length || (lower & 1) != 0) {
      return "its node table ends at byte " + lower + " of " + b.length;
    }
    for (int i = 0; i < size(); i++) {
      int n = node(i);
      if (n < lower || n + NODE_HEADER > b.length) {
        return "node " + i + " starts at byte " + n + ", outside the page";
      }
      long end = n + NODE_HEADER + keySize(i);
      if (isLeaf()) {
        end += (nodeFlags(i) & F_BIGDATA) != 0 ? 8 : valueSize(i);
      }
      if (end > b.length) {
        return "node " + i + " ends at byte " + end + ", beyond the page";
      }
    }
    return null;
  }

  int nodeFlags(int i) {
    return u16(b, node(i) + 4);
  }

  private int keySize(int i) {
    return u16(b, node(i) + 6);
  }

  byte[] key(int i) {
    int start = node(i) + NODE_HEADER;
    return Arrays.copyOfRange(b, start, start + keySize(i));
  }

  /** {@link Arrays#compareUnsigned} of node {@code i}'s key with {@code key}, without a copy. */
  int compareKey(int i, byte[] key) {
    int start = node(i) + NODE_HEADER;
    return Arrays.compareUnsigned(b, start, start + keySize(i), key, 0, key.length);
  }

  /** Branch node {@code i}'s child page. */
  long child(int i) {
    int n = node(i);
    return u16(b, n) | ((long) u16(b, n + 2) << 16) | ((long) u16(b, n + 4) << 32);
  }

  /** Leaf node {@code i}'s value size (mn_lo | mn_hi << 16). */
  long valueSize(int i) {
    int n = node(i);
    return u16(b, n) | ((long) u16(b, n + 2) << 16);
  }

  /** Leaf node {@code i}'s value, stored in the node (not {@link #F_BIGDATA}). */
  byte[] inlineValue(int i) {
    int start = node(i) + NODE_HEADER + keySize(i);
    return Arrays.copyOfRange(b, start, start + (int) valueSize(i));
  }

  /** Leaf node {@code i}'s first overflow page ({@link #F_BIGDATA} nodes). */
  long overflowPgno(int i) {
    return u64(b, node(i) + NODE_HEADER + keySize(i));
  }

  /** The last node index whose key is <= {@code key}, or 0: the child of a branch to descend. */
  int childFor(byte[] key) {
    int lo = 1;
    int hi = size() - 1;
    int found = 0;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (compareKey(mid, key) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** The first node index whose key is >= {@code key}, or {@link #size()}: where a scan starts. */
  int lowerBound(byte[] key) {
    int lo = 0;
    int hi = size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (compareKey(mid, key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  static int u16(byte[] b, int off) {
    return (b[off] & 0xff) | (b[off + 1] & 0xff) << 8;
  }

  static long u32(byte[] b, int off) {
    return (u16(b, off) | (long) u16(b, off + 2) << 16) & 0xffffffffL;
  }

  static long u64(byte[] b, int off) {
    return u32(b, off) | u32(b, off + 4) << 32;
  }
}
