package org.sparknet.apps.data.db;

import java.util.List;

/**
 * What the read-only stores share: their location and kind for messages, the closed state that
 * every read checks, and the argument check of {@link #split}. Not thread-safe: one store per task.
 */
abstract class ReadOnlyStore implements RecordStore {
  private final String kind;
  private final String location;
  private boolean closed;

  /** {@code kind} ("LMDB", "LevelDB") names the store in messages. */
  ReadOnlyStore(String kind, String location) {
    this.kind = kind;
    this.location = location;
  }

  @Override
  public final String location() {
    return location;
  }

  @Override
  public final List<KeyRange> split(int n) {
    checkOpen();
    if (n < 1) {
      throw new IllegalArgumentException(
          kind + " " + location + " cannot be split into " + n + " ranges; at least 1 is needed");
    }
    return ranges(n);
  }

  /** {@link #split} once the store is known open and {@code n >= 1}. */
  abstract List<KeyRange> ranges(int n);

  /** Frees what the store holds open; called once, by the first {@link #close}. */
  void release() {}

  /**
   * @throws IllegalStateException naming the store once it is closed
   */
  final void checkOpen() {
    if (closed) {
      throw new IllegalStateException(kind + " " + location + " is closed");
    }
  }

  @Override
  public final void close() {
    if (!closed) {
      closed = true;
      release();
    }
  }

  @Override
  public String toString() {
    return kind + " " + location;
  }
}
