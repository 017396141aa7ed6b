package org.sparknet.api.net;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A Caffe solver built in Java, written as SolverParameter prototxt: the solver type with its
 * hyper-parameters and the learning-rate policy. Fields that are not set are not written, so
 * Caffe's defaults apply; fields a solver type does not use are rejected instead of being silently
 * ignored.
 *
 * <pre>{@code
 * SolverSpec lenetSolver = SolverSpec.sgd(0.01).optMomentum(0.9).optWeightDecay(0.0005)
 *     .optInvPolicy(0.0001, 0.75).optMaxIter(10000);
 * }</pre>
 *
 * <p>{@link #optRandomSeed} becomes the {@link org.sparknet.api.NetDefinition#seed()} of {@link
 * NetSpec#toNetDefinition}, which SparkNet uses for Caffe's random_seed.
 */
public final class SolverSpec {
  /** Caffe's solver types, with the names Caffe's registry knows them by. */
  public enum Type {
    SGD("SGD"),
    NESTEROV("Nesterov"),
    ADAGRAD("AdaGrad"),
    RMSPROP("RMSProp"),
    ADADELTA("AdaDelta"),
    ADAM("Adam");

    private final String caffeName;

    Type(String caffeName) {
      this.caffeName = caffeName;
    }

    public String caffeName() {
      return caffeName;
    }
  }

  /** Caffe's learning-rate policies. */
  public enum LrPolicy {
    FIXED,
    STEP,
    EXP,
    INV,
    MULTISTEP,
    POLY,
    SIGMOID;

    public String caffeName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Caffe's weight-decay regularization types. */
  public enum Regularization {
    L1,
    L2
  }

  private static final Set<Type> MOMENTUM =
      EnumSet.of(Type.SGD, Type.NESTEROV, Type.ADADELTA, Type.ADAM);
  private static final Set<Type> DELTA =
      EnumSet.of(Type.ADAGRAD, Type.RMSPROP, Type.ADADELTA, Type.ADAM);

  private final Type type;
  private final double baseLr;
  private Double momentum;
  private Double momentum2;
  private Double delta;
  private Double rmsDecay;
  private Double weightDecay;
  private Regularization regularization;
  private Double clipGradients;
  private Integer iterSize;
  private LrPolicy lrPolicy = LrPolicy.FIXED;
  private Double gamma;
  private Double power;
  private Integer stepSize;
  private int[] stepValues;
  private Integer maxIter;
  private Long randomSeed;
  private Integer testIter;
  private Integer testInterval;

  private SolverSpec(Type type, double baseLr) {
    this.type = Objects.requireNonNull(type, "type");
    if (!(baseLr > 0) || Double.isInfinite(baseLr)) {
      throw fail("base_lr", "must be a positive number but was " + baseLr);
    }
    this.baseLr = baseLr;
  }

  /** A solver of this type with this base learning rate and nothing else set. */
  public static SolverSpec of(Type type, double baseLr) {
    return new SolverSpec(type, baseLr);
  }

  /** Stochastic gradient descent (set momentum with {@link #optMomentum}). */
  public static SolverSpec sgd(double baseLr) {
    return of(Type.SGD, baseLr);
  }

  /** Nesterov's accelerated gradient (set momentum with {@link #optMomentum}). */
  public static SolverSpec nesterov(double baseLr) {
    return of(Type.NESTEROV, baseLr);
  }

  /** AdaGrad (no momentum). */
  public static SolverSpec adaGrad(double baseLr) {
    return of(Type.ADAGRAD, baseLr);
  }

  /** RMSProp (no momentum; rms_decay defaults to Caffe's 0.99). */
  public static SolverSpec rmsProp(double baseLr) {
    return of(Type.RMSPROP, baseLr);
  }

  /** AdaDelta with Caffe's example settings: momentum (the decay) 0.95, delta 1e-6. */
  public static SolverSpec adaDelta(double baseLr) {
    return of(Type.ADADELTA, baseLr).optMomentum(0.95).optDelta(1e-6);
  }

  /** Adam with the paper's beta1 = momentum 0.9 (beta2 and epsilon: Caffe's 0.999 and 1e-8). */
  public static SolverSpec adam(double baseLr) {
    return of(Type.ADAM, baseLr).optMomentum(0.9);
  }

  public Type type() {
    return type;
  }

  public double baseLr() {
    return baseLr;
  }

  /** The seed for weight initialisation and dropout, or null for the definition's default (0). */
  public Long randomSeed() {
    return randomSeed;
  }

  // ------------------------------------------------------------------ hyper-parameters

  /** Momentum (SGD, Nesterov), decay (AdaDelta) or beta1 (Adam), in [0, 1). */
  public SolverSpec optMomentum(double m) {
    if (!MOMENTUM.contains(type)) {
      throw fail(
          "momentum",
          "the " + type.caffeName() + " solver does not use momentum (Caffe would abort)");
    }
    this.momentum = unit("momentum", m);
    return this;
  }

  /** Adam's beta2, in [0, 1). */
  public SolverSpec optMomentum2(double m) {
    if (type != Type.ADAM) {
      throw fail("momentum2", "only the Adam solver uses momentum2");
    }
    this.momentum2 = unit("momentum2", m);
    return this;
  }

  /** The small number added to denominators (AdaGrad, RMSProp, AdaDelta, Adam). */
  public SolverSpec optDelta(double d) {
    if (!DELTA.contains(type)) {
      throw fail("delta", "the " + type.caffeName() + " solver does not use delta");
    }
    this.delta = positive("delta", d);
    return this;
  }

  /** RMSProp's decay of the squared-gradient average, in [0, 1]. */
  public SolverSpec optRmsDecay(double d) {
    if (type != Type.RMSPROP) {
      throw fail("rms_decay", "only the RMSProp solver uses rms_decay");
    }
    if (!(d >= 0 && d <= 1)) {
      throw fail("rms_decay", "must lie in [0, 1] but was " + d);
    }
    this.rmsDecay = d;
    return this;
  }

  public SolverSpec optWeightDecay(double d) {
    this.weightDecay = nonNegative("weight_decay", d);
    return this;
  }

  /** L2 (Caffe's default) or L1 weight decay. */
  public SolverSpec optRegularization(Regularization r) {
    this.regularization = Objects.requireNonNull(r, "regularization");
    return this;
  }

  /** Scales the gradient down when its L2 norm exceeds this. */
  public SolverSpec optClipGradients(double maxNorm) {
    this.clipGradients = positive("clip_gradients", maxNorm);
    return this;
  }

  /** Accumulates gradients over this many batches per step. */
  public SolverSpec optIterSize(int n) {
    this.iterSize = positive("iter_size", n);
    return this;
  }

  /** Total iterations (the poly policy needs it). */
  public SolverSpec optMaxIter(int n) {
    this.maxIter = positive("max_iter", n);
    return this;
  }

  public SolverSpec optRandomSeed(long seed) {
    if (seed < 0) {
      throw fail("random_seed", "must be >= 0 (a negative seed means 'random' to Caffe)");
    }
    this.randomSeed = seed;
    return this;
  }

  /** For plain Caffe runs of the written file; SparkNet tests through its own API instead. */
  public SolverSpec optTestIter(int n) {
    this.testIter = positive("test_iter", n);
    return this;
  }

  /** For plain Caffe runs of the written file; SparkNet tests through its own API instead. */
  public SolverSpec optTestInterval(int n) {
    this.testInterval = positive("test_interval", n);
    return this;
  }

  // ------------------------------------------------------------------ learning-rate policies

  private SolverSpec policy(LrPolicy p, Double g, Double pow, Integer step, int[] values) {
    this.lrPolicy = p;
    this.gamma = g;
    this.power = pow;
    this.stepSize = step;
    this.stepValues = values;
    return this;
  }

  /** base_lr throughout (the default). */
  public SolverSpec optFixedPolicy() {
    return policy(LrPolicy.FIXED, null, null, null, null);
  }

  /** base_lr * gamma ^ floor(iter / stepSize). */
  public SolverSpec optStepPolicy(double gamma, int stepSize) {
    return policy(
        LrPolicy.STEP, positive("gamma", gamma), null, positive("stepsize", stepSize), null);
  }

  /** base_lr * gamma ^ iter. */
  public SolverSpec optExpPolicy(double gamma) {
    return policy(LrPolicy.EXP, positive("gamma", gamma), null, null, null);
  }

  /** base_lr * (1 + gamma * iter) ^ -power (LeNet's). */
  public SolverSpec optInvPolicy(double gamma, double power) {
    return policy(
        LrPolicy.INV, nonNegative("gamma", gamma), nonNegative("power", power), null, null);
  }

  /** base_lr * gamma ^ (number of step values passed); step values strictly increasing. */
  public SolverSpec optMultistepPolicy(double gamma, int... stepValues) {
    if (stepValues == null || stepValues.length == 0) {
      throw fail("stepvalue", "the multistep policy needs at least one step value");
    }
    for (int i = 0; i < stepValues.length; i++) {
      if (stepValues[i] <= 0 || (i > 0 && stepValues[i] <= stepValues[i - 1])) {
        throw fail(
            "stepvalue",
            "values must be positive and increase, got " + Arrays.toString(stepValues));
      }
    }
    return policy(LrPolicy.MULTISTEP, positive("gamma", gamma), null, null, stepValues.clone());
  }

  /** base_lr * (1 - iter / max_iter) ^ power; needs {@link #optMaxIter}. */
  public SolverSpec optPolyPolicy(double power) {
    return policy(LrPolicy.POLY, null, nonNegative("power", power), null, null);
  }

  /** base_lr / (1 + exp(-gamma * (iter - stepSize))). */
  public SolverSpec optSigmoidPolicy(double gamma, int stepSize) {
    if (!Double.isFinite(gamma)) {
      throw fail("gamma", "must be finite but was " + gamma);
    }
    return policy(LrPolicy.SIGMOID, gamma, null, positive("stepsize", stepSize), null);
  }

  public LrPolicy lrPolicy() {
    return lrPolicy;
  }

  // ------------------------------------------------------------------ text

  /** The solver as Caffe SolverParameter text (without a net: that is the NetSpec's text). */
  public String toPrototxt() {
    if (lrPolicy == LrPolicy.POLY && maxIter == null) {
      throw fail("max_iter", "the poly policy needs max_iter: call optMaxIter(n)");
    }
    PrototxtWriter w = new PrototxtWriter();
    w.string("type", type.caffeName()).number("base_lr", baseLr);
    opt(w, "momentum", momentum);
    opt(w, "momentum2", momentum2);
    opt(w, "delta", delta);
    opt(w, "rms_decay", rmsDecay);
    opt(w, "weight_decay", weightDecay);
    if (regularization != null) {
      w.string("regularization_type", regularization.name());
    }
    opt(w, "clip_gradients", clipGradients);
    if (iterSize != null) {
      w.bare("iter_size", iterSize);
    }
    w.string("lr_policy", lrPolicy.caffeName());
    opt(w, "gamma", gamma);
    opt(w, "power", power);
    if (stepSize != null) {
      w.bare("stepsize", stepSize);
    }
    if (stepValues != null) {
      for (int v : stepValues) {
        w.bare("stepvalue", v);
      }
    }
    if (maxIter != null) {
      w.bare("max_iter", maxIter);
    }
    if (testIter != null) {
      w.bare("test_iter", testIter);
    }
    if (testInterval != null) {
      w.bare("test_interval", testInterval);
    }
    if (randomSeed != null) {
      w.bare("random_seed", randomSeed);
    }
    return w.toString();
  }

  private static void opt(PrototxtWriter w, String field, Double value) {
    if (value != null) {
      w.number(field, value);
    }
  }

  private IllegalArgumentException fail(String field, String message) {
    return new IllegalArgumentException(
        "solver (" + type.caffeName() + "), field '" + field + "': " + message);
  }

  private double unit(String field, double v) {
    if (!(v >= 0 && v < 1)) {
      throw fail(field, "must lie in [0, 1) but was " + v);
    }
    return v;
  }

  private double positive(String field, double v) {
    if (!(v > 0) || Double.isInfinite(v)) {
      throw fail(field, "must be a positive number but was " + v);
    }
    return v;
  }

  private int positive(String field, int v) {
    if (v <= 0) {
      throw fail(field, "must be positive but was " + v);
    }
    return v;
  }

  private double nonNegative(String field, double v) {
    if (!(v >= 0) || Double.isInfinite(v)) {
      throw fail(field, "must be a finite number >= 0 but was " + v);
    }
    return v;
  }

  @Override
  public String toString() {
    return toPrototxt();
  }
}
