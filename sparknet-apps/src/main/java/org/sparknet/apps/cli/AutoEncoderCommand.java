package org.sparknet.apps.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.autoencoder.AutoEncoderNet;
import org.sparknet.apps.autoencoder.DeepAutoEncoder;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.apps.data.IdxDataset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** SINGA's dimensionality-reduction example: an RBM-pretrained deep auto-encoder versus PCA. */
@Command(
    name = "autoencoder",
    mixinStandardHelpOptions = true,
    description = {
      "Pre-train a deep auto-encoder (default 784-1000-500-250-2) on Fashion-MNIST greedily with"
          + " RBMs (CD-1, engine 'rbm'), unroll it into a Caffe net and fine-tune it, every stage"
          + " distributed with model averaging on Spark (Hinton and Salakhutdinov 2006, SINGA's"
          + " dimensionality-reduction example). Prints the held-out reconstruction error (squared"
          + " error per pixel) of the auto-encoder and of PCA with as many components as the"
          + " code, and writes OUT/filters.png (the first RBM's filters), OUT/codes.png (codes by"
          + " class) and the RBMs' weights files OUT/rbm-N.weights."
    })
public final class AutoEncoderCommand implements Callable<Integer> {
  @Mixin FashionMnistOption fashionMnist = new FashionMnistOption();

  @Option(
      names = "--train",
      defaultValue = "60000",
      description = "Training images (the first N); default ${DEFAULT-VALUE}.")
  int train;

  @Option(
      names = "--test",
      defaultValue = "10000",
      description = "Held-out test images (the first N); default ${DEFAULT-VALUE}.")
  int test;

  @Option(
      names = "--layers",
      defaultValue = "1000,500,250,2",
      split = ",",
      description = "Hidden layer sizes, the code last; default ${DEFAULT-VALUE}.")
  int[] layers;

  @Mixin SparkOptions sparkOptions = new SparkOptions();

  @Mixin DeviceOptions deviceOptions = new DeviceOptions();

  @Option(
      names = "--batch",
      defaultValue = "100",
      description = "Batch of every stage; default ${DEFAULT-VALUE}.")
  int batch;

  @Option(
      names = "--tau",
      defaultValue = "25",
      description = "Solver steps per partition per round; default ${DEFAULT-VALUE}.")
  int tau;

  @Option(
      names = "--rbm-epochs",
      defaultValue = "5",
      description = "Epochs per RBM; default ${DEFAULT-VALUE}.")
  double rbmEpochs;

  @Option(
      names = "--rbm-lr",
      defaultValue = "0.1",
      description = "Learning rate of the binary RBMs; default ${DEFAULT-VALUE}.")
  float rbmLr;

  @Option(
      names = "--code-lr",
      defaultValue = "0.01",
      description =
          "Learning rate of the last RBM (linear Gaussian hidden units); default ${DEFAULT-VALUE}.")
  float codeLr;

  @Option(
      names = "--finetune-epochs",
      defaultValue = "10",
      description = "Epochs of fine-tuning; default ${DEFAULT-VALUE}.")
  double finetuneEpochs;

  @Option(
      names = "--finetune-lr",
      defaultValue = "0.001",
      description = "Adam's learning rate for fine-tuning; default ${DEFAULT-VALUE}.")
  double finetuneLr;

  @Option(names = "--seed", defaultValue = "42", description = "Seed; default ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--out",
      defaultValue = "autoencoder-out",
      paramLabel = "DIR",
      description = "Output directory, a path or Hadoop URI; default ${DEFAULT-VALUE}.")
  String out;

  /** The device of the fine-tuned Caffe net (the RBMs run in Java on the CPU). */
  private String fineTuningDevice(int[] sizes) {
    NetDefinition ae = AutoEncoderNet.definition(sizes, batch, finetuneLr, seed);
    return deviceOptions.apply(ae, sparkOptions.master).device();
  }

  @Override
  public Integer call() {
    sparkOptions.check();
    int workers = sparkOptions.workers("SparkNet deep auto-encoder");
    int[] sizes = new int[layers.length + 1];
    sizes[0] = 784;
    System.arraycopy(layers, 0, sizes, 1, layers.length);
    DeepAutoEncoder.Settings settings =
        new DeepAutoEncoder.Settings(
            sizes,
            workers,
            batch,
            tau,
            rbmEpochs,
            rbmLr,
            codeLr,
            finetuneEpochs,
            finetuneLr,
            seed,
            fineTuningDevice(sizes));
    StoragePath outDir = TrainCommand.outputOption(out, "--out");
    outDir.checkWritable(true, "--out"); // before the data is read and Spark starts
    FashionMnist fashion = fashionMnist.locate();
    IdxDataset trainSet = fashion.train();
    IdxDataset testSet = fashion.test();
    if (train < 1 || train > trainSet.count() || test < 1 || test > testSet.count()) {
      throw new IllegalArgumentException(
          "--train must be in [1, "
              + trainSet.count()
              + "] and --test in [1, "
              + testSet.count()
              + "] but are "
              + train
              + " and "
              + test);
    }
    try {
      outDir.mkdirs();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--out: " + e.getMessage(), e);
    }
    PrintStream o = System.out;
    o.printf(
        "SparkNet deep auto-encoder %s on %,d Fashion-MNIST training images (%,d held out);"
            + " %d workers, tau=%d, batch %d; fine-tuning on device %s%n",
        Arrays.toString(sizes), train, test, workers, tau, batch, settings.finetuneDevice());
    SparkSession spark = sparkOptions.session("SparkNet deep auto-encoder");
    long t0 = System.nanoTime();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      JavaRDD<Example> trainRdd = trainSet.toRdd(sc, 0, train, workers, 1f / 255);
      JavaRDD<Example> heldOutRdd = testSet.toRdd(sc, 0, test, workers, 1f / 255);
      List<Example> heldOut = testSet.read(0, test, 1f / 255);
      DeepAutoEncoder.Result r =
          DeepAutoEncoder.run(
              sc,
              trainRdd,
              heldOutRdd,
              heldOut,
              Arrays.asList(FashionMnist.CLASSES),
              settings,
              outDir,
              o);
      o.printf(
          "Held-out squared error per pixel: auto-encoder %.4f (unrolled RBMs before"
              + " fine-tuning %.4f), PCA with %d components %.4f%n",
          r.autoEncoderError(), r.stackError(), sizes[sizes.length - 1], r.pcaError());
      o.printf(
          "Pre-training %.1f s, fine-tuning %.1f s, total %.1f s; wrote %s and %s%n",
          r.rbmSeconds(),
          r.finetuneSeconds(),
          (System.nanoTime() - t0) / 1e9,
          outDir.resolve("filters.png"),
          outDir.resolve("codes.png"));
    } finally {
      spark.stop();
    }
    return SparkNetCli.EXIT_OK;
  }
}
