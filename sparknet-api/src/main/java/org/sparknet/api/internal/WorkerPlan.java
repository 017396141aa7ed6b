package org.sparknet.api.internal;

import java.io.Serializable;
import java.util.Objects;
import org.sparknet.api.Compression;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.InputBlobs;

/**
 * What every worker of a trainer needs to run its rounds, the same for every partition and round:
 * the net, the weight layout, the local schedule, the input blobs and the averaging rule. Built
 * once per trainer and shipped inside the round's task; a round's changing values travel in {@link
 * RoundOrders}.
 */
public final class WorkerPlan implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String trainerId;
  private final NetDefinition definition;
  private final WeightLayout layout;
  private final int tau;
  private final double tauSeconds;
  private final long seed;
  private final InputBlobs blobs;
  private final boolean elastic;
  private final float alpha;
  private final int groupSize;
  private final Compression compression;

  private WorkerPlan(Builder b) {
    this.trainerId = Objects.requireNonNull(b.trainerId, "trainerId");
    this.definition = Objects.requireNonNull(b.definition, "definition");
    this.layout = Objects.requireNonNull(b.layout, "layout");
    this.tau = b.tau;
    this.tauSeconds = b.tauSeconds;
    this.seed = b.seed;
    this.blobs = Objects.requireNonNull(b.blobs, "blobs");
    this.elastic = b.elastic;
    this.alpha = b.alpha;
    this.groupSize = b.groupSize;
    this.compression = Objects.requireNonNull(b.compression, "compression");
    if ((tau > 0) == (tauSeconds > 0)) {
      throw new IllegalArgumentException(
          "A worker plan needs either tau steps or tau seconds, not both or neither");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The key of this trainer's workers on the executors. */
  public String trainerId() {
    return trainerId;
  }

  /** The trainer's definition; each partition builds its net with {@link #definitionFor}. */
  public NetDefinition definition() {
    return definition;
  }

  /**
   * The definition partition {@code p}'s net is built from: the trainer's, with its own seed, so
   * that the workers' random layers (dropout) draw differently.
   */
  public NetDefinition definitionFor(int partition) {
    return definition.withSeed(definition.seed() + 1_000_003L * (partition + 1));
  }

  public WeightLayout layout() {
    return layout;
  }

  /**
   * Solver steps of the first round (every round unless tau adapts: the round's own tau travels in
   * {@link RoundOrders#tau()}), or 0 when the round is timed.
   */
  public int tau() {
    return tau;
  }

  /** Seconds of training per round, or 0 when tau counts steps. */
  public double tauSeconds() {
    return tauSeconds;
  }

  /** Seed of the data order. */
  public long seed() {
    return seed;
  }

  public InputBlobs blobs() {
    return blobs;
  }

  /** Elastic averaging: workers keep their own weights and send {@code w_i - c}. */
  public boolean elastic() {
    return elastic;
  }

  /** The elastic moving rate (0 for plain averaging). */
  public float alpha() {
    return alpha;
  }

  /** Solvers per worker (1: a plain net; more: a SolverGroup). */
  public int groupSize() {
    return groupSize;
  }

  /** How the workers send their weights back. */
  public Compression compression() {
    return compression;
  }

  /** Builds a {@link WorkerPlan}; every value is named. */
  public static final class Builder {
    private String trainerId;
    private NetDefinition definition;
    private WeightLayout layout;
    private int tau;
    private double tauSeconds;
    private long seed;
    private InputBlobs blobs;
    private boolean elastic;
    private float alpha;
    private int groupSize = 1;
    private Compression compression = Compression.NONE;

    private Builder() {}

    public Builder trainerId(String id) {
      this.trainerId = id;
      return this;
    }

    public Builder definition(NetDefinition d) {
      this.definition = d;
      return this;
    }

    public Builder layout(WeightLayout l) {
      this.layout = l;
      return this;
    }

    public Builder tau(int steps) {
      this.tau = steps;
      return this;
    }

    public Builder tauSeconds(double seconds) {
      this.tauSeconds = seconds;
      return this;
    }

    public Builder seed(long s) {
      this.seed = s;
      return this;
    }

    public Builder blobs(InputBlobs b) {
      this.blobs = b;
      return this;
    }

    /** Elastic averaging with moving rate {@code a}. */
    public Builder elastic(float a) {
      this.elastic = true;
      this.alpha = a;
      return this;
    }

    public Builder groupSize(int k) {
      this.groupSize = k;
      return this;
    }

    public Builder compression(Compression c) {
      this.compression = c;
      return this;
    }

    public WorkerPlan build() {
      return new WorkerPlan(this);
    }
  }
}
