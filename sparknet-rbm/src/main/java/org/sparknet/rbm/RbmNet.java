package org.sparknet.rbm;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;
import org.sparknet.rbm.internal.NativeArrays;
import org.sparknet.rbm.internal.Rbm;

/**
 * A Restricted Boltzmann Machine behind the {@link Net} SPI (engine {@value
 * RbmNetProvider#ENGINE}), defined by an {@link RbmConfig}.
 *
 * <ul>
 *   <li>Input: blob {@code "data"} [batch, visible] (TEST phase: [test_batch, visible]), values in
 *       [0, 1], written by the {@link BatchFeeder}; no label.
 *   <li>Weights: one layer {@value #LAYER} holding W [visible, hidden], the visible bias [visible]
 *       and the hidden bias [hidden], so {@code SparkNetTrainer} averages them like any net.
 *   <li>{@link #train}: per step one CD-k estimate of the log-likelihood gradient ({@code <v
 *       h>_data - <v h>_model}, the model term from a k-step Gibbs chain started at the data), then
 *       SGD in Caffe's form: {@code v = momentum v + lr (-(gradient) + weight_decay W); W -= v} (no
 *       decay on the biases). Returns the mean over the steps of the <em>reconstruction error</em>:
 *       the squared error per pixel between the batch and p(v | h0), h0 sampled from p(h | data).
 *   <li>{@link #test}: {@code "loss"}, the mean-field reconstruction error per pixel: between the
 *       batch and p(v | E[h | data]) (deterministic).
 *   <li>{@link #forward}: blobs {@code "hidden"} (E[h | data]: probabilities, or means of Gaussian
 *       units) and {@code "reconstruction"} (p(v | hidden)); the input of the next RBM of a stack.
 * </ul>
 *
 * <p>Owns native arrays: {@link #close()} frees them (idempotent); any later call throws {@link
 * IllegalStateException}. One thread at a time.
 */
public final class RbmNet implements Net {
  /** The name of the single weight layer. */
  public static final String LAYER = "rbm";

  /** The input blob. */
  public static final String DATA = "data";

  public static final String HIDDEN = "hidden";
  public static final String RECONSTRUCTION = "reconstruction";

  private final RbmConfig config;
  private final Rbm rbm;
  private SplittableRandom rnd;
  private final NDArray trainData;
  private final NDArray testData;
  private final Rbm.Statistics stats;
  private final NDArray vw;
  private final NDArray vbv;
  private final NDArray vbh;
  private int iteration;
  private boolean closed;

  /**
   * Builds the RBM of {@code definition}.
   *
   * @throws IllegalArgumentException for a definition of another engine, with net text, not on the
   *     CPU, or whose solver text is not a valid {@link RbmConfig} (naming the field)
   */
  public RbmNet(NetDefinition definition) {
    if (!RbmNetProvider.ENGINE.equals(definition.engine())) {
      throw new IllegalArgumentException(
          "RbmNet builds engine '"
              + RbmNetProvider.ENGINE
              + "' definitions but this one is for engine '"
              + definition.engine()
              + "'");
    }
    if (definition.netText() != null && !definition.netText().isBlank()) {
      throw new IllegalArgumentException(
          "An RBM definition has no net text: put every field in the solver text (RbmConfig)");
    }
    if (!definition.device().equals("cpu")) {
      throw new IllegalArgumentException(
          "The RBM engine runs on the CPU only but the definition asks for device '"
              + definition.device()
              + "'; use \"cpu\"");
    }
    this.config = RbmConfig.parse(definition.solverText());
    int v = config.visible();
    int h = config.hidden();
    this.rnd = new SplittableRandom(mix(config.seed(), definition.seed()));
    this.rbm = new Rbm(v, h, config.hiddenUnits() == RbmConfig.HiddenUnits.GAUSSIAN);
    // Every field below is closed by close(); on failure, undo what was made.
    NDArray[] made = null;
    Rbm.Statistics s;
    try {
      rbm.initialize(config.initStd(), new SplittableRandom(config.seed()));
      made =
          NativeArrays.zeros(
              new int[] {config.batch(), v},
              new int[] {config.testBatch(), v},
              new int[] {v, h},
              new int[] {v},
              new int[] {h});
      s = new Rbm.Statistics(v, h);
    } catch (RuntimeException | Error e) {
      if (made != null) {
        NativeArrays.close(made);
      }
      rbm.close();
      throw e;
    }
    this.trainData = made[0];
    this.testData = made[1];
    this.vw = made[2];
    this.vbv = made[3];
    this.vbh = made[4];
    this.stats = s;
  }

  /**
   * Restarts the Gibbs sampler's generator from {@code seed}: the trainer reseeds before each
   * partition's steps of a round, so that a round's samples repeat across a resume (whose nets are
   * new) as they do in an uninterrupted run.
   */
  @Override
  public void reseed(long seed) {
    rnd = new SplittableRandom(mix(seed, config.seed()));
  }

  private static long mix(long a, long b) {
    long z = a * 0x9E3779B97F4A7C15L + b;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** The parsed definition. */
  public RbmConfig config() {
    return config;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(
          "Use after close: RBM net " + config.visible() + "x" + config.hidden() + " is closed");
    }
  }

  @Override
  public String name() {
    return "rbm-" + config.visible() + "x" + config.hidden();
  }

  @Override
  public Map<String, Shape> inputShapes(Phase phase) {
    checkOpen();
    int n = phase == Phase.TRAIN ? config.batch() : config.testBatch();
    return Map.of(DATA, Shape.of(n, config.visible()));
  }

