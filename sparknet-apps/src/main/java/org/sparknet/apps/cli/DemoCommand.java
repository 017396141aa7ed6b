package org.sparknet.apps.cli;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.Compression;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
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
              + " rate falling linearly to 0 at the last epoch); default ${DEFAULT-VALUE}.")
  String recipe;

  @Option(
      names = "--epochs",
      description = "Passes over the training set; default 3 (lenet) or 7 (fast).")
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

  @Mixin DeviceOptions deviceOptions = new DeviceOptions();

  @Mixin CompressOption compressOption = new CompressOption();

  @Override
  public Integer call() {
    FashionRecipe chosen = FashionRecipe.named(recipe);
    int workers = run.workers("SparkNet demo");
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
    Compression compression = compressOption.compression();
    PrintStream out = System.out;
    FashionMnist dataset = fashionMnist.locate();
    StoragePath plotFile = TrainCommand.outputOption(plot, "--plot");
    IdxDataset train = dataset.train();
    IdxDataset test = dataset.test();
    String sparkMaster = run.sparkMaster(workers);
    long examplesPerRound = (long) workers * tau * chosen.trainBatch();
    // Never more than the epochs asked for: the accuracy is reported "after N epochs".
    int rounds = Math.max(1, (int) Math.floor(epochs * train.count() / examplesPerRound));
    NetDefinition net =
        deviceOptions.apply(chosen.definition(run.seed, lr, (long) rounds * tau), sparkMaster);
    out.printf(
        "SparkNet demo: %s on Fashion-MNIST (%,d train / %,d test images from %s)%n",
        chosen.netName(), train.count(), test.count(), dataset.dir());
    out.printf(
        "%d workers, tau=%d steps of batch %d, %d rounds (%.1f epochs)%n",
        workers, tau, chosen.trainBatch(), rounds, epochs);

    TrainerConfig config = run.config(net, workers, tau, rounds).optCompress(compression).build();
    SparkSession spark = SparkSessions.local(sparkMaster, "SparkNet demo");
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      JavaRDD<Example> trainRdd = train.toRdd(sc, workers, 1f / 256);
      JavaRDD<Example> testRdd = test.toRdd(sc, workers, 1f / 256);
      TrainingCurves curves = new TrainingCurves(Axis.linear("epoch"), "Fashion-MNIST");
      long start = System.nanoTime();
      try (SparkNetTrainer trainer = LocalRunOptions.trainer(sc, config, trainRdd, testRdd, out)) {
        Progress p = trainRounds(trainer, rounds, train.count(), curves, out);
        double seconds = (System.nanoTime() - start) / 1e9;
        plotFile.write(curves.toFigure().toPng(), true);
        out.printf(
            "Final test accuracy %.4f after %.2f epochs in %.0f s; curves written to %s%n",
            p.accuracy(), p.epoch(), seconds, plotFile);
      }
    } finally {
      spark.stop();
    }
    return SparkNetCli.EXIT_OK;
  }

  /** Where training ended: the epochs done and the last test accuracy. */
  private record Progress(double epoch, float accuracy) {}

  /** Trains {@code rounds} rounds, testing at every epoch boundary and after the last round. */
  private static Progress trainRounds(
      SparkNetTrainer trainer, int rounds, int trainCount, TrainingCurves curves, PrintStream out) {
    float finalAccuracy = Float.NaN;
    double epoch = 0;
    long seen = 0;
    int epochsDone = 0;
    for (int r = 1; r <= rounds; r++) {
      RoundMetrics m = trainer.trainRound();
      seen += m.examples();
      epoch = (double) seen / trainCount;
      curves.addTraining(epoch, m.meanLoss());
      String acc = "";
      if ((int) Math.floor(epoch + 1e-9) > epochsDone || r == rounds) {
        epochsDone = (int) Math.floor(epoch + 1e-9);
        Map<String, Float> tested = trainer.test();
        finalAccuracy = accuracy(tested);
        curves.addTest(epoch, tested);
        acc = String.format("  test accuracy %.4f", finalAccuracy);
      }
      out.printf(
          "%s round %3d/%d  epoch %.2f  loss %.4f  %,6.0f img/s  compute %3.0f%%%s%n",
          ProgressBar.render(r, rounds, 20),
          r,
          rounds,
          epoch,
          m.meanLoss(),
          m.imagesPerSecond(),
          100.0 * m.computeMillis() / Math.max(1, m.wallMillis()),
          acc);
    }
    return new Progress(epoch, finalAccuracy);
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
