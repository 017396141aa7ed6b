package org.sparknet.api.internal.driver;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.internal.wire.ServerLink;

/**
 * The asynchronous trainer's parameter server: one centre on the driver, a TCP endpoint the workers
 * pull from and push to, one thread per connected worker. It counts solver steps: a pull is granted
 * at most the steps the driver has {@link #allow}ed and not yet granted (so the run's step budget
 * holds whatever the workers' speeds), and waits up to {@code idleMillis} for more when none are
 * left, then tells the worker to stop. Each push is applied at once, {@code c += scale * update}
 * ({@code scale} 1 for Downpour, alpha for asynchronous EASGD), unless it was computed from weights
 * more than {@code staleness} pushes old: then it is dropped. A worker whose connection ends while
 * it holds a grant (its task failed or its executor was lost) loses that grant's update, counted in
 * {@link AsyncStats.Worker#lostSteps}; the pushes it made before stay applied.
 */
public final class ParameterServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ParameterServer.class);

  private final ServerSocket socket;
  private final float[] centre;
  private final float scale;
  private final int staleness;
  private final int tau;
  private final AsyncStats stats;
  private final List<Socket> open = new ArrayList<>();
  private final Thread acceptor;
  private final long idleMillis;
  private long version;
  private long allowed;
  private long granted;
  private long settled;
  private volatile boolean closed;

  /**
   * Starts serving {@code centre} (the server's own copy from here on); no steps are allowed yet.
   *
   * @param tau the steps a pull grants (fewer at the end of what is allowed)
   * @param idleMillis how long a pull waits for steps to be allowed before the worker is told to
   *     stop
   */
  public ParameterServer(
      String host,
      float[] centre,
      float scale,
      int staleness,
      int tau,
      int workers,
      long idleMillis) {
    this.centre = centre.clone();
    this.scale = scale;
    this.staleness = staleness;
    this.tau = tau;
    this.idleMillis = idleMillis;
    this.stats = new AsyncStats(workers);
    try {
      this.socket = new ServerSocket(0, 64, InetAddress.getByName(host));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open the parameter server on " + host, e);
    }
    this.acceptor = new Thread(this::accept, "SparkNet parameter server :" + socket.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Where the workers reach this server. */
  public ServerLink.Address address() {
    return new ServerLink.Address(socket.getInetAddress().getHostAddress(), socket.getLocalPort());
  }

  /** Lets the pulls grant steps up to {@code total} since the server started. */
  public synchronized void allow(long total) {
    allowed = Math.max(allowed, total);
    notifyAll();
  }

  /** Grants no more steps: pulls from now on tell the workers to stop. */
  public synchronized void stopGranting() {
    allowed = granted;
    notifyAll();
  }

  /**
   * Waits until the steps granted up to {@code total} are settled (pushed, applied or dropped, or
   * lost with their connection), or {@code over} holds (checked every 100 ms).
   *
   * @return whether they are settled
   */
  public synchronized boolean awaitSettled(long total, java.util.function.BooleanSupplier over)
      throws InterruptedException {
    while (settled < total) {
      if (over.getAsBoolean()) {
        return false;
      }
      wait(100);
    }
    return true;
  }

  /** Steps settled so far. */
  public synchronized long settled() {
    return settled;
  }

  /** A copy of the current centre. */
  public synchronized float[] centre() {
    return centre.clone();
  }

  /** The pushes applied so far. */
  public synchronized long version() {
    return version;
  }

  /** The per-worker accounting so far (a snapshot). */
  public synchronized AsyncStats stats() {
    return stats.copy();
  }

  private void accept() {
    while (!closed) {
      try {
        Socket s = socket.accept();
        synchronized (open) {
          if (closed) {
            s.close();
            return;
          }
          open.add(s);
        }
        Thread t = new Thread(() -> serve(s), "SparkNet parameter server worker");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("Parameter server: accept failed", e);
        }
      }
    }
  }

  private void serve(Socket s) {
    int partition = -1;
    Connection c = new Connection();
    try (s) {
      s.setTcpNoDelay(true);
      DataInputStream in =
          new DataInputStream(new BufferedInputStream(s.getInputStream(), 1 << 16));
      DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1 << 16));
      partition = in.readInt();
      while (true) {
        byte op = in.readByte();
        if (op == ServerLink.PULL) {
          pull(out, c);
        } else if (op == ServerLink.PUSH) {
          push(in, out, partition, c);
        } else {
          throw new IOException("Unknown request " + op + " from partition " + partition);
        }
      }
    } catch (EOFException e) {
      // the worker closed its connection
    } catch (IOException e) {
      if (!closed) {
        LOG.info("Parameter server: partition {}'s connection ended: {}", partition, e.toString());
      }
    } finally {
      connectionEnded(partition, c);
      synchronized (open) {
        open.remove(s);
      }
    }
  }

  /** One worker connection's state: the steps granted and not yet pushed, a reused buffer. */
  private static final class Connection {
    int outstanding;
    float[] buffer;
  }

  private void pull(DataOutputStream out, Connection c) throws IOException {
    long v;
    int steps;
    synchronized (this) {
      long deadline = System.nanoTime() + idleMillis * 1_000_000;
      while (granted >= allowed && !closed) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          break;
        }
        try {
          wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
      }
      steps = closed ? 0 : (int) Math.min(tau, allowed - granted);
      granted += steps;
      v = version;
      c.outstanding = steps;
      if (steps > 0) {
        if (c.buffer == null || c.buffer.length != centre.length) {
          c.buffer = new float[centre.length];
        }
        System.arraycopy(centre, 0, c.buffer, 0, centre.length);
      }
    }
    out.writeInt(steps);
    if (steps > 0) {
      out.writeLong(v);
      ServerLink.writeFloats(out, c.buffer);
    }
    out.flush();
  }

  private void push(DataInputStream in, DataOutputStream out, int partition, Connection c)
      throws IOException {
    long from = in.readLong();
    long examples = in.readLong();
    long steps = in.readLong();
    double lossSum = in.readDouble();
    float[] update = ServerLink.readFloats(in, c.buffer);
    boolean applied;
    synchronized (this) {
      long stale = version - from;
      AsyncStats.Worker w = stats.worker(partition);
      settled += c.outstanding;
      c.outstanding = 0;
      notifyAll();
      applied = stale <= staleness && update.length == centre.length;
      w.record(applied, stale, examples, steps, lossSum);
      if (applied) {
        for (int i = 0; i < centre.length; i++) {
          centre[i] += scale * update[i];
        }
        version++;
      }
    }
    out.writeBoolean(applied);
    out.flush();
  }

  private synchronized void connectionEnded(int partition, Connection c) {
    if (partition >= 0 && c.outstanding > 0) {
      AsyncStats.Worker w = stats.worker(partition);
      w.lostSteps += c.outstanding;
      w.lostPulls++;
      settled += c.outstanding;
      c.outstanding = 0;
      notifyAll();
    }
  }

  /** Stops serving: closes the endpoint and every worker's connection. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    synchronized (open) {
      for (Socket s : open) {
        try {
          s.close();
        } catch (IOException ignored) {
          // closing anyway
        }
      }
      open.clear();
    }
    try {
      acceptor.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
