package org.sparknet.apps.data.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * LevelDBs written by Google's LevelDB through Debian's python3-plyvel ({@code
 * leveldb/write_leveldb.py}), with the records the script says they hold, and the checks that
 * compare a store's records with them.
 */
final class LevelDbFixtures {
  private LevelDbFixtures() {}

  /**
   * A database the script wrote: its directory, its live records as "key TAB SHA-256 of value"
   * lines in key order, and its number of tables at each level as LevelDB reports them.
   */
  record Written(Path dir, List<String> records, int[] tablesPerLevel) {}

  /** Writes the {@code kind} ("snappy" or "none") database into {@code dir}. */
  static Written write(Path dir, String kind) throws IOException, InterruptedException {
    Path expected = dir.resolveSibling(dir.getFileName() + ".expected");
    Path layout = dir.resolveSibling(dir.getFileName() + ".layout");
    python(dir.toString(), kind, expected.toString(), layout.toString());
    int[] levels =
        Arrays.stream(Files.readString(layout).trim().split(" "))
            .mapToInt(Integer::parseInt)
            .toArray();
    return new Written(dir, Files.readAllLines(expected), levels);
  }

  /** Runs the script with {@code args}; it fails the test when the script fails. */
  static void python(String... args) throws IOException, InterruptedException {
    Path script;
    try {
      script = Path.of(LevelDbFixtures.class.getResource("/leveldb/write_leveldb.py").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    List<String> cmd = new ArrayList<>(List.of("/usr/bin/python3", script.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "write_leveldb.py did not finish");
    assertEquals(0, p.exitValue(), "write_leveldb.py " + String.join(" ", args) + ": " + output);
  }

  /** The records of {@code range} as the script lists them: key, tab, SHA-256 of the value. */
  static List<String> scan(RecordStore store, KeyRange range) {
    List<String> out = new ArrayList<>();
    store.scan(
        range,
        (key, value) -> out.add(new String(key, StandardCharsets.US_ASCII) + "\t" + sha256(value)));
    return out;
  }

  /** Fails with the counts and the first record that differs, not two lists of thousands. */
  static void assertSameRecords(List<String> expected, List<String> actual, String what) {
    int i = 0;
    while (i < expected.size() && i < actual.size() && expected.get(i).equals(actual.get(i))) {
      i++;
    }
    if (i < expected.size() || i < actual.size()) {
      fail(
          String.format(
              "%s gave %d records where LevelDB holds %d; first difference at #%d: expected %s,"
                  + " got %s",
              what,
              actual.size(),
              expected.size(),
              i,
              i < expected.size() ? expected.get(i) : "nothing",
              i < actual.size() ? actual.get(i) : "nothing"));
    }
  }

  private static String sha256(byte[] value) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(value));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
