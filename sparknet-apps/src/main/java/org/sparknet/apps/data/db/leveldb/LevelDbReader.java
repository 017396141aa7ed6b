package org.sparknet.apps.data.db.leveldb;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A LevelDB directory on a Hadoop file system, read in place and never written: opening reads the
 * directory listing, {@code CURRENT} and the manifest it names; a table's footer and index are read
 * when a split or a scan first needs it; the live logs are read whole at each split or scan (they
 * are at most a write buffer's size), keeping only the keys in range.
 */
public final class LevelDbReader {
  private static final Pattern CURRENT = Pattern.compile("(MANIFEST-[0-9]+)\n?");
  private static final Pattern LOG = Pattern.compile("([0-9]+)\\.log");

  private final FileSystem fs;
  private final String location;
  private final Manifest manifest;
  private final Map<Long, Path> tablePaths;
  private final List<FileStatus> logs;
  private final Map<Long, Table> opened = new HashMap<>();

  private LevelDbReader(
      FileSystem fs, String location, Manifest m, Map<Long, Path> tables, List<FileStatus> logs) {
    this.fs = fs;
    this.location = location;
    this.manifest = m;
    this.tablePaths = tables;
    this.logs = logs;
  }

  /**
   * Opens the LevelDB in {@code dir} on {@code fs}; {@code location} names it in messages.
   *
   * @throws IllegalArgumentException naming the directory or file: missing, not a LevelDB (an
   *     LMDB's {@code data.mdb} is named as such), a missing or truncated table, a corrupt manifest
   */
  public static LevelDbReader open(FileSystem fs, Path dir, String location) {
    Map<String, FileStatus> files = new HashMap<>();
    try {
      if (fs.getFileStatus(dir).isFile()) {
        throw new IllegalArgumentException(
            location
                + " is a file; a LevelDB is a directory (with CURRENT, MANIFEST-* and"
                + " *.ldb files): give the directory");
      }
      for (FileStatus st : fs.listStatus(dir)) {
        files.put(st.getPath().getName(), st);
      }
    } catch (FileNotFoundException e) {
      throw new IllegalArgumentException(location + " does not exist", e);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot list " + location + ": " + e.getMessage(), e);
    }
    FileStatus current = files.get("CURRENT");
    if (current == null) {
      throw new IllegalArgumentException(
          files.containsKey("data.mdb")
              ? location + " holds data.mdb: it looks like an LMDB; use --format lmdb"
              : location + " is not a LevelDB: it has no CURRENT file");
    }
    String currentText = new String(readWhole(fs, current), UTF_8);
    Matcher m = CURRENT.matcher(currentText);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          current.getPath()
              + " is corrupt: it should name a MANIFEST-nnnnnn file; restore it or"
              + " rebuild the LevelDB");
    }
    FileStatus manifestFile = files.get(m.group(1));
    if (manifestFile == null) {
      throw new IllegalArgumentException(
          location + " is damaged: CURRENT names " + m.group(1) + ", which is not there");
    }
    Manifest manifest =
        Manifest.parse(readWhole(fs, manifestFile), manifestFile.getPath().toString());
    return new LevelDbReader(
        fs, location, manifest, tablePaths(manifest, files, location), liveLogs(manifest, files));
  }

  private static Map<Long, Path> tablePaths(
      Manifest manifest, Map<String, FileStatus> files, String location) {
    Map<Long, Path> out = new HashMap<>();
    for (TableFile t : manifest.tables()) {
      FileStatus st = files.get(t.names()[0]);
      st = st != null ? st : files.get(t.names()[1]);
      if (st == null) {
        throw new IllegalArgumentException(
            location
                + " is damaged: its manifest lists the table "
                + t.names()[0]
                + ", which is not there; restore it or rebuild the LevelDB");
      }
      if (st.getLen() != t.size()) {
        throw new IllegalArgumentException(
            st.getPath()
                + " is truncated or damaged: "
                + st.getLen()
                + " bytes where the"
                + " manifest says "
                + t.size()
                + "; restore it or rebuild the LevelDB");
      }
      out.put(t.number(), st.getPath());
    }
    return out;
  }

  private static List<FileStatus> liveLogs(Manifest manifest, Map<String, FileStatus> files) {
    TreeMap<Long, FileStatus> logs = new TreeMap<>();
    for (Map.Entry<String, FileStatus> e : files.entrySet()) {
      Matcher m = LOG.matcher(e.getKey());
      if (m.matches() && manifest.isLiveLog(Long.parseLong(m.group(1)))) {
        logs.put(Long.parseLong(m.group(1)), e.getValue());
      }
    }
    return List.copyOf(logs.values());
  }

  /** The number of live tables at each level, 0 to 6. */
  public int[] tablesPerLevel() {
    int[] out = new int[7];
    for (TableFile t : manifest.tables()) {
      out[t.level()]++;
    }
    return out;
  }

  /** The bytes of the live logs: writes that no table holds yet. */
  public long logBytes() {
    return logs.stream().mapToLong(FileStatus::getLen).sum();
  }

  /**
   * At most {@code parts - 1} strictly increasing keys that cut the records into parts of about
   * equal bytes, chosen from the tables' index blocks (one point per data block, weighted by its
   * size) and the keys of the logs' writes; no data block is read.
   */
  public List<byte[]> splitKeys(int parts) {
    List<SplitKeys.Point> points = new ArrayList<>();
    for (TableFile t : manifest.tables()) {
      for (Table.IndexEntry e : table(t).index()) {
        byte[] key = e.separatorUserKey();
        // The last separator may lie far above the table's keys: its largest key bounds the block.
        if (Arrays.compareUnsigned(key, t.largest()) > 0) {
          key = t.largest();
        }
        points.add(new SplitKeys.Point(key, e.size()));
      }
    }
    for (Map.Entry<byte[], LogEntries.Write> e :
        logEntries(null, null, false).writes().entrySet()) {
      points.add(new SplitKeys.Point(e.getKey(), e.getKey().length + e.getValue().valueLength()));
    }
    return SplitKeys.choose(points, parts);
  }

  /**
   * Calls {@code visitor} with each live record whose key lies in {@code [from, to)} (null: open),
   * in key order, reading the data blocks of the overlapping tables that can hold such keys.
   */
  public void scan(byte[] from, byte[] to, BiConsumer<byte[], byte[]> visitor) {
    List<EntrySource> sources = new ArrayList<>();
    try {
      for (TableFile t : manifest.tables()) {
        if (t.overlaps(from, to)) {
          Table table = table(t);
          sources.add(new TableScan(table, openFile(tablePaths.get(t.number())), from, to));
        }
      }
      sources.add(logEntries(from, to, true).source());
      MergedScan.run(sources, visitor);
    } finally {
      for (EntrySource s : sources) {
        s.close();
      }
    }
  }

  private Table table(TableFile t) {
    Table table = opened.get(t.number());
    if (table == null) {
      Path path = tablePaths.get(t.number());
      try (FSDataInputStream in = openFile(path)) {
        table = Table.open(in, path.toString(), t);
      } catch (IOException e) {
        throw new IllegalArgumentException("Cannot read " + path + ": " + e.getMessage(), e);
      }
      opened.put(t.number(), table);
    }
    return table;
  }

  private LogEntries logEntries(byte[] from, byte[] to, boolean keepValues) {
    LogEntries entries = new LogEntries(from, to, keepValues);
    for (FileStatus log : logs) {
      entries.add(readWhole(fs, log), log.getPath().toString());
    }
    return entries;
  }

  private FSDataInputStream openFile(Path path) {
    try {
      return fs.open(path);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot read " + path + ": " + e.getMessage(), e);
    }
  }

  private static byte[] readWhole(FileSystem fs, FileStatus st) {
    if (st.getLen() > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          st.getPath() + " has " + st.getLen() + " bytes, more than this reader holds in memory");
    }
    byte[] buf = new byte[(int) st.getLen()];
    try (FSDataInputStream in = fs.open(st.getPath())) {
      in.readFully(0, buf, 0, buf.length);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot read " + st.getPath() + ": " + e.getMessage(), e);
    }
    return buf;
  }

  @Override
  public String toString() {
    return location;
  }
}
