package org.sparknet.testing;

import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.sparknet.ndarray.Storage;

/**
 * Fails a test that leaves native memory allocated: owning {@link Storage} blocks (NDArrays) and
 * every JavaCPP allocation ({@link Pointer#totalBytes()}, which counts Caffe objects created
 * through the presets too).
 *
 * <p>JavaCPP keeps {@link Pointer#totalBytes()} only while its garbage-collector tracking is on:
 * under {@code -Dorg.bytedeco.javacpp.nopointergc=true} it stays 0 and JavaCPP leaks cannot be
 * seen. This check probes the accounting once and prints a warning to stderr when it is off; the
 * {@link Storage} half works either way.
 *
 * <p>Registered for every test through JUnit's extension auto-detection (this test-jar's
 * META-INF/services); a class that keeps native state across its tests on purpose (a net built once
 * in {@code @BeforeAll}) is still checked per test, since that state exists before each test begins
 * and after it ends.
 */
public final class NativeLeakCheck implements BeforeEachCallback, AfterEachCallback {
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(NativeLeakCheck.class);

  private record Snapshot(long blocks, long storageBytes, long javacppBytes) {}

  /** Whether {@link Pointer#totalBytes()} counts allocations in this JVM (probed once). */
  public static final boolean JAVACPP_ACCOUNTING = probeAccounting();

  private static boolean probeAccounting() {
    long before = Pointer.totalBytes();
    boolean counts;
    try (FloatPointer probe = new FloatPointer(256)) {
      counts = Pointer.totalBytes() >= before + 256 * Float.BYTES;
    }
    if (!counts) {
      System.err.println(
          "NativeLeakCheck: JavaCPP does not count Pointer.totalBytes() in this JVM"
              + " (-Dorg.bytedeco.javacpp.nopointergc=true?): JavaCPP leaks will not be detected,"
              + " only NDArray storage leaks.");
    }
    return counts;
  }

  private static Snapshot take() {
    return new Snapshot(Storage.liveOwnedBlocks(), Storage.liveOwnedBytes(), Pointer.totalBytes());
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    context.getStore(NS).put("before", take());
  }

  @Override
  public void afterEach(ExtensionContext context) {
    Snapshot before = context.getStore(NS).remove("before", Snapshot.class);
    if (before == null || context.getExecutionException().isPresent()) {
      return; // the test already failed; do not hide its reason
    }
    Snapshot after = take();
    if (after.blocks() != before.blocks() || after.storageBytes() != before.storageBytes()) {
      throw new AssertionError(
          "Native memory leak in "
              + context.getDisplayName()
              + ": "
              + (after.blocks() - before.blocks())
              + " NDArray storage blocks ("
              + (after.storageBytes() - before.storageBytes())
              + " bytes) were allocated and not closed");
    }
    if (after.javacppBytes() > before.javacppBytes()) {
      throw new AssertionError(
          "Native memory leak in "
              + context.getDisplayName()
              + ": JavaCPP holds "
              + (after.javacppBytes() - before.javacppBytes())
              + " more bytes than before the test; close every Pointer you create");
    }
  }
}
