package org.sparknet.bench.loop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Rewrites named sections of a Markdown file in place. A section is the text between {@code <!--
 * bench:NAME:begin -->} and {@code <!-- bench:NAME:end -->}; everything outside the markers is kept
 * byte for byte. A section whose markers are absent is appended at the end of the file.
 */
public final class MarkdownSections {
  private MarkdownSections() {}

  /** A line appended to each rewritten section but the setup, naming the run that measured it. */
  private static volatile String stamp;

  /**
   * Stamps every section rewritten from now on with {@code line} (the date and command of the run),
   * so that a section kept from an earlier run still says when it was measured.
   */
  public static void stampSections(String line) {
    stamp = line;
  }

  public static String begin(String name) {
    return "<!-- bench:" + name + ":begin -->";
  }

  public static String end(String name) {
    return "<!-- bench:" + name + ":end -->";
  }

  /** {@code document} with section {@code name} replaced by (or extended with) {@code body}. */
  public static String replace(String document, String name, String body) {
    String b = begin(name);
    String e = end(name);
    String block = b + "\n" + (body.endsWith("\n") ? body : body + "\n") + e;
    int i = document.indexOf(b);
    int j = document.indexOf(e);
    if (i < 0 && j < 0) {
      String sep =
          document.isEmpty() || document.endsWith("\n\n")
              ? ""
              : document.endsWith("\n") ? "\n" : "\n\n";
      return document + sep + block + "\n";
    }
    if (i < 0 || j < i || document.indexOf(b, i + 1) >= 0 || document.indexOf(e, j + 1) >= 0) {
      throw new IllegalArgumentException(
          "Section '"
              + name
              + "' needs exactly one '"
              + b
              + "' followed by one '"
              + e
              + "'; fix the markers by hand or delete both");
    }
    return document.substring(0, i) + block + document.substring(j + e.length());
  }

  /** Replaces section {@code name} of the file (created when absent). */
  public static void rewrite(Path file, String name, String body) {
    if (stamp != null && !name.endsWith("-setup")) {
      body = (body.endsWith("\n") ? body : body + "\n") + "\n" + stamp + "\n";
    }
    try {
      String doc = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, replace(doc, name, body), StandardCharsets.UTF_8);
    } catch (IOException ex) {
      throw new UncheckedIOException("Cannot rewrite section '" + name + "' of " + file, ex);
    }
  }
}
