package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/getGpusResources.sh, the discovery script that standalone GPU workers run (docker/ uses it):
 * the JSON Spark reads, one address per device nvidia-smi lists; a clear failure without a driver.
 * nvidia-smi is replaced by a script printing what the real one prints for {@code --query-gpu=index
 * --format=csv,noheader}.
 *
 * <p>Broken build this catches: the script without the quotes around each address printed {@code
 * "addresses": [0, 1, 2]}, which Spark does not read (its addresses are strings).
 */
class GpuDiscoveryScriptTest {
  static final Path SCRIPT =
      Path.of("..", "bin", "getGpusResources.sh").toAbsolutePath().normalize();

  @TempDir Path tmp;

  /**
   * A directory holding {@code getGpusResources.sh}, which runs the shipped script with an
   * nvidia-smi that prints {@code indexLines}.
   */
  static Path withDevices(Path dir, String indexLines) throws IOException {
    Path bin = Files.createDirectories(dir.resolve("fake-driver"));
    executable(
        bin.resolve("nvidia-smi"), "#!/bin/sh\nprintf '" + indexLines.replace("\n", "\\n") + "'\n");
    executable(
        dir.resolve("getGpusResources.sh"),
        "#!/bin/sh\nPATH=\"" + bin + ":$PATH\" exec \"" + SCRIPT + "\"\n");
    return dir;
  }

  private static void executable(Path file, String text) throws IOException {
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  @Test
  void listsOneAddressPerDeviceAsSparkReadsIt() throws Exception {
    assertEquals(
        "{\"name\": \"gpu\", \"addresses\": [\"0\", \"1\", \"2\"]}\n",
        run(withDevices(tmp, "0\n1\n2\n").resolve("getGpusResources.sh"), null).out());
    assertEquals(
        "{\"name\": \"gpu\", \"addresses\": [\"0\"]}\n",
        run(withDevices(tmp.resolve("one"), "0\n").resolve("getGpusResources.sh"), null).out());
  }

  @Test
  void withoutADriverItFailsSayingSo() throws Exception {
    Result r = run(SCRIPT, Files.createDirectories(tmp.resolve("no-driver")).toString());
    assertEquals(1, r.exit(), r.out());
    assertTrue(r.out().contains("nvidia-smi not found"), r.out());
  }

  private record Result(int exit, String out) {}

  private static Result run(Path script, String path) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(script.toString()).redirectErrorStream(true);
    if (path != null) {
      pb.environment().put("PATH", path);
    }
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    return new Result(p.exitValue(), out);
  }
}
