package org.sparknet.apps.data.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.storage.StoragePath;

/**
 * An LMDB several times larger than the driver's heap: a JVM with a 64 MiB heap opens a 300 MB LMDB
 * (20,000 records of 3x64x64 bytes, written by python3-lmdb), counts it and splits it into 8 key
 * ranges, reading its meta and branch pages and one record only; then each range is scanned as an
 * executor scans it, every record exactly once. A build whose driver read every record while
 * opening the LMDB (to find the first) ran out of the probe's heap: "java.lang.OutOfMemoryError:
 * Java heap space", exit 1.
 */
class LmdbDriverHeapIT {
  private static final int RECORDS = 20_000;

  @Test
  void aDriverWithASmallHeapCountsAndSplitsALargeLmdb(@TempDir Path tmp) throws Exception {
    Path db = CaffeDbs.write(tmp, "big", "big", RECORDS);
    long size = Files.size(db.resolve("data.mdb"));
    long heap = 64L << 20;
    assertTrue(size > 4 * heap, "the LMDB is " + size + " bytes");
    String out = probe(db, heap, tmp.resolve("probe.log"));
    assertTrue(out.contains("count " + RECORDS), out);
    assertTrue(out.contains("shape [3, 64, 64]"), out);
    long ranges = out.lines().filter(l -> l.startsWith("range ")).count();
    assertEquals(8, ranges, out);

    AtomicLong seen = new AtomicLong();
    List<byte[]> last = new ArrayList<>(List.of(new byte[0]));
    try (LmdbStore store = LmdbStore.open(StoragePath.of(db))) {
      for (KeyRange r : store.split(8)) {
        store.scan(
            r,
            (k, v) -> {
              assertTrue(Arrays.compareUnsigned(k, last.get(0)) > 0, "keys in order, once each");
              last.set(0, k);
              seen.incrementAndGet();
            });
      }
    }
    assertEquals(RECORDS, seen.get());
  }

  private static String probe(Path db, long heap, Path log)
      throws IOException, InterruptedException {
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx" + (heap >> 20) + "m",
            "-cp",
            System.getProperty("java.class.path"),
            LmdbDriverProbe.class.getName(),
            db.toString(),
            "8");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    assertTrue(p.waitFor(2, TimeUnit.MINUTES), "the probe finished");
    String out = Files.readString(log, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    return out;
  }
}
