package org.sparknet.apps.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.sparknet.api.storage.StoragePath;

/**
 * System.out and System.err captured around each test, for CLI tests: {@code @RegisterExtension
 * final CapturedOutput io = new CapturedOutput();}.
 */
final class CapturedOutput implements BeforeEachCallback, AfterEachCallback {
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private PrintStream oldOut;
  private PrintStream oldErr;

  /**
   * Hadoop's file system warns once per JVM that it has no native library; loading it here, before
   * the streams are captured, keeps the one-line error checks from depending on the test order.
   */
  private static final boolean HADOOP_LOADED = StoragePath.of(Path.of(".")).exists();

  @Override
  public void beforeEach(ExtensionContext context) {
    oldOut = System.out;
    oldErr = System.err;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    System.setOut(oldOut);
    System.setErr(oldErr);
  }
}
