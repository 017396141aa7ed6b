package org.sparknet.apps.data.db.leveldb;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The database's current version, replayed from the manifest's version edits in order: the live
 * tables of each level, the number of the oldest log whose writes are not yet in a table, and the
 * comparator that ordered the keys.
 */
final class Manifest {
  static final String BYTEWISE = "leveldb.BytewiseComparator";
  private static final int LEVELS = 7;

  private static final int COMPARATOR = 1;
  private static final int LOG_NUMBER = 2;
  private static final int NEXT_FILE = 3;
  private static final int LAST_SEQUENCE = 4;
  private static final int COMPACT_POINTER = 5;
  private static final int DELETED_FILE = 6;
  private static final int NEW_FILE = 7;
  private static final int PREV_LOG_NUMBER = 9;

  private final List<TableFile> tables;
  private final long logNumber;
  private final long prevLogNumber;

  private Manifest(List<TableFile> tables, long logNumber, long prevLogNumber) {
    this.tables = tables;
    this.logNumber = logNumber;
    this.prevLogNumber = prevLogNumber;
  }

  /** The live tables, by level then smallest key. */
  List<TableFile> tables() {
    return tables;
  }

  /** Whether the write-ahead log {@code number} may hold writes that no table holds. */
  boolean isLiveLog(long number) {
    return number >= logNumber || number == prevLogNumber;
  }

  /**
   * Replays {@code data}, the manifest {@code name}.
   *
   * @throws IllegalArgumentException naming the file when it is truncated or corrupt, lacks the
   *     entries every manifest has, or names a comparator other than the bytewise one
   */
  static Manifest parse(byte[] data, String name) {
    List<Map<Long, TableFile>> levels = new ArrayList<>();
    for (int i = 0; i < LEVELS; i++) {
      levels.add(new TreeMap<>());
    }
    String comparator = null;
    Long logNumber = null;
    long prevLogNumber = 0;
    boolean nextFile = false;
    boolean lastSequence = false;
    for (byte[] edit : LogFile.records(data, name, false)) {
      ByteCursor in = new ByteCursor(edit, 0, edit.length, name);
      List<TableFile> added = new ArrayList<>();
      while (!in.atEnd()) {
        int tag = in.varint32();
        switch (tag) {
          case COMPARATOR -> comparator = new String(in.lengthPrefixed(), UTF_8);
          case LOG_NUMBER -> logNumber = in.varint64();
          case PREV_LOG_NUMBER -> prevLogNumber = in.varint64();
          case NEXT_FILE -> {
            in.varint64();
            nextFile = true;
          }
          case LAST_SEQUENCE -> {
            in.varint64();
            lastSequence = true;
          }
          case COMPACT_POINTER -> {
            level(in);
            in.lengthPrefixed();
          }
          case DELETED_FILE -> levels.get(level(in)).remove(in.varint64());
          case NEW_FILE -> added.add(newFile(in, name));
          default -> throw in.corrupt("unknown version edit tag " + tag);
        }
      }
      // As LevelDB applies an edit: its deletions first, then its new files.
      for (TableFile t : added) {
        levels.get(t.level()).put(t.number(), t);
      }
    }
    check(comparator != null && logNumber != null && nextFile && lastSequence, name);
    if (!BYTEWISE.equals(comparator)) {
      throw new IllegalArgumentException(
          name
              + " orders its keys by the comparator '"
              + comparator
              + "'; only LevelDB's default '"
              + BYTEWISE
              + "' (what Caffe and plyvel use) can be read");
    }
    List<TableFile> tables = new ArrayList<>();
    for (Map<Long, TableFile> level : levels) {
      List<TableFile> files = new ArrayList<>(level.values());
      files.sort(Comparator.comparing(TableFile::smallest, Arrays::compareUnsigned));
      tables.addAll(files);
    }
    return new Manifest(List.copyOf(tables), logNumber, prevLogNumber);
  }

  private static TableFile newFile(ByteCursor in, String name) {
    int level = level(in);
    long number = in.varint64();
    long size = in.varint64();
    byte[] smallest = userKey(in.lengthPrefixed(), in);
    byte[] largest = userKey(in.lengthPrefixed(), in);
    return new TableFile(level, number, size, smallest, largest);
  }

  private static int level(ByteCursor in) {
    int level = in.varint32();
    if (level >= LEVELS) {
      throw in.corrupt("level " + level + " (LevelDB has " + LEVELS + ")");
    }
    return level;
  }

  private static byte[] userKey(byte[] internalKey, ByteCursor in) {
    if (internalKey.length < 8) {
      throw in.corrupt("an internal key of " + internalKey.length + " bytes (under 8)");
    }
    return Arrays.copyOf(internalKey, internalKey.length - 8);
  }

  private static void check(boolean complete, String name) {
    if (!complete) {
      throw new IllegalArgumentException(
          name
              + " is corrupt: it lacks the comparator, log number, next file or last sequence"
              + " that every LevelDB manifest holds; restore it or rebuild the LevelDB");
    }
  }
}
