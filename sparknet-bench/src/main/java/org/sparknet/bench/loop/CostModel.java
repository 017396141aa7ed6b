package org.sparknet.bench.loop;

import java.util.Locale;

/**
 * Predicted speed-up of SparkNet over one plain solver for W workers, from figures measured on this
 * machine. One round of tau steps of batch b on every worker takes
 *
 * <pre>
 *   T(W) = tau * b * c  +  o  +  M / B  +  a(W) * M / B,    a(W) = min(W, 2 * ceil(sqrt(W)))
 * </pre>
 *
 * where c is the measured compute time per image of one worker (one core), o the measured per-round
 * overhead of the loop on this machine at that tau (broadcast, aggregate and scheduling in local
 * mode: serialisation, copies, task launch, no network), M the bytes of the weights, B the network
 * bandwidth, M / B the torrent broadcast (every worker receives M once, pipelined) and a(W) M / B
 * the results: collected by the driver (W of them) up to 16 partitions, above that a depth-2
 * treeAggregate whose combiners and driver each receive about sqrt(W) of them, one level after the
 * other. The W workers process W * tau * b images per round; one plain solver processes images at 1
 * / c. So
 *
 * <pre>
 *   speed-up(W) = W * tau * b * c / T(W).
 * </pre>
 *
 * Compute per worker does not grow with W and o does not either (optimistic: a real cluster's task
 * launch grows slowly with W); statistical efficiency (more images needed for the same accuracy
 * when averaging) is not in it.
 *
 * <p>On a cluster each of those transfers is also serialised and deserialised, which local mode
 * does not do (its tasks take the weights by reference), so o measured locally leaves it out: with
 * S the rate at which one JVM serialises and another deserialises a weight array, each transfer
 * costs M / B + M / S ({@link #serialisationBytesPerSecond}, infinite by default: the model of
 * section 8 before the cluster's figures of section 13 showed the term).
 *
 * <p>That term alone does not close the gap: local mode's o underestimates a cluster's round as a
 * whole, since there a round also pays the launch of its tasks in other JVMs, the serialisation of
 * each task and its result, and the result's transfer through the block manager or the RPC layer.
 * So on a cluster the model's corrected round ({@link #clusterRoundSeconds}) keeps the compute and
 * replaces o and the transfers by the cluster's own per-round fixed cost o_cluster(M), measured on
 * that cluster with a round-shaped Spark job of M bytes and no solver steps:
 *
 * <pre>
 *   T_cluster = tau * b * c  +  o_cluster(M)
 * </pre>
 *
 * A prediction is off when measured ÷ predicted differs from 1 by more than {@link #TOLERANCE}.
 */
