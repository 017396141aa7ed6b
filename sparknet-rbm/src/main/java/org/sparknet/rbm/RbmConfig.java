package org.sparknet.rbm;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.sparknet.api.NetDefinition;

/**
 * The definition of an RBM net: the solver text of a {@link NetDefinition} with engine {@value
 * RbmNetProvider#ENGINE}, one {@code key: value} a line ({@code #} starts a comment):
 *
 * <pre>
 * visible: 784        # visible units (the width of input blob "data")     required
 * hidden: 1000        # hidden units                                       required
 * k: 1                # Gibbs steps of CD-k                                default 1
 * batch: 100          # training batch                                     required
 * test_batch: 100     # batch of test() and forward()                      default: batch
 * base_lr: 0.1        # SGD learning rate                                  required
 * momentum: 0.5       # SGD momentum (Caffe's form: v = m v + lr g)        default 0
 * weight_decay: 2e-4  # L2 penalty on the weights (not the biases)         default 0
 * init_std: 0.01      # std of the initial Gaussian weights; biases 0      default 0.01
 * hidden_units: binary  # binary, or gaussian (linear units plus N(0, 1))  default binary
 * seed: 0             # mixed with the definition's seed                   default 0
 * </pre>
 *
 * <p>The weights are drawn from {@code seed} alone, so every worker of a trainer starts from the
 * same RBM; the Gibbs sampler's random numbers from {@code seed} and {@link NetDefinition#seed()},
 * which the trainer varies per partition.
 */
