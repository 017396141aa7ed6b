package org.sparknet.bench.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scaling benchmark's byte accounting: every byte sent and received on a socket stream (as
 * SparkNet's ring and parameter-server links use) and on an NIO channel (as Spark's Netty does) is
 * counted once, in the window its call ends in, both in this JVM and in another JVM started with
 * {@link SocketBytes#jvmOption}. Sizes are small and calls fast on purpose: the Flight Recorder's
 * default threshold (20 ms, in the settings files) keeps only slow calls. Taking {@code
 * withThreshold(Duration.ZERO)} out of {@link SocketBytes#start} left this test green: a recording
 * enabled through the API starts these events at 0 ms, so the in-process call only states it; the
 * other JVM's settings file sets the threshold that matters there.
 */
class SocketBytesTest {

  /** Sends {@code sizes} through a loopback socket stream and reads them back; returns the sum. */
  static long streamTransfer(int... sizes) throws Exception {
    long total = 0;
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
        Socket accepted = server.accept()) {
      OutputStream out = client.getOutputStream();
      DataInputStream in = new DataInputStream(accepted.getInputStream());
      for (int n : sizes) {
        out.write(new byte[n]);
        out.flush();
        in.readFully(new byte[n]);
        total += n;
      }
    }
    return total;
  }

  /** Sends {@code n} bytes through a loopback NIO channel and reads them back. */
  static long channelTransfer(int n) throws IOException {
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      try (SocketChannel client = SocketChannel.open(server.getLocalAddress());
          SocketChannel accepted = server.accept()) {
        ByteBuffer out = ByteBuffer.allocate(n);
        ByteBuffer in = ByteBuffer.allocate(n);
        while (out.hasRemaining() || in.hasRemaining()) {
          if (out.hasRemaining()) {
            client.write(out);
          }
          accepted.read(in);
        }
      }
    }
    return n;
  }

  @Test
  void countsEveryByteOfStreamsAndChannelsInTheWindowItsCallEndsIn(@TempDir Path dir)
      throws Exception {
    Recording rec = SocketBytes.start();
    List<SocketBytes.Span> spans = new ArrayList<>();
    Instant t0 = Instant.now();
    long first = streamTransfer(100_000, 1, 12_345) + channelTransfer(51_111);
    spans.add(SocketBytes.since(t0));
    Thread.sleep(200);
    Instant t1 = Instant.now();
    long second = streamTransfer(7);
    spans.add(SocketBytes.since(t1));
    rec.stop();
    Path file = dir.resolve("self.jfr");
    rec.dump(file);
    rec.close();
    SocketBytes.Window[] w = SocketBytes.in(file, spans);
    assertEquals(163_457, first);
    // Both ends are in this JVM: each byte is sent once and received once.
    assertEquals(new SocketBytes.Window(first, first), w[0], "first window");
    assertEquals(new SocketBytes.Window(second, second), w[1], "second window");
  }

  /** The other JVM of the test below: sends 70,000 bytes and 1 through loopback, then exits. */
  public static void main(String[] args) throws Exception {
    System.out.println(Instant.now().toEpochMilli());
    System.out.println(streamTransfer(70_000, 1));
    System.out.println(Instant.now().toEpochMilli());
  }

  @Test
  void anotherJvmStartedWithTheOptionRecordsEveryByteAtExit(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("child.jfr");
    Path settings = SocketBytes.writeSettings(dir);
    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            SocketBytes.jvmOption(settings, file),
            "-cp",
            System.getProperty("java.class.path"),
            SocketBytesTest.class.getName());
    pb.redirectError(dir.resolve("child.err").toFile());
    Process p = pb.start();
    List<String> out = new String(p.getInputStream().readAllBytes()).lines().toList();
    p.waitFor(60, TimeUnit.SECONDS);
    assertEquals(0, p.exitValue(), "child exit; its stderr is in " + dir);
    long from = Long.parseLong(out.get(out.size() - 3));
    long sent = Long.parseLong(out.get(out.size() - 2));
    long to = Long.parseLong(out.get(out.size() - 1));
    SocketBytes.Window[] w = SocketBytes.in(file, List.of(new SocketBytes.Span(from, to)));
    assertEquals(70_001, sent);
    assertEquals(new SocketBytes.Window(sent, sent), w[0]);
  }
}
