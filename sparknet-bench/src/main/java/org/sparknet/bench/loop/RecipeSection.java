package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.SCALE;
import static org.sparknet.bench.loop.BenchRun.log;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;

/**
 * Section 17: the search for a faster Fashion-MNIST recipe. Every candidate trains on the first
 * 54,000 training images and is tuned on the last 6,000 (held out, never trained on); the test set
 * is read once per recipe, after its last round, so that the choice is never made on it.
 */
final class RecipeSection {
  static final int HELD_OUT = 6_000;

  /** Validation tests per epoch: often enough to see when a recipe crosses 0.91. */
  private static final int TESTS_PER_EPOCH = 4;

  private final BenchRun run;
  private final double epochs;
  private final StringBuilder rows = new StringBuilder();

  RecipeSection(BenchRun run) {
    this.run = run;
    this.epochs = run.opt().quick() ? 0.1 : run.opt().recipeEpochs();
  }

  /**
   * What a recipe reached: validation accuracy at each test, by epoch and by training second, and
   * the test accuracy at the end.
   */
  private record Result(AccuracyCurve byEpoch, AccuracyCurve bySecond, double test, double ips) {
    double best() {
      return byEpoch.best();
    }

    /** The training seconds at which validation accuracy first reached {@code target}, or NaN. */
    double secondsTo(double target) {
      return bySecond.reaching(target);
    }

    /** The validation accuracy of the last test at or before {@code epoch}. */
    String at(double epoch) {
      return byEpoch.at(epoch);
    }
  }

  void run() {
    String load = Machine.loadAverage();
    Sgemm.setThreads(1);
    int trainCount = run.train().count() - HELD_OUT;
    JavaRDD<Example> train = run.train().toRdd(run.sc(), 0, trainCount, 2, SCALE).cache();
    JavaRDD<Example> val =
        run.train().toRdd(run.sc(), trainCount, run.train().count(), 2, SCALE).cache();
    for (String name : run.opt().recipes()) {
      Recipe recipe = Recipe.named(name);
      Result r = train(recipe, train, val, trainCount);
      log(
          "recipe %s: %.0f img/s, best validation %.4f, test %.4f, validation 0.91 at %s s",
          name, r.ips(), r.best(), r.test(), r.secondsTo(0.91));
      rows.append(row(recipe, r));
    }
    train.unpersist();
    val.unpersist();
    report(load, trainCount);
  }

  private Result train(Recipe recipe, JavaRDD<Example> train, JavaRDD<Example> val, int count) {
    long stepsPerEpoch = count / ((long) BenchRun.WORKERS * recipe.batch());
    int rounds = (int) Math.max(1, Math.round(epochs * stepsPerEpoch / recipe.tau()));
    NetDefinition def = recipe.definition(BenchRun.SEED, (long) rounds * recipe.tau());
    int testEvery = (int) Math.max(1, Math.round(rounds / (epochs * TESTS_PER_EPOCH)));
    List<Double> atEpoch = new ArrayList<>();
    List<Double> atSecond = new ArrayList<>();
    List<Double> acc = new ArrayList<>();
    double clock = 0;
    long seen = 0;
    try (SparkNetTrainer t =
        run.trainer(
            BenchRun.config(def, recipe.tau(), BenchRun.WORKERS)
                .optAveraging(recipe.averaging()))) {
      t.setTrainingData(train);
      t.setValidationData(val);
      for (int k = 1; k <= rounds; k++) {
        RoundMetrics m = t.trainRound();
        clock += m.wallMillis() / 1000.0;
        seen += m.examples();
        if (k % testEvery == 0 || k == rounds) {
          atEpoch.add((double) seen / count);
          atSecond.add(clock);
          acc.add((double) t.test().get("accuracy"));
          log(
              "  %s epoch %.2f, %.0f s: validation %.4f, loss %.4f",
              recipe.name(), seen / (double) count, clock, acc.get(acc.size() - 1), m.meanLoss());
        }
      }
      t.setValidationData(run.testRdd());
      double test = t.test().get("accuracy");
      return new Result(
          new AccuracyCurve(atEpoch, acc), new AccuracyCurve(atSecond, acc), test, seen / clock);
    }
  }

  private String row(Recipe recipe, Result r) {
    double to91 = r.secondsTo(0.91);
    return String.format(
        Locale.ROOT,
        "| `%s` | %s | %d | %,.0f | %s | %s | %s | %.4f | %s | %.4f |%n",
        recipe.name(),
        recipe.summary(),
        recipe.tau(),
        r.ips(),
        r.at(1),
        r.at(2),
        r.at(epochs),
        r.best(),
        Double.isNaN(to91) ? "not reached" : String.format(Locale.ROOT, "%.0f s", to91),
        r.test());
  }

  private void report(String load, int trainCount) {
    StringBuilder md = new StringBuilder("### 17. Recipes for Fashion-MNIST: the search\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Each recipe (net and solver under `sparknet-bench/src/main/resources/org/sparknet/"
                + "bench/recipes/`, unchanged Caffe prototxt) trains on the first %,d training"
                + " images, 2 workers on `local[2]`, 1 BLAS thread each, seed %d, for %.1f epochs."
                + " The solver's `max_iter` is set to the steps each worker runs, so that a `poly`"
                + " learning rate reaches 0 at the end. Validation: the last %,d training images,"
                + " held out, tested %d times an epoch; that is what the recipes were chosen on."
                + " The test set (10,000 images) is read once per recipe, after its last round."
                + " Seconds are training rounds' wall time (tests excluded). Load average %s"
                + " before.%n%n",
            trainCount,
            BenchRun.SEED,
            epochs,
            HELD_OUT,
            TESTS_PER_EPOCH,
            load));
    md.append(
        String.format(
            Locale.ROOT,
            "| recipe | what | tau | images/s | validation at epoch 1 | at 2 | at %.0f | best"
                + " validation | validation 0.91 at | test at the end |%n"
                + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|%n",
            epochs));
    md.append(rows);
    run.write("loop-recipes", md);
  }
}
