package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/sparknet with a Java older than 17 first on the PATH: one clear line and exit 2, before it
 * builds or starts anything (without the check, Spark's classes fail to load with an
 * UnsupportedClassVersionError much later). The old Java is a script that answers -version as
 * OpenJDK 11 does.
 */
class LauncherTest {
  @TempDir Path tmp;

  @Test
  void javaOlderThan17IsRefusedWithAClearMessage() throws Exception {
    Path java = tmp.resolve("java");
    Files.writeString(
        java, "#!/bin/sh\necho 'openjdk version \"11.0.2\" 2019-01-15' >&2\nexit 0\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path root = Path.of("..").toAbsolutePath().normalize();
    ProcessBuilder pb =
        new ProcessBuilder("bin/sparknet", "--help")
            .directory(root.toFile())
            .redirectErrorStream(true);
    pb.environment().remove("JAVA_HOME");
    pb.environment().put("PATH", tmp + ":" + System.getenv("PATH"));
    Process p = pb.start();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(2, p.exitValue(), out);
    assertEquals(1, out.strip().lines().count(), out);
    assertTrue(out.contains("Java 11.0.2, SparkNet needs 17 or newer: set JAVA_HOME"), out);
  }
}
