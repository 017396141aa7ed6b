package org.sparknet.api.internal.worker;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntToDoubleFunction;
import java.util.function.Supplier;

/**
 * The connections of one task in an all-reduce ring for one round, and the two passes over them:
 * reduce-scatter (each task ends with the sum of one chunk) and all-gather (each task ends with
 * every chunk). Task {@code i} sends to {@code i + 1} and receives from {@code i - 1}; a sender
 * thread writes while the task's thread reads, so neither side waits for the other's buffers.
 *
 * <p>Partial sums travel in double (8 bytes a value), so the sum is the driver's {@code
 * Averager.Sum} up to the order of its additions; the finished chunks travel in float (4 bytes).
 * Everything is closed by {@link #close}, also after a failure: the server socket, both connections
 * and the sender thread (named {@value #THREAD_PREFIX}...).
 */
public final class RingSum implements AutoCloseable {
  /** The prefix of the sender threads' names. */
  public static final String THREAD_PREFIX = "sparknet-ring-";

  private static final AtomicInteger OPEN_SOCKETS = new AtomicInteger();
  private static final int BLOCK = 1 << 17;
  private static final int POLL_MILLIS = 500;
  private static final int CONNECT_MILLIS = 60_000;

  private final int rank;
  private final int size;
  private final Supplier<Boolean> killed;
  private final ServerSocket server;
  private final ExecutorService sender;
  private Socket right;
  private Socket left;
  private DataOutputStream out;
  private DataInputStream in;
  private boolean closed;
  private final ByteBuffer sendBlock =
      ByteBuffer.allocate(BLOCK * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private final ByteBuffer recvBlock =
      ByteBuffer.allocate(BLOCK * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);

  /**
   * Listens on {@code host} (the executor's address) for the left neighbour; {@link #port} is
   * published to the others before {@link #connect}.
   *
   * @param killed whether the task was killed (checked while a read waits)
   */
  RingSum(String name, int rank, int size, String host, Supplier<Boolean> killed)
      throws IOException {
    this.rank = rank;
    this.size = size;
    this.killed = killed;
    this.server = new ServerSocket();
    OPEN_SOCKETS.incrementAndGet();
    ExecutorService s = null;
    try {
      server.bind(new InetSocketAddress(InetAddress.getByName(host), 0), 1);
      server.setSoTimeout(POLL_MILLIS);
      s =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, THREAD_PREFIX + name + "-p" + rank);
                t.setDaemon(true);
                return t;
              });
    } catch (IOException | RuntimeException e) {
      closeQuietly(server);
      throw e;
    }
    this.sender = s;
  }

  /**
   * Runs {@code exchange} (the barrier's allGather of the tasks' addresses) on the sender thread,
   * which is idle until the sums begin: Spark's barrier calls wait in steps of a second, and this
   * way the wait overlaps the round's training.
   */
  Future<String[]> publish(java.util.concurrent.Callable<String[]> exchange) {
    return sender.submit(exchange);
  }

  /** Ring sockets open in this JVM (server sockets and connections; the leak checks read it). */
  public static int openSockets() {
    return OPEN_SOCKETS.get();
  }

  int rank() {
    return rank;
  }

  int port() {
    return server.getLocalPort();
  }

  /** Connects to the right neighbour at {@code host:port} and accepts the left one. */
  void connect(String host, int port, int attempt) throws IOException {
    right = new Socket();
    OPEN_SOCKETS.incrementAndGet();
    right.setTcpNoDelay(true);
    right.connect(new InetSocketAddress(host, port), CONNECT_MILLIS);
    out = new DataOutputStream(new BufferedOutputStream(right.getOutputStream(), 1 << 16));
    out.writeInt(rank);
    out.writeInt(attempt);
    out.flush();
    long deadline = System.nanoTime() + CONNECT_MILLIS * 1_000_000L;
    while (left == null) {
      try {
        left = server.accept();
        OPEN_SOCKETS.incrementAndGet();
      } catch (SocketTimeoutException e) {
        checkAlive(
            System.nanoTime() > deadline ? "no connection from partition " + leftRank() : "");
      }
    }
    left.setSoTimeout(POLL_MILLIS);
    in = new DataInputStream(new BufferedInputStream(left.getInputStream(), 1 << 16));
    byte[] hello = new byte[8];
    readFully(hello, 8);
    ByteBuffer h = ByteBuffer.wrap(hello);
    int from = h.getInt();
    int theirAttempt = h.getInt();
    if (from != leftRank() || theirAttempt != attempt) {
      throw new IOException(
          "Ring of partition "
              + rank
              + ": expected partition "
              + leftRank()
              + " of stage attempt "
              + attempt
              + " but partition "
              + from
              + " of attempt "
              + theirAttempt
              + " connected");
    }
  }

  private int leftRank() {
    return Math.floorMod(rank - 1, size);
  }

  /** The first value of chunk {@code k} of {@code n} values. */
  static int chunkStart(int k, int n, int chunks) {
    return (int) ((long) k * n / chunks);
  }

  /**
   * Reduce-scatter: returns the sum over all tasks of chunk {@code (rank + 1) mod size} of {@code
   * n} values, each task's share given by {@code own} (indexed over the whole vector), after the
   * sum of {@code header}: each chunk travels with the task's header in front, so that every
   * chunk's owner learns the header's total (the weights, whether any task diverged) with its sum.
   */
  double[] reduceScatter(int n, IntToDoubleFunction own, double[] header) throws IOException {
    int h = header.length;
    int max = chunkStart(1, n, size) + 1 + h;
    double[] sending = new double[max];
    double[] receiving = new double[max];
    for (int s = 0; s < size - 1; s++) {
      int sendChunk = Math.floorMod(rank - s, size);
      int recvChunk = Math.floorMod(rank - s - 1, size);
      int sFrom = chunkStart(sendChunk, n, size);
      int sLen = chunkStart(sendChunk + 1, n, size) - sFrom + h;
      double[] partial = sending;
      IntToDoubleFunction source = s == 0 ? withHeader(header, own, sFrom) : j -> partial[j];
      Future<?> sent = sender.submit(() -> sendDoubles(sLen, source));
      int rFrom = chunkStart(recvChunk, n, size);
      int rLen = chunkStart(recvChunk + 1, n, size) - rFrom + h;
      receiveDoubles(rLen, receiving, withHeader(header, own, rFrom));
      await(sent);
      double[] t = sending;
      sending = receiving;
      receiving = t;
    }
    int mine = Math.floorMod(rank + 1, size);
    int len = chunkStart(mine + 1, n, size) - chunkStart(mine, n, size) + h;
    if (size == 1) {
      IntToDoubleFunction all = withHeader(header, own, 0);
      for (int j = 0; j < len; j++) {
        sending[j] = all.applyAsDouble(j);
      }
    }
    return java.util.Arrays.copyOf(sending, len);
  }

  /** A chunk's values from {@code from} on, after {@code header}. */
  private static IntToDoubleFunction withHeader(
      double[] header, IntToDoubleFunction own, int from) {
    int h = header.length;
    return j -> j < h ? header[j] : own.applyAsDouble(from + j - h);
  }

  /**
   * All-gather: {@code next} holds this task's finished chunk {@code (rank + 1) mod size}; on
   * return it holds every chunk.
   */
  void allGather(float[] next) throws IOException {
    int n = next.length;
    for (int s = 0; s < size - 1; s++) {
      int sendChunk = Math.floorMod(rank + 1 - s, size);
      int recvChunk = Math.floorMod(rank - s, size);
      int sFrom = chunkStart(sendChunk, n, size);
      int sLen = chunkStart(sendChunk + 1, n, size) - sFrom;
      Future<?> sent = sender.submit(() -> sendFloats(next, sFrom, sLen));
      int rFrom = chunkStart(recvChunk, n, size);
      receiveFloats(next, rFrom, chunkStart(recvChunk + 1, n, size) - rFrom);
      await(sent);
    }
  }

  private Void sendDoubles(int n, IntToDoubleFunction at) throws IOException {
    for (int off = 0; off < n; off += BLOCK) {
      int m = Math.min(BLOCK, n - off);
      sendBlock.clear();
      for (int k = 0; k < m; k++) {
        sendBlock.putDouble(at.applyAsDouble(off + k));
      }
      out.write(sendBlock.array(), 0, m * Double.BYTES);
    }
    out.flush();
    return null;
  }

  private void receiveDoubles(int n, double[] into, IntToDoubleFunction own) throws IOException {
    for (int off = 0; off < n; off += BLOCK) {
      int m = Math.min(BLOCK, n - off);
      readFully(recvBlock.array(), m * Double.BYTES);
      for (int k = 0; k < m; k++) {
        into[off + k] = recvBlock.getDouble(k * Double.BYTES) + own.applyAsDouble(off + k);
      }
    }
  }

  private Void sendFloats(float[] a, int from, int n) throws IOException {
    for (int off = 0; off < n; off += 2 * BLOCK) {
      int m = Math.min(2 * BLOCK, n - off);
      sendBlock.clear();
      sendBlock.asFloatBuffer().put(a, from + off, m);
      out.write(sendBlock.array(), 0, m * Float.BYTES);
    }
    out.flush();
    return null;
  }

  private void receiveFloats(float[] a, int from, int n) throws IOException {
    for (int off = 0; off < n; off += 2 * BLOCK) {
      int m = Math.min(2 * BLOCK, n - off);
      readFully(recvBlock.array(), m * Float.BYTES);
      recvBlock.clear();
      recvBlock.asFloatBuffer().get(a, from + off, m);
    }
  }

  private void readFully(byte[] buf, int len) throws IOException {
    int got = 0;
    while (got < len) {
      int r;
      try {
        r = in.read(buf, got, len - got);
      } catch (SocketTimeoutException e) {
        checkAlive("");
        continue;
      }
      if (r < 0) {
        throw new EOFException(
            "Ring of partition "
                + rank
                + ": partition "
                + leftRank()
                + " closed its connection (its task failed or its executor was lost)");
      }
      got += r;
    }
  }

  private void checkAlive(String timedOut) throws IOException {
    if (killed.get()) {
      throw new InterruptedIOException("Ring of partition " + rank + ": the task was killed");
    }
    if (!timedOut.isEmpty()) {
      throw new IOException("Ring of partition " + rank + ": " + timedOut);
    }
  }

  /** {@code f}'s value, its failure as an {@link IOException}. */
  static <T> T await(Future<T> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while sending to the ring");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e.getCause() instanceof IOException io
          ? io
          : new IOException("The ring's sender failed", e.getCause());
    }
  }

  /** Closes the sockets (which ends a blocked send) and stops the sender thread. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    sender.shutdownNow();
    for (AutoCloseable c : new AutoCloseable[] {right, left, server}) {
      if (c != null) {
        closeQuietly(c);
      }
    }
    right = null;
    left = null;
    try {
      if (!sender.awaitTermination(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("The ring's sender thread of partition " + rank + " hung");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // closing after a failure: the first failure is the one reported
    } finally {
      OPEN_SOCKETS.decrementAndGet();
    }
  }
}
