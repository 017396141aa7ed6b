package org.sparknet.caffe.internal;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Says which system library kept Caffe's natives from loading. JavaCPP reports it deep in an {@link
 * UnsatisfiedLinkError} chain ("no jniopencv_highgui in java.library.path", caused by
 * "libgtk-x11-2.0.so.0: cannot open shared object file"); a headless server image without GTK 2,
 * which libcaffe needs through OpenCV's highgui, is the usual case.
 */
final class NativeLoadFailure {
  /** The loader's message for a library it cannot find; group 1 is its name. */
  static final Pattern MISSING =
      Pattern.compile("([\\w.+-]+\\.so(?:\\.[\\w.]+)?): cannot open shared object file");

  private NativeLoadFailure() {}

  /** The error to throw for {@code e}: one message naming the missing library and its package. */
  static IllegalArgumentException of(UnsatisfiedLinkError e) {
    String missing = null;
    for (Throwable t = e; t != null && missing == null; t = t.getCause()) {
      Matcher m = MISSING.matcher(String.valueOf(t.getMessage()));
      if (m.find()) {
        missing = m.group(1);
      }
    }
    String message =
        missing == null
            ? "Caffe's native libraries cannot be loaded on this machine: " + e.getMessage()
            : "Caffe's native libraries cannot be loaded on this machine: "
                + missing
                + " is missing"
                + hint(missing);
    return new IllegalArgumentException(message, e);
  }

  private static String hint(String library) {
    if (library.startsWith("libgtk-x11-2.0")) {
      return " (libcaffe links OpenCV's highgui, which needs GTK 2): install libgtk2.0-0"
          + " (apt-get install libgtk2.0-0; libgtk2.0-0t64 on Debian 13 and Ubuntu 24.04)";
    }
    return ": install the package that provides it";
  }
}
