package org.sparknet.api.internal.driver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sparknet.api.storage.StoragePath;

/**
 * The metrics file of a training run on any Hadoop file system: one JSON object per round, one per
 * line. A run starts the file anew when it writes its first round, so runs never mix and a run that
 * fails before its first round leaves the file as it was; a run resumed from a checkpoint of round
 * r keeps the lines of rounds 1..r that the file already holds. Each line is flushed as it is
 * written (visible at once on HDFS and local disks; on object stores, when the trainer closes).
 */
public final class MetricsLog implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path path;
  private final FileSystem fs;
  private List<String> kept = List.of();
  private FSDataOutputStream out;

  public MetricsLog(String uri, Configuration conf) {
    this.path = new Path(uri);
    try {
      // Unchecked, so that each line is visible at once.
      this.fs = StoragePath.withoutChecksums(path.getFileSystem(conf));
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot open the metrics file " + uri + ": " + e, e);
    }
  }

  /**
   * The log of {@code uri}, {@link #start started} for a run resumed at {@code resumedRound} (0: a
   * new run), or null when there is no file.
   */
  public static MetricsLog started(Optional<String> uri, Configuration conf, int resumedRound) {
    if (uri.isEmpty()) {
      return null;
    }
    MetricsLog log = new MetricsLog(uri.get(), conf);
    log.start(resumedRound);
    return log;
  }

  /**
   * Reads the lines a resumed run keeps: those of rounds up to {@code resumedRound} (none for a new
   * run), and checks that the file can be written, so that a run does not train before finding out
   * that it cannot log; the file itself is not touched until the first {@link #append}.
   */
  public void start(int resumedRound) {
    StoragePath.checkWritable(fs, path, false, "The metrics file");
    try {
      kept = resumedRound > 0 ? linesUpTo(resumedRound) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the metrics file " + path, e);
    }
  }

  private void open() throws IOException {
    if (path.getParent() != null) {
      fs.mkdirs(path.getParent());
    }
    out = fs.create(path, true);
    for (String line : kept) {
      writeLine(line);
    }
    kept = List.of();
  }

  private List<String> linesUpTo(int round) throws IOException {
    List<String> kept = new ArrayList<>();
    if (!fs.exists(path)) {
      return kept;
    }
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(fs.open(path), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        JsonNode n = parse(line);
        if (n != null && n.path("round").asInt(Integer.MAX_VALUE) <= round) {
          kept.add(line);
        }
      }
    }
    return kept;
  }

  private static JsonNode parse(String line) {
    try {
      return JSON.readTree(line);
    } catch (IOException e) {
      return null; // a line cut short by a crash
    }
  }

  /** Appends one line (a JSON object without newline) and flushes it. */
  public void append(String jsonLine) {
    try {
      if (out == null) {
        open();
      }
      writeLine(jsonLine);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot append to the metrics file " + path, e);
    }
  }

  private void writeLine(String line) throws IOException {
    out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    out.hflush();
  }

  @Override
  public void close() {
    if (out == null) {
      return;
    }
    try {
      out.close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot close the metrics file " + path, e);
    } finally {
      out = null;
    }
  }
}
