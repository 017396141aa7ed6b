package org.sparknet.api.testnet;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * Softmax regression in plain Java: one linear layer "fc" (weights [classes, features], bias
 * [classes]) and a softmax cross-entropy loss, trained by Caffe-style SGD with momentum ({@code v =
 * m v + lr g; w -= v}). Its input blobs "data" [batch, features] and "label" [batch] are owning
 * native arrays, so the trainer's feeders write into native memory as they do for Caffe, and the
 * leak check sees a net that is not closed.
 *
 * <p>The solver text is a list of {@code key=value} lines: {@code features}, {@code classes},
 * {@code batch}, {@code testBatch} (default: batch), {@code lr}, {@code momentum} (default 0),
 * {@code init} (std of the initial weights, default 0.01; drawn from the definition's seed), {@code
 * stepsize} and {@code gamma} (Caffe's "step" policy, {@code lr gamma^floor(iter / stepsize)};
 * default: a fixed rate), {@code maxIter} (Caffe's "poly" policy of power 1, {@code lr (1 - iter /
 * maxIter)}, whose end {@link #setMaxIterations} moves as Caffe's does), and {@code stepMillis} (a
 * sleep in every training step, default 0: a stand-in for a slow engine or a slow machine). {@link
 * #slowDown} adds a sleep to the nets of one seed while they run: a worker that becomes slow in the
 * middle of training.
 */
public final class SoftmaxNet implements Net {
  private static final AtomicInteger LIVE = new AtomicInteger();
  private static final Map<Long, Long> SLOWDOWNS = new java.util.concurrent.ConcurrentHashMap<>();
  private static final Map<Long, Float> LAST_RATES = new java.util.concurrent.ConcurrentHashMap<>();

  private final int features;
  private final int classes;
  private final int batch;
  private final int testBatch;
  private final float lr;
  private final float momentum;
  private final int stepsize;
  private final float gamma;
  private long maxIter;
  private final long stepMillis;
  private final long seed;
  private final float[] w;
  private final float[] b;
  private final float[] vw;
  private final float[] vb;
  private final NDArray trainData;
  private final NDArray trainLabel;
  private final NDArray testData;
  private final NDArray testLabel;
  private int iteration;
  private boolean closed;

  public SoftmaxNet(NetDefinition d) {
    Map<String, String> kv = new HashMap<>();
    for (String line : d.solverText().split("\n")) {
      line = line.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("Bad solver line '" + line + "': expected key=value");
      }
      kv.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
    }
    features = Integer.parseInt(required(kv, "features"));
    classes = Integer.parseInt(required(kv, "classes"));
    batch = Integer.parseInt(required(kv, "batch"));
    testBatch = Integer.parseInt(kv.getOrDefault("testBatch", Integer.toString(batch)));
    lr = Float.parseFloat(required(kv, "lr"));
    momentum = Float.parseFloat(kv.getOrDefault("momentum", "0"));
    stepsize = Integer.parseInt(kv.getOrDefault("stepsize", "0"));
    gamma = Float.parseFloat(kv.getOrDefault("gamma", "1"));
    maxIter = Long.parseLong(kv.getOrDefault("maxIter", "0"));
    stepMillis = Long.parseLong(kv.getOrDefault("stepMillis", "0"));
    seed = d.seed();
    float init = Float.parseFloat(kv.getOrDefault("init", "0.01"));
    w = new float[classes * features];
    b = new float[classes];
    vw = new float[w.length];
    vb = new float[b.length];
    SplittableRandom rnd = new SplittableRandom(d.seed());
    for (int i = 0; i < w.length; i++) {
      w[i] = (float) (init * gaussian(rnd));
    }
    trainData = NDArray.zeros(batch, features);
    trainLabel = NDArray.zeros(batch);
    testData = NDArray.zeros(testBatch, features);
    testLabel = NDArray.zeros(testBatch);
    LIVE.incrementAndGet();
  }

  private static void sleep(long millis) {
    if (millis <= 0) {
      return;
    }
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * From now on every training step of the nets built from a definition of seed {@code seed} (in
   * this JVM) sleeps {@code millis} more; 0 ends it.
   */
  public static void slowDown(long seed, long millis) {
    if (millis == 0) {
      SLOWDOWNS.remove(seed);
    } else {
      SLOWDOWNS.put(seed, millis);
    }
  }

  /** The learning rate of the last training step of a net of seed {@code seed}, or null. */
  public static Float lastRate(long seed) {
    return LAST_RATES.get(seed);
  }

  /** Nets created and not yet closed, in this JVM. */
  public static int live() {
    return LIVE.get();
  }

  private static String required(Map<String, String> kv, String key) {
    String v = kv.get(key);
    if (v == null) {
      throw new IllegalArgumentException("Solver text of java-softmax lacks '" + key + "='");
    }
    return v;
  }

  private static double gaussian(SplittableRandom rnd) {
    double u = rnd.nextDouble();
    double v = rnd.nextDouble();
    return Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * v);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("SoftmaxNet has been closed");
    }
  }

  @Override
  public String name() {
    return "softmax";
  }

  @Override
  public Map<String, Shape> inputShapes(Phase phase) {
    checkOpen();
    Map<String, Shape> m = new LinkedHashMap<>();
    int n = phase == Phase.TRAIN ? batch : testBatch;
    m.put("data", Shape.of(n, features));
    m.put("label", Shape.of(n));
    return m;
  }

  private Map<String, NDArray> inputs(Phase phase) {
    Map<String, NDArray> m = new LinkedHashMap<>();
    m.put("data", phase == Phase.TRAIN ? trainData : testData);
    m.put("label", phase == Phase.TRAIN ? trainLabel : testLabel);
    return m;
  }

  /** Softmax probabilities [n, classes] of the rows of x; returns them in {@code prob}. */
  private void probabilities(float[] x, int n, float[] prob) {
    for (int r = 0; r < n; r++) {
      float max = Float.NEGATIVE_INFINITY;
      for (int c = 0; c < classes; c++) {
        float z = b[c];
        int wo = c * features;
        int xo = r * features;
        for (int k = 0; k < features; k++) {
          z += w[wo + k] * x[xo + k];
        }
        prob[r * classes + c] = z;
        max = Math.max(max, z);
      }
      float sum = 0;
      for (int c = 0; c < classes; c++) {
        float e = (float) Math.exp(prob[r * classes + c] - max);
        prob[r * classes + c] = e;
        sum += e;
      }
      for (int c = 0; c < classes; c++) {
        prob[r * classes + c] /= sum;
      }
    }
  }

  private int labelOf(float[] y, int r) {
    int c = (int) y[r];
    if (c < 0 || c >= classes || c != y[r]) {
      throw new IllegalArgumentException(
          "Label " + y[r] + " of row " + r + " is not a class in [0, " + classes + ")");
    }
    return c;
  }

  @Override
  public float train(int numSteps, BatchFeeder feeder) {
    checkOpen();
    float[] prob = new float[batch * classes];
    float[] gw = new float[w.length];
    float[] gb = new float[b.length];
    double lossSum = 0;
    for (int s = 0; s < numSteps; s++) {
      sleep(stepMillis + SLOWDOWNS.getOrDefault(seed, 0L));
      feeder.fill(inputs(Phase.TRAIN));
      float[] x = trainData.toArray();
      float[] y = trainLabel.toArray();
      probabilities(x, batch, prob);
      java.util.Arrays.fill(gw, 0f);
      java.util.Arrays.fill(gb, 0f);
      float loss = 0;
      for (int r = 0; r < batch; r++) {
        int t = labelOf(y, r);
        loss -= (float) Math.log(Math.max(prob[r * classes + t], Float.MIN_NORMAL));
        for (int c = 0; c < classes; c++) {
          float d = (prob[r * classes + c] - (c == t ? 1f : 0f)) / batch;
          gb[c] += d;
          int wo = c * features;
          int xo = r * features;
          for (int k = 0; k < features; k++) {
            gw[wo + k] += d * x[xo + k];
          }
        }
      }
      float rate =
          maxIter > 0
              ? (float) learningRate(iteration)
              : stepsize > 0 ? lr * (float) Math.pow(gamma, iteration / stepsize) : lr;
      LAST_RATES.put(seed, rate);
      for (int i = 0; i < w.length; i++) {
        vw[i] = momentum * vw[i] + rate * gw[i];
        w[i] -= vw[i];
      }
      for (int i = 0; i < b.length; i++) {
        vb[i] = momentum * vb[i] + rate * gb[i];
        b[i] -= vb[i];
      }
      lossSum += loss / batch;
      iteration++;
    }
    return (float) (lossSum / numSteps);
  }

  @Override
  public Map<String, Float> test(int numSteps, BatchFeeder feeder) {
    checkOpen();
    float[] prob = new float[testBatch * classes];
    double lossSum = 0;
    double correct = 0;
    for (int s = 0; s < numSteps; s++) {
      feeder.fill(inputs(Phase.TEST));
      float[] x = testData.toArray();
      float[] y = testLabel.toArray();
      probabilities(x, testBatch, prob);
      for (int r = 0; r < testBatch; r++) {
        int t = labelOf(y, r);
        lossSum -= Math.log(Math.max(prob[r * classes + t], Float.MIN_NORMAL));
        int best = 0;
        for (int c = 1; c < classes; c++) {
          if (prob[r * classes + c] > prob[r * classes + best]) {
            best = c;
          }
        }
        if (best == t) {
          correct++;
        }
      }
    }
    Map<String, Float> out = new LinkedHashMap<>();
    out.put("loss", (float) (lossSum / ((double) numSteps * testBatch)));
    out.put("accuracy", (float) (correct / ((double) numSteps * testBatch)));
    return out;
  }

  @Override
  public Map<String, NDArray> forward(BatchFeeder feeder, List<String> blobs) {
    checkOpen();
    feeder.fill(inputs(Phase.TEST));
    float[] prob = new float[testBatch * classes];
    probabilities(testData.toArray(), testBatch, prob);
    Map<String, NDArray> out = new LinkedHashMap<>();
    for (String blob : blobs) {
      if (!blob.equals("prob")) {
        throw new IllegalArgumentException("SoftmaxNet has no blob '" + blob + "'; it has [prob]");
      }
      out.put(blob, NDArray.create(prob, testBatch, classes));
    }
    return out;
  }

  @Override
  public WeightCollection getWeights() {
    checkOpen();
    return new WeightCollection()
        .put(
            "fc",
            List.of(
                new WeightCollection.Tensor(Shape.of(classes, features), w.clone()),
                new WeightCollection.Tensor(Shape.of(classes), b.clone())));
  }

  @Override
  public void setWeights(WeightCollection weights) {
    checkOpen();
    getWeights().checkSameStructure(weights);
    List<WeightCollection.Tensor> fc = weights.get("fc");
    System.arraycopy(fc.get(0).data(), 0, w, 0, w.length);
    System.arraycopy(fc.get(1).data(), 0, b, 0, b.length);
  }

  @Override
  public int iteration() {
    checkOpen();
    return iteration;
  }

  @Override
  public double learningRate(long iter) {
    if (maxIter > 0) {
      return lr * (1 - (double) iter / maxIter);
    }
    return stepsize > 0 ? lr * Math.pow(gamma, iter / stepsize) : lr;
  }

  @Override
  public boolean setMaxIterations(long maxIterations) {
    checkOpen();
    if (maxIter == 0) {
      return false; // no poly policy: nothing depends on the end
    }
    maxIter = maxIterations;
    return true;
  }

  @Override
  public boolean hasSolverState() {
    return true;
  }

  /** The iteration and the momentum history (layer "fc": [classes, features] and [classes]). */
  @Override
  public SolverState getSolverState() {
    checkOpen();
    return new SolverState(
        iteration,
        new WeightCollection()
            .put(
                "fc",
                List.of(
                    new WeightCollection.Tensor(Shape.of(classes, features), vw.clone()),
                    new WeightCollection.Tensor(Shape.of(classes), vb.clone()))));
  }

  @Override
  public void setSolverState(SolverState state) {
    checkOpen();
    getWeights().checkSameStructure(state.history());
    if (state.iteration() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("iteration " + state.iteration() + " is too large");
    }
    List<WeightCollection.Tensor> fc = state.history().get("fc");
    System.arraycopy(fc.get(0).data(), 0, vw, 0, vw.length);
    System.arraycopy(fc.get(1).data(), 0, vb, 0, vb.length);
    iteration = (int) state.iteration();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    trainData.close();
    trainLabel.close();
    testData.close();
    testLabel.close();
    LIVE.decrementAndGet();
  }
}
