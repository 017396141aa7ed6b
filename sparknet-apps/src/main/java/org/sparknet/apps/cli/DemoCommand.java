package org.sparknet.apps.cli;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TimeBudget;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.apps.data.IdxDataset;
import org.sparknet.apps.mnist.FashionRecipe;
import org.sparknet.apps.plot.Axis;
import org.sparknet.apps.plot.TrainingCurves;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The main job: LeNet (or the fast recipe) on Fashion-MNIST, trained with model averaging on a
 * local Spark.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Train LeNet on Fashion-MNIST (60,000 training and 10,000 test images) on an embedded local"
          + " Spark with model averaging, print one line per round and the final test accuracy, and"
          + " write a PNG of the loss and accuracy curves."
    })
public final class DemoCommand implements Callable<Integer> {

  @Mixin FashionMnistOption fashionMnist = new FashionMnistOption();

  @Option(
      names = "--recipe",
      defaultValue = "lenet",
      description =
          "lenet (Caffe's LeNet, SGD, inv policy) or fast (the recipe tuned for time to accuracy on"
              + " 2 cores: convolutions of 32 and 64 filters, dropout, batch 32, Nesterov, learning"
              + " rate falling linearly to 0 at the last step that fits in --time-budget, 5m by"
              + " default); default ${DEFAULT-VALUE}.")
  String recipe;

  @Option(
      names = "--epochs",
      description =
          "Passes over the training set; default 3 (lenet). The fast recipe is planned by"
              + " --time-budget instead unless --epochs is given.")
  Double epochs;

  @Option(
      names = "--lr",
      description = "Base learning rate; default 0.03 (lenet) or the fast solver's base_lr.")
  Double lr;

  @Option(
      names = "--plot",
      defaultValue = "sparknet-demo.png",
      description = "PNG file for the curves (a Hadoop URI or path); default ${DEFAULT-VALUE}.")
  String plot;

  @Mixin LocalRunOptions run = new LocalRunOptions();

  @Mixin CompressOption compressOption = new CompressOption();

  @Mixin TimeBudgetOption timeBudget = new TimeBudgetOption();