public record RbmConfig(
    int visible,
    int hidden,
    int k,
    int batch,
    int testBatch,
    float baseLr,
    float momentum,
    float weightDecay,
    float initStd,
    HiddenUnits hiddenUnits,
    long seed) {

  /** The kind of hidden unit. */
  public enum HiddenUnits {
    /** Binary stochastic units: p(h = 1 | v) = sigmoid(b + v W). */
    BINARY,
    /**
     * Linear units with unit-variance Gaussian noise (Hinton and Salakhutdinov 2006, the code
     * layer): h = b + v W + N(0, 1); "hidden" is the mean.
     */
    GAUSSIAN
  }

  private static final List<String> KEYS =
      List.of(
          "visible",
          "hidden",
          "k",
          "batch",
          "test_batch",
          "base_lr",
          "momentum",
          "weight_decay",
          "init_std",
          "hidden_units",
          "seed");

  public RbmConfig {
    Objects.requireNonNull(hiddenUnits, "hiddenUnits");
    positive("visible", visible);
    positive("hidden", hidden);
    positive("k", k);
    positive("batch", batch);
    positive("test_batch", testBatch);
    if (!(baseLr > 0) || !Float.isFinite(baseLr)) {
      throw bad("base_lr", Float.toString(baseLr), "a finite number > 0");
    }
    if (!(momentum >= 0 && momentum < 1)) {
      throw bad("momentum", Float.toString(momentum), "a number in [0, 1)");
    }
    if (!(weightDecay >= 0) || !Float.isFinite(weightDecay)) {
      throw bad("weight_decay", Float.toString(weightDecay), "a finite number >= 0");
    }
    if (!(initStd >= 0) || !Float.isFinite(initStd)) {
      throw bad("init_std", Float.toString(initStd), "a finite number >= 0");
    }
    if ((long) visible * hidden > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "RBM definition: visible x hidden = "
              + (long) visible * hidden
              + " weights is more than one native array can hold; use fewer units");
    }
  }

  /** A binary RBM with CD-1, no momentum or weight decay, init_std 0.01, seed 0. */
  public static RbmConfig of(int visible, int hidden, int batch, float baseLr) {
    return new RbmConfig(
        visible, hidden, 1, batch, batch, baseLr, 0f, 0f, 0.01f, HiddenUnits.BINARY, 0L);
  }

  public RbmConfig withK(int newK) {
    return with(d -> d.k = newK);
  }

  public RbmConfig withSolver(float newLr, float newMomentum, float newWeightDecay) {
    return with(
        d -> {
          d.baseLr = newLr;
          d.momentum = newMomentum;
          d.weightDecay = newWeightDecay;
        });
  }

  public RbmConfig withHiddenUnits(HiddenUnits units) {
    return with(d -> d.hiddenUnits = units);
  }

  public RbmConfig withBatches(int newBatch, int newTestBatch) {
    return with(
        d -> {
          d.batch = newBatch;
          d.testBatch = newTestBatch;
        });
  }

  public RbmConfig withSeed(long newSeed) {
    return with(d -> d.seed = newSeed);
  }

  /** A copy with the fields that {@code change} sets on a draft of this one, checked again. */
  private RbmConfig with(Consumer<Draft> change) {
    Draft d = new Draft(this);
    change.accept(d);
    return new RbmConfig(
        d.visible,
        d.hidden,
        d.k,
        d.batch,
        d.testBatch,
        d.baseLr,
        d.momentum,
        d.weightDecay,
        d.initStd,
        d.hiddenUnits,
        d.seed);
  }

  /** The fields of a configuration being changed by {@link #with}. */
  private static final class Draft {
    int visible;
    int hidden;
    int k;
    int batch;
    int testBatch;
    float baseLr;
    float momentum;
    float weightDecay;
    float initStd;
    HiddenUnits hiddenUnits;
    long seed;

    Draft(RbmConfig c) {
      visible = c.visible;
      hidden = c.hidden;
      k = c.k;
      batch = c.batch;
      testBatch = c.testBatch;
      baseLr = c.baseLr;
      momentum = c.momentum;
      weightDecay = c.weightDecay;
      initStd = c.initStd;
      hiddenUnits = c.hiddenUnits;
      seed = c.seed;
    }
  }

  /** This configuration as the solver text that {@link #parse} reads back. */
  public String text() {
    return String.format(
        Locale.ROOT,
        "visible: %d%nhidden: %d%nk: %d%nbatch: %d%ntest_batch: %d%nbase_lr: %s%nmomentum: %s%n"
            + "weight_decay: %s%ninit_std: %s%nhidden_units: %s%nseed: %d%n",
        visible,
        hidden,
        k,
        batch,
        testBatch,
        Float.toString(baseLr),
        Float.toString(momentum),
        Float.toString(weightDecay),
        Float.toString(initStd),
        hiddenUnits.name().toLowerCase(Locale.ROOT),
        seed);
  }

  /** A definition of engine {@value RbmNetProvider#ENGINE} on the CPU with this text. */
  public NetDefinition definition(long definitionSeed) {
    return new NetDefinition(RbmNetProvider.ENGINE, text(), null, null, definitionSeed, "cpu");
  }

  /**
   * Parses solver text of the format above.
   *
   * @throws IllegalArgumentException naming the line or field at fault: an unknown or repeated key,
   *     a missing required one, or a value of the wrong type or range
   */
  public static RbmConfig parse(String text) {
    Objects.requireNonNull(text, "text");
    Map<String, String> kv = new LinkedHashMap<>();
    String[] lines = text.split("\\R");
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      int hash = line.indexOf('#');
      if (hash >= 0) {
        line = line.substring(0, hash);
      }
      line = line.strip();
      if (line.isEmpty()) {
        continue;
      }
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException(
            "RBM definition, line "
                + (i + 1)
                + " '"
                + lines[i].strip()
                + "': expected 'key: value' with a key among "
                + KEYS);
      }
      String key = line.substring(0, colon).strip();
      String value = line.substring(colon + 1).strip();
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException(
            "RBM definition, line "
                + (i + 1)
                + ": unknown field '"
                + key
                + "'; fields are "
                + KEYS);
      }
      if (kv.put(key, value) != null) {
        throw new IllegalArgumentException(
            "RBM definition, line " + (i + 1) + ": field '" + key + "' is given twice");
      }
    }
    int batch = intField(kv, "batch", null);
    String units = kv.getOrDefault("hidden_units", "binary");
    HiddenUnits hu;
    switch (units) {
      case "binary" -> hu = HiddenUnits.BINARY;
      case "gaussian" -> hu = HiddenUnits.GAUSSIAN;
      default -> throw bad("hidden_units", units, "'binary' or 'gaussian'");
    }
    return new RbmConfig(
        intField(kv, "visible", null),
        intField(kv, "hidden", null),
        intField(kv, "k", 1),
        batch,
        intField(kv, "test_batch", batch),
        floatField(kv, "base_lr", null),
        floatField(kv, "momentum", 0f),
        floatField(kv, "weight_decay", 0f),
        floatField(kv, "init_std", 0.01f),
        hu,
        longField(kv, "seed", 0L));
  }

  private static String raw(Map<String, String> kv, String key, Object dflt) {
    String v = kv.get(key);
    if (v == null && dflt == null) {
      throw new IllegalArgumentException(
          "RBM definition lacks the required field '" + key + "'; add a line '" + key + ": ...'");
    }
    return v;
  }

  private static int intField(Map<String, String> kv, String key, Integer dflt) {
    return field(kv, key, dflt, Integer::parseInt, "an integer");
  }

  private static long longField(Map<String, String> kv, String key, Long dflt) {
    return field(kv, key, dflt, Long::parseLong, "an integer");
  }

  private static float floatField(Map<String, String> kv, String key, Float dflt) {
    return field(kv, key, dflt, Float::parseFloat, "a number");
  }

  /** The parsed value of {@code key}, {@code dflt} when absent; an error names what it expects. */
  private static <T> T field(
      Map<String, String> kv, String key, T dflt, Function<String, T> parse, String what) {
    String v = raw(kv, key, dflt);
    if (v == null) {
      return dflt;
    }
    try {
      return parse.apply(v);
    } catch (NumberFormatException e) {
      throw bad(key, v, what);
    }
  }

  private static void positive(String key, int value) {
    if (value < 1) {
      throw bad(key, Integer.toString(value), "an integer >= 1");
    }
  }

  private static IllegalArgumentException bad(String key, String value, String expected) {
    return new IllegalArgumentException(
        "RBM definition: field '" + key + "' is '" + value + "' but must be " + expected);
  }
}
