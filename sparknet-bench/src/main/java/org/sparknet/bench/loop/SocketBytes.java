package org.sparknet.bench.loop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * Bytes a JVM sent and received on TCP sockets, counted exactly by the JDK's own Flight Recorder
 * events {@code jdk.SocketRead} and {@code jdk.SocketWrite} with their threshold at 0 (every call
 * recorded, not only slow ones): they cover {@code java.net.Socket} streams (SparkNet's ring and
 * parameter-server links) and NIO socket channels (Spark's Netty RPC and block transfers) alike. A
 * JVM records into a file ({@link #jvmOption} for executors, {@link #start} in-process); {@link
 * #in} sums a file's bytes over time windows, each call counted in the window its end falls in.
 */
final class SocketBytes {
  static final String READ = "jdk.SocketRead";
  static final String WRITE = "jdk.SocketWrite";

  private SocketBytes() {}

  /** Bytes received and sent in one window. */
  record Window(long received, long sent) {
    long total() {
      return received + sent;
    }
  }

  /** A time window, epoch milliseconds, both ends included. */
  record Span(long fromMillis, long toMillis) {}

  /** A recording of this JVM's socket calls, started now. */
  static Recording start() {
    Recording r = new Recording();
    for (String e : List.of(READ, WRITE)) {
      r.enable(e).withThreshold(Duration.ZERO).withoutStackTrace();
    }
    r.setToDisk(true);
    r.start();
    return r;
  }

  /** Writes the settings file that {@link #jvmOption} points another JVM at. */
  static Path writeSettings(Path dir) {
    StringBuilder s =
        new StringBuilder(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<configuration version=\"2.0\">\n");
    for (String e : List.of(READ, WRITE)) {
      s.append("  <event name=\"")
          .append(e)
          .append("\"><setting name=\"enabled\">true</setting>")
          .append("<setting name=\"stackTrace\">false</setting>")
          .append("<setting name=\"threshold\">0 ms</setting></event>\n");
    }
    s.append("</configuration>\n");
    try {
      Path f = Files.createDirectories(dir).resolve("socket-bytes.jfc");
      Files.writeString(f, s);
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The JVM flag that records a JVM's socket calls into {@code file}, written at exit. */
  static String jvmOption(Path settings, Path file) {
    return "-XX:StartFlightRecording=settings="
        + settings.toAbsolutePath()
        + ",filename="
        + file.toAbsolutePath()
        + ",dumponexit=true";
  }

  /** The bytes of {@code file}'s socket calls that ended within each span. */
  static Window[] in(Path file, List<Span> spans) {
    long[] rx = new long[spans.size()];
    long[] tx = new long[spans.size()];
    try (RecordingFile f = new RecordingFile(file)) {
      while (f.hasMoreEvents()) {
        RecordedEvent e = f.readEvent();
        String type = e.getEventType().getName();
        boolean read = type.equals(READ);
        if (!read && !type.equals(WRITE)) {
          continue;
        }
        long end = e.getEndTime().toEpochMilli();
        for (int i = 0; i < spans.size(); i++) {
          if (end >= spans.get(i).fromMillis() && end <= spans.get(i).toMillis()) {
            if (read) {
              rx[i] += Math.max(0, e.getLong("bytesRead"));
            } else {
              tx[i] += e.getLong("bytesWritten");
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the recording " + file, e);
    }
    Window[] w = new Window[spans.size()];
    for (int i = 0; i < w.length; i++) {
      w[i] = new Window(rx[i], tx[i]);
    }
    return w;
  }

  /** A span from {@code from} to now. */
  static Span since(Instant from) {
    return new Span(from.toEpochMilli(), System.currentTimeMillis());
  }
}
