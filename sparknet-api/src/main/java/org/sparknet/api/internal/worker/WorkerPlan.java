package org.sparknet.api.internal.worker;

import java.io.Serializable;
import java.util.Objects;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.data.InputBlobs;
import org.sparknet.api.device.GpuSharing;
import org.sparknet.api.internal.averaging.AveragingStrategy;
import org.sparknet.api.internal.wire.RoundOrders;
import org.sparknet.api.internal.wire.WeightLayout;

/**
 * What every worker of a trainer needs to run its rounds, the same for every partition and round:
 * the net, the weight layout, the local schedule, the input blobs and the averaging rule. Built
 * once per trainer (with {@link #builder()}) and shipped inside the round's task; a round's
 * changing values travel in {@link RoundOrders}.
 *
 * @param trainerId the key of this trainer's workers on the executors
 * @param definition the trainer's definition; each partition builds its net with {@link
 *     #definitionFor}
 * @param tau solver steps of the first round (every round unless tau adapts: the round's own tau
 *     travels in {@link RoundOrders#steps()}), or 0 when the round is timed
 * @param tauSeconds seconds of training per round, or 0 when tau counts steps
 * @param seed seed of the data order
 * @param groupSize solvers per worker (1: a plain net; more: a SolverGroup)
 * @param averaging the averaging rule: what workers send and keep, how the driver combines
 * @param gpuSharing how many workers share each GPU where Spark assigned none
 * @param checkedDevice the device of the driver's net when the engine's isolated check of the
 *     definition passed on the driver ({@link NetProvider#passedIsolatedCheck}), else null
 */
public record WorkerPlan(
    String trainerId,
    NetDefinition definition,
    WeightLayout layout,
    int tau,
    double tauSeconds,
    long seed,
    InputBlobs blobs,
    int groupSize,
    AveragingStrategy averaging,
    GpuSharing gpuSharing,
    String checkedDevice)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  public WorkerPlan {
    Objects.requireNonNull(trainerId, "trainerId");
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(layout, "layout");
    Objects.requireNonNull(blobs, "blobs");
    Objects.requireNonNull(averaging, "averaging");
    Objects.requireNonNull(gpuSharing, "gpuSharing");
    if ((tau > 0) == (tauSeconds > 0)) {
      throw new IllegalArgumentException(
          "A worker plan needs either tau steps or tau seconds, not both or neither");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** How the workers send their results back (the averaging rule's wire format). */
  public Compression compression() {
    return averaging.compression();
  }

  /**
   * The definition partition {@code p}'s net is built from: the trainer's, with its own seed, so
   * that the workers' random layers (dropout) draw differently.
   */
  public NetDefinition definitionFor(int partition) {
    return definition.withSeed(definition.seed() + 1_000_003L * (partition + 1));
  }

  /**
   * Takes the driver's isolated check of the definition as this JVM's, where there was one: the
   * engine decides for which devices it holds ({@link NetProvider#acceptIsolatedCheck}).
   */
  void acceptDriverCheck() {
    if (checkedDevice != null) {
      NetProvider.forEngine(definition.engine())
          .acceptIsolatedCheck(definition.withDevice(checkedDevice));
    }
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
    private int groupSize = 1;
    private AveragingStrategy averaging = AveragingStrategy.plain();
    private GpuSharing gpuSharing = GpuSharing.DEFAULT;
    private String checkedDevice;

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

    public Builder groupSize(int k) {
      this.groupSize = k;
      return this;
    }

    public Builder averaging(AveragingStrategy a) {
      this.averaging = a;
      return this;
    }

    public Builder gpuSharing(GpuSharing g) {
      this.gpuSharing = g;
      return this;
    }

    /** The device on which the driver's isolated check of the definition passed (null: none). */
    public Builder checkedDevice(String device) {
      this.checkedDevice = device;
      return this;
    }

    public WorkerPlan build() {
      return new WorkerPlan(
          trainerId,
          definition,
          layout,
          tau,
          tauSeconds,
          seed,
          blobs,
          groupSize,
          averaging,
          gpuSharing,
          checkedDevice);
    }
  }
}