  @Override
  public float train(int numSteps, BatchFeeder feeder) {
    checkOpen();
    float lr = config.baseLr();
    float m = config.momentum();
    float wd = config.weightDecay();
    double sum = 0;
    double perStep = (double) config.batch() * config.visible();
    for (int s = 0; s < numSteps; s++) {
      feeder.fill(Map.of(DATA, trainData));
      double sse = rbm.contrastiveDivergence(trainData, config.k(), rnd, stats);
      // v = m v + lr (model - data + wd W); W -= v   (descent on the negative log-likelihood)
      vw.scale(m).addScaled(lr, stats.modelW).addScaled(-lr, stats.dataW);
      if (wd != 0f) {
        vw.addScaled(lr * wd, rbm.weights());
      }
      vbv.scale(m).addScaled(lr, stats.modelVisible).addScaled(-lr, stats.dataVisible);
      vbh.scale(m).addScaled(lr, stats.modelHidden).addScaled(-lr, stats.dataHidden);
      rbm.weights().addScaled(-1f, vw);
      rbm.visibleBias().addScaled(-1f, vbv);
      rbm.hiddenBias().addScaled(-1f, vbh);
      iteration++;
      double err = sse / perStep;
      if (!Double.isFinite(err)) {
        return Float.NaN; // the weights that gave it are non-finite: stop stepping
      }
      sum += err;
    }
    if (!Double.isFinite(rbm.weights().norm2())) {
      return Float.NaN;
    }
    return numSteps == 0 ? 0f : (float) (sum / numSteps);
  }

  @Override
  public Map<String, Float> test(int numSteps, BatchFeeder feeder) {
    checkOpen();
    double sum = 0;
    try (NDArray hidden = NDArray.zeros(config.testBatch(), config.hidden());
        NDArray recon = NDArray.zeros(config.testBatch(), config.visible())) {
      for (int s = 0; s < numSteps; s++) {
        feeder.fill(Map.of(DATA, testData));
        sum += rbm.meanField(testData, hidden, recon);
      }
    }
    double n = (double) numSteps * config.testBatch() * config.visible();
    return Map.of("loss", (float) (numSteps == 0 ? 0 : sum / n));
  }

  @Override
  public Map<String, NDArray> forward(BatchFeeder feeder, List<String> blobs) {
    checkOpen();
    for (String b : blobs) {
      if (!b.equals(HIDDEN) && !b.equals(RECONSTRUCTION)) {
        throw new IllegalArgumentException(
            "RBM net has no blob '" + b + "'; it has [" + HIDDEN + ", " + RECONSTRUCTION + "]");
      }
    }
    feeder.fill(Map.of(DATA, testData));
    NDArray[] made =
        NativeArrays.zeros(
            new int[] {config.testBatch(), config.hidden()},
            new int[] {config.testBatch(), config.visible()});
    NDArray hidden = made[0];
    NDArray recon = made[1];
    try {
      rbm.meanField(testData, hidden, recon);
    } catch (RuntimeException | Error e) {
      NativeArrays.close(made);
      throw e;
    }
    Map<String, NDArray> out = new LinkedHashMap<>();
    for (String b : blobs) {
      out.put(b, b.equals(HIDDEN) ? hidden : recon);
    }
    if (!blobs.contains(HIDDEN)) {
      hidden.close();
    }
    if (!blobs.contains(RECONSTRUCTION)) {
      recon.close();
    }
    return out;
  }

  @Override
  public WeightCollection getWeights() {
    checkOpen();
    return layer(rbm.weights(), rbm.visibleBias(), rbm.hiddenBias());
  }

  private WeightCollection layer(NDArray w, NDArray bv, NDArray bh) {
    return new WeightCollection()
        .put(
            LAYER,
            List.of(
                WeightCollection.Tensor.copyOf(w),
                WeightCollection.Tensor.copyOf(bv),
                WeightCollection.Tensor.copyOf(bh)));
  }

  @Override
  public void setWeights(WeightCollection weights) {
    checkOpen();
    getWeights().checkSameStructure(weights);
    List<WeightCollection.Tensor> t = weights.get(LAYER);
    rbm.weights().copyFrom(t.get(0).data());
    rbm.visibleBias().copyFrom(t.get(1).data());
    rbm.hiddenBias().copyFrom(t.get(2).data());
  }

  @Override
  public int iteration() {
    checkOpen();
    return iteration;
  }

  /** The RBM's rate is fixed: {@code base_lr} at every iteration. */
  @Override
  public double learningRate(long iteration) {
    return config.baseLr();
  }

  @Override
  public boolean hasSolverState() {
    return true;
  }

  /** The iteration and the momentum history, laid out as the weights (layer {@value #LAYER}). */
  @Override
  public SolverState getSolverState() {
    checkOpen();
    return new SolverState(iteration, layer(vw, vbv, vbh));
  }

  @Override
  public void setSolverState(SolverState state) {
    checkOpen();
    getWeights().checkSameStructure(state.history());
    if (state.iteration() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Solver state iteration " + state.iteration() + " exceeds an int");
    }
    List<WeightCollection.Tensor> t = state.history().get(LAYER);
    vw.copyFrom(t.get(0).data());
    vbv.copyFrom(t.get(1).data());
    vbh.copyFrom(t.get(2).data());
    iteration = (int) state.iteration();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stats.close();
    trainData.close();
    testData.close();
    vw.close();
    vbv.close();
    vbh.close();
    rbm.close();
  }

  @Override
  public String toString() {
    return "RbmNet{" + name() + ", k=" + config.k() + ", " + config.hiddenUnits() + " hidden}";
  }
}