public record CostModel(
    double computeSecondsPerImage,
    int batch,
    double overheadSeconds,
    double weightBytes,
    double bandwidthBytesPerSecond,
    double serialisationBytesPerSecond) {

  /** How far measured ÷ predicted may be from 1 before a prediction counts as off (25 %). */
  public static final double TOLERANCE = 0.25;

  /** 10 Gbit/s. */
  public static final double TEN_GBIT = 10e9 / 8;

  /** Without the serialisation term (S infinite). */
  public CostModel(
      double computeSecondsPerImage,
      int batch,
      double overheadSeconds,
      double weightBytes,
      double bandwidthBytesPerSecond) {
    this(
        computeSecondsPerImage,
        batch,
        overheadSeconds,
        weightBytes,
        bandwidthBytesPerSecond,
        Double.POSITIVE_INFINITY);
  }

  public CostModel {
    if (!(computeSecondsPerImage > 0) || batch < 1 || overheadSeconds < 0 || weightBytes < 0) {
      throw new IllegalArgumentException(
          "Cost model needs c > 0, b >= 1, o >= 0, M >= 0 but got c="
              + computeSecondsPerImage
              + ", b="
              + batch
              + ", o="
              + overheadSeconds
              + ", M="
              + weightBytes);
    }
    if (!(bandwidthBytesPerSecond > 0) || !(serialisationBytesPerSecond > 0)) {
      throw new IllegalArgumentException(
          "Bandwidth and serialisation rate must be > 0 but were "
              + bandwidthBytesPerSecond
              + " and "
              + serialisationBytesPerSecond);
    }
  }

  /** How many result transfers of M bytes the receiving side does in sequence with W workers. */
  static int aggregateTransfers(int workers) {
    return Math.min(workers, 2 * (int) Math.ceil(Math.sqrt(workers)));
  }

  /** The round's transfers: on the wire, and serialised at both ends. */
  public double networkSeconds(int workers) {
    return (1 + aggregateTransfers(workers))
        * (weightBytes / bandwidthBytesPerSecond + weightBytes / serialisationBytesPerSecond);
  }

  /**
   * Bytes each executor sends, and receives, per byte of float weights in one all-reduce round of
   * {@code allreduce} mode, times (W-1)/W: the ring reduces in double (8 bytes a weight, its
   * reduce-scatter) and gathers the finished chunks in float (4 bytes), so the sum equals the
   * driver's double sum.
   */
  static final double RING_BYTES_PER_WEIGHT_BYTE = 3.0;

  /** One hop of the ring: a chunk's latency between neighbours on a data-centre network. */
  public static final double RING_HOP_SECONDS = 50e-6;

  /**
   * An all-reduce round's transfers: each executor sends and receives 3 (W-1)/W M in the ring
   * (links full duplex, all executors at once), 2 (W-1) hops in sequence, and partition 0's copy of
   * the next weights to the driver (M on the wire and serialised at both ends), which does not grow
   * with W. No broadcast: the executors already hold the weights.
   */
  public double ringNetworkSeconds(int workers) {
    double ring =
        (workers - 1.0)
            / workers
            * RING_BYTES_PER_WEIGHT_BYTE
            * weightBytes
            / bandwidthBytesPerSecond;
    double hops = 2.0 * (workers - 1) * RING_HOP_SECONDS;
    double readBack =
        weightBytes / bandwidthBytesPerSecond + weightBytes / serialisationBytesPerSecond;
    return ring + hops + readBack;
  }

  /** The all-reduce round: compute, the loop's overhead o and {@link #ringNetworkSeconds}. */
  public double ringRoundSeconds(int workers, int tau) {
    return tau * batch * computeSecondsPerImage + overheadSeconds + ringNetworkSeconds(workers);
  }

  public double ringSpeedUp(int workers, int tau) {
    return workers * tau * batch * computeSecondsPerImage / ringRoundSeconds(workers, tau);
  }

  /** This model with another bandwidth. */
  public CostModel withBandwidth(double bytesPerSecond) {
    return new CostModel(
        computeSecondsPerImage,
        batch,
        overheadSeconds,
        weightBytes,
        bytesPerSecond,
        serialisationBytesPerSecond);
  }

  /** This model with another compute rate and batch (a GPU's, from section 11). */
  public CostModel withCompute(double secondsPerImage, int batchSize) {
    return new CostModel(
        secondsPerImage,
        batchSize,
        overheadSeconds,
        weightBytes,
        bandwidthBytesPerSecond,
        serialisationBytesPerSecond);
  }

  public double roundSeconds(int workers, int tau) {
    return tau * batch * computeSecondsPerImage + overheadSeconds + networkSeconds(workers);
  }

  /**
   * The corrected round on a cluster: this model's compute, tau * b * c, plus the cluster's
   * measured per-round fixed cost {@code clusterOverheadSeconds} in place of o and the transfers.
   */
  public double clusterRoundSeconds(int tau, double clusterOverheadSeconds) {
    if (tau < 1 || !(clusterOverheadSeconds >= 0)) {
      throw new IllegalArgumentException(
          "A cluster round needs tau >= 1 and o_cluster >= 0 but got tau="
              + tau
              + ", o_cluster="
              + clusterOverheadSeconds);
    }
    return tau * batch * computeSecondsPerImage + clusterOverheadSeconds;
  }

  /**
   * Whether {@code measured} ÷ {@code predicted} is more than {@link #TOLERANCE} away from 1; false
   * when either is not a number (nothing to compare).
   */
  public static boolean offBy(double measured, double predicted) {
    return Math.abs(measured / predicted - 1) > TOLERANCE;
  }

  public double speedUp(int workers, int tau) {
    return workers * tau * batch * computeSecondsPerImage / roundSeconds(workers, tau);
  }

  /**
   * {@link #speedUp} at the SparkNet paper's points (3, 5 and 10 workers at tau = 50), as
   * "a×/b×/c×", for the sections that set the model beside the paper's 2.4×/3.8×/4.4×.
   */
  public String paperSpeedUps() {
    return String.format(
        Locale.ROOT, "%.1f×/%.1f×/%.1f×", speedUp(3, 50), speedUp(5, 50), speedUp(10, 50));
  }

  /**
   * The compute time of one round (tau * b * c) for which this model, with its o, M and B, gives
   * {@code speedUp} at {@code workers}; +infinity when no compute time can reach it.
   */
  public double computeSecondsForSpeedUp(int workers, double speedUp) {
    if (speedUp >= workers) {
      return Double.POSITIVE_INFINITY;
    }
    return speedUp * (overheadSeconds + networkSeconds(workers)) / (workers - speedUp);
  }

  /** Spark's torrent broadcast block ({@code spark.broadcast.blockSize}, 4 MiB by default). */
  static final double BROADCAST_BLOCK_BYTES = 4 << 20;

  /**
   * How many copies of M the driver sends of a round's torrent broadcast to W executors that fetch
   * it at once: each executor asks for its blocks in random order from any holder, and at first
   * only the driver holds any. With at least W blocks the executors start on different blocks and
   * then share them, so the driver sends each block about once; with fewer blocks than executors, W
   * / blocks executors ask the driver for each block before a peer has it, up to W copies for a
   * broadcast of one block (section 22 measured W·M for a 318 KB net up to W = 8).
   */
  static double broadcastCopiesFromDriver(int workers, double weightBytes) {
    double blocks = Math.max(1, Math.ceil(weightBytes / BROADCAST_BLOCK_BYTES));
    return Math.max(1, workers / blocks);
  }

  /**
   * Bytes through the driver in one round of the driver's average: the broadcast ({@link
   * #broadcastCopiesFromDriver} copies of M, one for a net of many blocks as sections 8 and 8b
   * count it) and a(W) results of M.
   */
  public double driverBytes(int workers) {
    return (broadcastCopiesFromDriver(workers, weightBytes) + aggregateTransfers(workers))
        * weightBytes;
  }

  /** Bytes each executor receives and sends in a round of the driver's average: M and M. */
  public double executorBytes() {
    return 2 * weightBytes;
  }

  /**
   * Bytes through the driver in one all-reduce round: partition 0's copy of the next weights, M,
   * whatever W.
   */
  public double ringDriverBytes() {
    return weightBytes;
  }

  /** Bytes each executor sends plus receives in one all-reduce round: twice 3 (W-1)/W M. */
  public double ringExecutorBytes(int workers) {
    return 2 * (workers - 1.0) / workers * RING_BYTES_PER_WEIGHT_BYTE * weightBytes;
  }

  /**
   * Bytes through the driver per push of an asynchronous mode: the worker's update, M, and the
   * weights it pulls for its next steps, M.
   */
  public double pushBytes() {
    return 2 * weightBytes;
  }
}
