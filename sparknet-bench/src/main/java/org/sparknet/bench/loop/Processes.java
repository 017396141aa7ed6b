package org.sparknet.bench.loop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/** The processes the benchmark starts: child JVMs, the demo as a user runs it, and Maven. */
final class Processes {
  private Processes() {}

  /**
   * Starts {@code pb}, hands each line of its standard output to {@code eachLine} as it comes, and
   * returns its exit status once it ends.
   *
   * @throws UncheckedIOException when it cannot start, naming {@code what}
   */
  static int run(ProcessBuilder pb, String what, Consumer<String> eachLine) {
    try {
      Process p = pb.start();
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          eachLine.accept(line);
        }
      }
      return p.waitFor();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot run " + what, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while " + what + " ran", e);
    }
  }

  /**
   * {@code mvn -B -q}, then the words of $MAVEN_ARGS (as bench/run passes them), then {@code args}.
   */
  static List<String> maven(String... args) {
    List<String> cmd = new ArrayList<>(List.of("mvn", "-B", "-q"));
    String extra = System.getenv("MAVEN_ARGS");
    if (extra != null && !extra.isBlank()) {
      cmd.addAll(Arrays.asList(extra.trim().split("\\s+")));
    }
    cmd.addAll(Arrays.asList(args));
    return cmd;
  }
}
