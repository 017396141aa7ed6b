package org.sparknet.caffe.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The message for natives that cannot load, from the error chain JavaCPP gave on a headless CUDA
 * server image without GTK 2 (an H100 machine; the messages below are the ones it printed). Without
 * NativeLoadFailure the CLI printed the UnsatisfiedLinkError's class, "no jniopencv_highgui in
 * java.library.path: ..." and the root cause's whole path.
 */
class NativeLoadFailureTest {
  @Test
  void aMissingGtkIsNamedWithItsPackage() {
    UnsatisfiedLinkError cause =
        new UnsatisfiedLinkError(
            "/root/.javacpp/cache/opencv-4.6.0-1.5.8-linux-x86_64.jar/org/bytedeco/opencv/"
                + "linux-x86_64/libjniopencv_highgui.so: libgtk-x11-2.0.so.0: cannot open shared"
                + " object file: No such file or directory");
    UnsatisfiedLinkError e =
        new UnsatisfiedLinkError(
            "no jniopencv_highgui in java.library.path: /usr/java/packages/lib:/usr/lib");
    e.initCause(cause);
    IllegalArgumentException out = NativeLoadFailure.of(e);
    assertTrue(
        out.getMessage()
            .startsWith(
                "Caffe's native libraries cannot be loaded on this machine:"
                    + " libgtk-x11-2.0.so.0 is missing"),
        out.getMessage());
    assertTrue(out.getMessage().contains("install libgtk2.0-0"), out.getMessage());
    assertSame(e, out.getCause(), "the original error stays reachable (--debug)");
  }

  @Test
  void anotherMissingLibraryIsNamed() {
    IllegalArgumentException out =
        NativeLoadFailure.of(
            new UnsatisfiedLinkError(
                "/tmp/libjniopenblas.so: libgfortran.so.5: cannot open shared object file"));
    assertEquals(
        "Caffe's native libraries cannot be loaded on this machine: libgfortran.so.5 is missing:"
            + " install the package that provides it",
        out.getMessage());
  }

  @Test
  void anUnknownFailureKeepsItsMessage() {
    IllegalArgumentException out = NativeLoadFailure.of(new UnsatisfiedLinkError("odd"));
    assertEquals(
        "Caffe's native libraries cannot be loaded on this machine: odd", out.getMessage());
  }
}
