package org.sparknet.apps.data.db.leveldb;

/**
 * A sorted stream of versioned entries (a table's, or the log's): user keys in unsigned bytewise
 * order and, for one user key, the newest (highest sequence) first.
 */
interface EntrySource extends AutoCloseable {
  boolean valid();

  byte[] userKey();

  long sequence();

  /** The value, or null for a deletion. */
  byte[] value();

  void next();

  @Override
  void close();
}
