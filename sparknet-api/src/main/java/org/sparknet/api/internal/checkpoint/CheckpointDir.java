package org.sparknet.api.internal.checkpoint;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sparknet.api.storage.StoragePath;

/**
 * A directory of checkpoints on any Hadoop file system ({@code file:}, {@code hdfs:}, {@code
 * s3a:}): {@code round-000012.ckpt} files, the newest two kept, and a manifest {@code LATEST} that
 * names the newest complete one.
 *
 * <p>A crash must never leave a partial checkpoint that is read back as if it were complete. Each
 * checkpoint is written under a temporary name and renamed (atomic on HDFS and local file systems);
 * the manifest is updated only after that. Object stores have no atomic rename, so the reader
 * trusts nothing it has not verified: every checkpoint ends with a CRC of its contents, and a file
 * that fails it (or the manifest's target, when missing) is passed over for the next older one.
 */
public final class CheckpointDir {
  private static final Pattern NAME = Pattern.compile("round-(\\d{6,})\\.ckpt");
  private static final String MANIFEST = "LATEST";

  private final Path dir;
  private final FileSystem fs;

  public CheckpointDir(String dir, Configuration conf) throws IOException {
    this.dir = new Path(dir);
    this.fs = this.dir.getFileSystem(conf);
  }

  /**
   * Checks that checkpoints can be written here, before a run trains (see {@link
   * StoragePath#checkWritable}).
   */
  public void checkWritable() {
    StoragePath.checkWritable(fs, dir, true, "The checkpoint directory");
  }

  private static String fileName(int round) {
    return String.format("round-%06d.ckpt", round);
  }

  /** Writes {@code c}, points the manifest at it, and deletes all but the newest two. */
  public void write(Checkpoint c) throws IOException {
    fs.mkdirs(dir);
    String name = fileName(c.round());
    StoragePath.writeByRename(
        fs,
        new Path(dir, name),
        out -> {
          OutputStream buffered = new BufferedOutputStream(out, 1 << 20);
          c.encode(buffered);
          buffered.flush();
        });
    writeManifest(name);
    List<Integer> rounds = rounds();
    for (int i = 0; i + 2 < rounds.size(); i++) {
      fs.delete(new Path(dir, fileName(rounds.get(i))), false);
    }
  }

  private void writeManifest(String name) throws IOException {
    byte[] line = (name + "\n").getBytes(StandardCharsets.UTF_8);
    StoragePath.writeByRename(fs, new Path(dir, MANIFEST), out -> out.write(line));
  }

  /** Rounds of the checkpoint files in the directory, ascending. */
  private List<Integer> rounds() throws IOException {
    List<Integer> rounds = new ArrayList<>();
    if (!fs.exists(dir)) {
      return rounds;
    }
    for (FileStatus st : fs.listStatus(dir)) {
      Matcher m = NAME.matcher(st.getPath().getName());
      if (m.matches()) {
        rounds.add(Integer.parseInt(m.group(1)));
      }
    }
    rounds.sort(null);
    return rounds;
  }

  /**
   * The newest complete checkpoint, or null when the directory holds none. The manifest's target is
   * tried first; a checkpoint that cannot be read or fails its CRC is passed over for an older one.
   *
   * @throws IOException when checkpoints exist but none can be read
   */
  public Checkpoint readLatest() throws IOException {
    List<String> candidates = new ArrayList<>();
    String named = manifestTarget();
    if (named != null) {
      candidates.add(named);
    }
    List<Integer> rounds = rounds();
    for (int i = rounds.size() - 1; i >= 0; i--) {
      String name = fileName(rounds.get(i));
      if (!name.equals(named)) {
        candidates.add(name);
      }
    }
    IOException failure = null;
    for (String name : candidates) {
      Path p = new Path(dir, name);
      try (InputStream in = new BufferedInputStream(fs.open(p), 1 << 20)) {
        return Checkpoint.decode(in, p.toString());
      } catch (IOException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null && !rounds.isEmpty()) {
      throw failure;
    }
    return null;
  }

  private String manifestTarget() throws IOException {
    Path manifest = new Path(dir, MANIFEST);
    if (!fs.exists(manifest)) {
      return null;
    }
    try (InputStream in = fs.open(manifest)) {
      String name = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      return NAME.matcher(name).matches() ? name : null;
    }
  }

  @Override
  public String toString() {
    return dir.toString();
  }
}
