package org.sparknet.api.internal.wire;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A worker's connection to the asynchronous trainer's parameter server on the driver, and the
 * protocol both ends speak: the worker says its partition once, then repeats pull (the server
 * answers whether steps are left in the round's budget, how many, and the current weights with
 * their version) and push (its update, the version it was computed from, and what it fed).
 */
public final class ServerLink implements Closeable {
  public static final byte PULL = 1;
  public static final byte PUSH = 2;
  private static final int BUFFER = 1 << 16;
  private static final int CONNECT_MILLIS = 30_000;

  /** Where the server listens (travels with the job's tasks). */
  public record Address(String host, int port) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /**
   * The server's answer to a pull.
   *
   * @param steps the steps granted (0: the round's budget is spent, stop)
   */
  public record Pull(long version, int steps, float[] weights) {}

  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;

  private ServerLink(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), BUFFER));
    this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), BUFFER));
  }

  /** Connects partition {@code partition}'s worker to the server. */
  public static ServerLink connect(Address a, int partition) {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.connect(new InetSocketAddress(a.host(), a.port()), CONNECT_MILLIS);
      ServerLink link = new ServerLink(s);
      link.out.writeInt(partition);
      link.out.flush();
      return link;
    } catch (IOException e) {
      closeQuietly(s);
      throw new UncheckedIOException(
          "Cannot reach the SparkNet parameter server at " + a.host() + ":" + a.port(), e);
    }
  }

  /** Asks for the current weights and the next steps; {@code into} is reused when it fits. */
  public Pull pull(float[] into) {
    try {
      out.writeByte(PULL);
      out.flush();
      int steps = in.readInt();
      if (steps == 0) {
        return new Pull(0, 0, null);
      }
      long version = in.readLong();
      return new Pull(version, steps, readFloats(in, into));
    } catch (IOException e) {
      throw new UncheckedIOException("The SparkNet parameter server stopped answering a pull", e);
    }
  }

  /** Pushes an update computed from weights of {@code version}; whether the server applied it. */
  public boolean push(long version, float[] update, long examples, long steps, double lossSum) {
    try {
      out.writeByte(PUSH);
      out.writeLong(version);
      out.writeLong(examples);
      out.writeLong(steps);
      out.writeDouble(lossSum);
      writeFloats(out, update);
      out.flush();
      return in.readBoolean();
    } catch (IOException e) {
      throw new UncheckedIOException("The SparkNet parameter server stopped answering a push", e);
    }
  }

  @Override
  public void close() {
    closeQuietly(socket);
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // nothing left to release
    }
  }

  /** Writes a length and the floats, little-endian. */
  public static void writeFloats(DataOutputStream out, float[] v) throws IOException {
    out.writeInt(v.length);
    byte[] chunk = new byte[Math.min(BUFFER, v.length * Float.BYTES)];
    ByteBuffer b = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
    int per = chunk.length / Float.BYTES;
    for (int i = 0; i < v.length; i += per) {
      int n = Math.min(per, v.length - i);
      b.clear();
      b.asFloatBuffer().put(v, i, n);
      out.write(chunk, 0, n * Float.BYTES);
    }
  }

  /** Reads what {@link #writeFloats} wrote, into {@code into} when it has the length. */
  public static float[] readFloats(DataInputStream in, float[] into) throws IOException {
    int len = in.readInt();
    float[] v = into != null && into.length == len ? into : new float[len];
    byte[] chunk = new byte[Math.min(BUFFER, len * Float.BYTES)];
    ByteBuffer b = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
    int per = chunk.length / Float.BYTES;
    for (int i = 0; i < len; i += per) {
      int n = Math.min(per, len - i);
      in.readFully(chunk, 0, n * Float.BYTES);
      b.clear();
      b.asFloatBuffer().get(v, i, n);
    }
    return v;
  }
}