  @Override
  public Integer call() {
    FashionRecipe chosen = FashionRecipe.named(recipe);
    LocalRunOptions.Placement placement =
        run.place("SparkNet demo", chosen.definition(run.seed, lr, 1));
    int workers = placement.workers();
    int tau = run.tau(chosen.tau());
    double epochs = this.epochs == null ? chosen.epochs() : this.epochs;
    if (workers < 1 || tau < 1 || !(epochs > 0) || (lr != null && !(lr > 0))) {
      throw new IllegalArgumentException(
          "--workers and --tau must be >= 1 and --epochs and --lr > 0 (got workers="
              + workers
              + ", tau="
              + tau
              + ", epochs="
              + epochs
              + ", lr="
              + lr
              + ")");
    }
    // --epochs plans in epochs; a budget (--time-budget, or the recipe's) plans in time; given
    // both, the run ends at whichever comes first.
    TimeBudget budget = timeBudget.budget(this.epochs == null ? chosen.budget() : null);
    Compression compression = compressOption.compression();
    PrintStream out = System.out;
    StoragePath plotFile = TrainCommand.outputOption(plot, "--plot");
    plotFile.checkWritable(false, "--plot");
    run.checkOutputs();
    FashionMnist dataset = fashionMnist.locate();
    IdxDataset train = dataset.train();
    IdxDataset test = dataset.test();
    String sparkMaster = run.sparkMaster(workers);
    long examplesPerRound = (long) workers * tau * chosen.trainBatch();
    // Never more than the epochs asked for: the accuracy is reported "after N epochs".
    int epochRounds = Math.max(1, (int) Math.floor(epochs * train.count() / examplesPerRound));
    int rounds = budget != null && this.epochs == null ? 0 : epochRounds;
    NetDefinition net =
        placement.onDevice(chosen.definition(run.seed, lr, (long) epochRounds * tau));
    out.printf(
        "SparkNet demo: %s on Fashion-MNIST (%,d train / %,d test images from %s)%n",
        chosen.netName(), train.count(), test.count(), dataset.dir());
    out.printf(
        "%d workers, tau=%d steps of batch %d, %s%n",
        workers,
        tau,
        chosen.trainBatch(),
        rounds == 0
            ? "planned by time: " + budget + " (the steps are re-planned every round)"
            : String.format(
                "%d rounds (%.1f epochs)%s",
                rounds, epochs, budget == null ? "" : " or " + budget));

    TrainerConfig.Builder config = run.config(net, workers, tau, rounds).optCompress(compression);
    if (budget != null) {
      config.optTimeBudget(budget);
    }
    SparkSession spark = SparkSessions.local(sparkMaster, "SparkNet demo");
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      JavaRDD<Example> trainRdd = train.toRdd(sc, workers, 1f / 256);
      JavaRDD<Example> testRdd = test.toRdd(sc, workers, 1f / 256);
      TrainingCurves curves = new TrainingCurves(Axis.linear("epoch"), "Fashion-MNIST");
      long start = System.nanoTime();
      try (SparkNetTrainer trainer =
          LocalRunOptions.trainer(sc, config.build(), trainRdd, testRdd, out)) {
        Progress p = new Rounds(trainer, rounds, train.count(), curves, out).run();
        double seconds = (System.nanoTime() - start) / 1e9;
        plotFile.write(curves.toFigure().toPng(), true);
        out.printf(
            "Final test accuracy %.4f after %.2f epochs in %.0f s; curves written to %s%n",
            p.accuracy(), p.epoch(), seconds, plotFile);
        out.printf(
            "Best test accuracy %.4f (epoch %.2f); %,d steps per worker%n",
            p.best(), p.bestEpoch(), trainer.iteration());
      }
    } finally {
      spark.stop();
    }
    return SparkNetCli.EXIT_OK;
  }

  /** Where training ended: the epochs done, the last test accuracy and the best one. */
  private record Progress(double epoch, float accuracy, float best, double bestEpoch) {}

  /**
   * The demo's rounds: {@code rounds} of them, or (0) until the trainer's time budget is spent;
   * tested at every epoch boundary and after the last round.
   */
  private record Rounds(
      SparkNetTrainer trainer, int rounds, int trainCount, TrainingCurves curves, PrintStream out) {
    Progress run() {
      float last = Float.NaN;
      float best = Float.NaN;
      double bestEpoch = 0;
      double epoch = 0;
      long seen = 0;
      int epochsDone = 0;
      for (int r = 1; (rounds == 0 || r <= rounds) && !trainer.budgetSpent(); r++) {
        RoundMetrics m = trainer.trainRound();
        seen += m.examples();
        epoch = (double) seen / trainCount;
        curves.addTraining(epoch, m.meanLoss());
        String acc = "";
        if ((int) Math.floor(epoch + 1e-9) > epochsDone || r == rounds || trainer.budgetSpent()) {
          epochsDone = (int) Math.floor(epoch + 1e-9);
          Map<String, Float> tested = trainer.test();
          last = accuracy(tested);
          if (!(last <= best)) {
            best = last;
            bestEpoch = epoch;
          }
          curves.addTest(epoch, tested);
          acc = String.format("  test accuracy %.4f", last);
        }
        out.printf(
            "%s  epoch %.2f  loss %.4f  %,6.0f img/s  compute %3.0f%%%s%n",
            position(r, m),
            epoch,
            m.meanLoss(),
            m.imagesPerSecond(),
            100.0 * m.computeMillis() / Math.max(1, m.wallMillis()),
            acc);
      }
      return new Progress(epoch, last, best, bestEpoch);
    }

    /** The bar and the round: of the rounds, or of the steps a time budget plans now. */
    private String position(int r, RoundMetrics m) {
      if (rounds > 0) {
        return String.format("%s round %3d/%d", ProgressBar.render(r, rounds, 20), r, rounds);
      }
      long planned = Math.max(trainer.plannedIterations(), m.iteration());
      return String.format(
          "%s round %3d  step %,d/%,d",
          ProgressBar.render(m.iteration(), planned, 20), r, m.iteration(), planned);
    }
  }

  private static float accuracy(Map<String, Float> testMetrics) {
    Float a = testMetrics.get("accuracy");
    if (a == null) {
      throw new IllegalStateException(
          "The test net reports no 'accuracy' output; it has " + testMetrics.keySet());
    }
    return a;
  }
}
