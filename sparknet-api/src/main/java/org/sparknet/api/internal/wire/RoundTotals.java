package org.sparknet.api.internal.wire;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.sparknet.api.averaging.Averager;
import org.sparknet.api.averaging.Compression;

/**
 * A round's partition results combined: their values, example and loss totals, the slowest worker's
 * timings, each partition's examples and solver restarts, and the first divergence by partition. On
 * the driver ({@link #onDriver}) the values are kept as they come, in partition order, and averaged
 * at the end in parallel ({@link org.sparknet.api.internal.averaging.AveragingStrategy#combine});
 * for {@code treeAggregate} they are added to a running sum ({@link Averager.Sum}) as they come,
 * and partial totals merge on the executors.
 */
public final class RoundTotals implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Averager.Sum sum = new Averager.Sum();
  private final Compression codec;
  private final boolean keep;
  private List<float[]> keptValues;
  private List<short[]> keptPacked;
  private double[] keptWeights;
  private long examples;
  private double lossSum;
  private long maxSteps;
  private long maxSetupMillis;
  private long maxComputeMillis;
  private long maxExtractMillis;
  private int divergedPartition = -1;
  private String divergence;
  private long[] examplesByPartition = new long[0];
  private int[] restartsByPartition = new int[0];
  private String[] devicesByPartition = new String[0];
  private long[] lineagesByPartition = new long[0];
  private float[] reduced;

  /** Totals that sum as results come (the zero value of a {@code treeAggregate}). */
  public RoundTotals(Compression codec) {
    this(codec, false);
  }

  private RoundTotals(Compression codec, boolean keep) {
    this.codec = codec;
    this.keep = keep;
    if (keep) {
      keptValues = new ArrayList<>();
      keptPacked = new ArrayList<>();
      keptWeights = new double[0];
    }
  }

  /** Totals on the driver: results are kept, in the order added, and averaged once at the end. */
  public static RoundTotals onDriver(Compression codec) {
    return new RoundTotals(codec, true);
  }

  /** Adds one partition's result; returns this. */
  public RoundTotals add(PartitionResult r) {
    WorkerReport w = r.report();
    if (!addReport(w) || w.examples() == 0 || !r.hasValues()) {
      return this;
    }
    addValues(r);
    countExamples(w);
    return this;
  }

  /**
   * Adds one partition's result of an all-reduce round: its report, and the next weights the
   * executors summed when it carries them; returns this.
   */
  public RoundTotals addReduced(PartitionResult r) {
    WorkerReport w = r.report();
    if (addReport(w) && w.examples() > 0) {
      countExamples(w);
    }
    if (r.values() != null) {
      reduced = r.values();
    }
    return this;
  }

  /** The next weights the executors summed in an all-reduce round, or null. */
  public float[] reduced() {
    return reduced;
  }

  /** Notes a report's timings, device and restart; false when the partition diverged. */
  private boolean addReport(WorkerReport w) {
    maxSetupMillis = Math.max(maxSetupMillis, w.timings().setupMillis());
    maxComputeMillis = Math.max(maxComputeMillis, w.timings().computeMillis());
    maxExtractMillis = Math.max(maxExtractMillis, w.timings().extractMillis());
    if (w.device() != null && !w.device().isEmpty()) {
      devicesByPartition = grown(devicesByPartition, w.partition() + 1);
      devicesByPartition[w.partition()] = w.device();
    }
    if (w.lineage() != 0) {
      lineagesByPartition = grown(lineagesByPartition, w.partition() + 1);
      lineagesByPartition[w.partition()] = w.lineage();
    }
    if (w.solverRestarted()) {
      restartsByPartition = grown(restartsByPartition, w.partition() + 1);
      restartsByPartition[w.partition()]++;
    }
    if (w.divergence() != null) {
      noteDivergence(w.partition(), w.divergence());
      return false;
    }
    return true;
  }

  private void countExamples(WorkerReport w) {
    examples += w.examples();
    examplesByPartition = grown(examplesByPartition, w.partition() + 1);
    examplesByPartition[w.partition()] += w.examples();
    lossSum += w.lossSum();
    maxSteps = Math.max(maxSteps, w.steps());
  }

  private void addValues(PartitionResult r) {
    if (keep) {
      if (r.packed() != null) {
        keptPacked.add(r.packed());
      } else {
        keptValues.add(r.values());
      }
      keptWeights = Arrays.copyOf(keptWeights, keptWeights.length + 1);
      keptWeights[keptWeights.length - 1] = r.weight();
    } else if (r.packed() != null) {
      sum.add(r.packed(), codec, r.weight());
    } else {
      sum.add(r.values(), r.weight());
    }
  }

  /** Adds another partial total; returns this. */
  public RoundTotals merge(RoundTotals o) {
    if (keep || o.keep) {
      throw new IllegalStateException("Totals kept on the driver do not merge");
    }
    maxSetupMillis = Math.max(maxSetupMillis, o.maxSetupMillis);
    maxComputeMillis = Math.max(maxComputeMillis, o.maxComputeMillis);
    maxExtractMillis = Math.max(maxExtractMillis, o.maxExtractMillis);
    restartsByPartition = grown(restartsByPartition, o.restartsByPartition.length);
    for (int p = 0; p < o.restartsByPartition.length; p++) {
      restartsByPartition[p] += o.restartsByPartition[p];
    }
    devicesByPartition = grown(devicesByPartition, o.devicesByPartition.length);
    for (int p = 0; p < o.devicesByPartition.length; p++) {
      if (o.devicesByPartition[p] != null) {
        devicesByPartition[p] = o.devicesByPartition[p];
      }
    }
    lineagesByPartition = grown(lineagesByPartition, o.lineagesByPartition.length);
    for (int p = 0; p < o.lineagesByPartition.length; p++) {
      if (o.lineagesByPartition[p] != 0) {
        lineagesByPartition[p] = o.lineagesByPartition[p];
      }
    }
    if (o.divergence != null) {
      noteDivergence(o.divergedPartition, o.divergence);
    }
    sum.merge(o.sum);
    examples += o.examples;
    examplesByPartition = grown(examplesByPartition, o.examplesByPartition.length);
    for (int p = 0; p < o.examplesByPartition.length; p++) {
      examplesByPartition[p] += o.examplesByPartition[p];
    }
    lossSum += o.lossSum;
    maxSteps = Math.max(maxSteps, o.maxSteps);
    return this;
  }

  private static long[] grown(long[] a, int n) {
    return a.length >= n ? a : Arrays.copyOf(a, n);
  }

  private static int[] grown(int[] a, int n) {
    return a.length >= n ? a : Arrays.copyOf(a, n);
  }

  private static String[] grown(String[] a, int n) {
    return a.length >= n ? a : Arrays.copyOf(a, n);
  }

  private void noteDivergence(int partition, String what) {
    if (divergence == null || partition < divergedPartition) {
      divergedPartition = partition;
      divergence = what;
    }
  }

  /** Whether any partition sent values. */
  public boolean hasValues() {
    return reduced != null || (keep ? keptWeights.length > 0 : !sum.isEmpty());
  }

  /** Whether the results were kept as they came, in the order added (on the driver). */
  public boolean kept() {
    return keep;
  }

  /** The 32-bit values kept, in the order added (empty when summed or compressed). */
  public List<float[]> keptValues() {
    return keep ? keptValues : List.of();
  }

  /** The 16-bit offsets kept, in the order added (empty when summed or not compressed). */
  public List<short[]> keptPacked() {
    return keep ? keptPacked : List.of();
  }

  /** The weights of the results kept, in the order added (empty when summed). */
  public double[] keptWeights() {
    return keep ? keptWeights.clone() : new double[0];
  }

  /** The running sum of the values (empty on the driver, where values are kept instead). */
  public Averager.Sum sum() {
    return sum;
  }

  /** Examples fed by partition {@code p} (0 when it sent nothing). */
  public long examplesOf(int p) {
    return p < examplesByPartition.length ? examplesByPartition[p] : 0;
  }

  /** Partitions whose solver started over in this round. */
  public List<Integer> restartedPartitions() {
    List<Integer> out = new ArrayList<>();
    for (int p = 0; p < restartsByPartition.length; p++) {
      if (restartsByPartition[p] > 0) {
        out.add(p);
      }
    }
    return out;
  }

  /** Where each partition's worker ran this round, by partition (null: the partition was idle). */
  public List<String> devices() {
    return Arrays.asList(devicesByPartition.clone());
  }

  /** The solver history each partition's result came from, by partition (0: unknown). */
  public long[] lineages() {
    return lineagesByPartition.clone();
  }

  public long examples() {
    return examples;
  }

  public double lossSum() {
    return lossSum;
  }

  public long maxSteps() {
    return maxSteps;
  }

  public long maxSetupMillis() {
    return maxSetupMillis;
  }

  public long maxComputeMillis() {
    return maxComputeMillis;
  }

  public long maxExtractMillis() {
    return maxExtractMillis;
  }

  /** The lowest partition that diverged, or -1. */
  public int divergedPartition() {
    return divergedPartition;
  }

  /** What went non-finite in {@link #divergedPartition()}, or null. */
  public String divergence() {
    return divergence;
  }
}
