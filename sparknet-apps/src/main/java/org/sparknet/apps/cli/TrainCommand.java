package org.sparknet.apps.cli;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.api.train.Averaging;
import org.sparknet.api.train.DeviceReport;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.plot.Axis;
import org.sparknet.apps.plot.TrainingCurves;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Trains any Caffe solver on IDX, CIFAR, image-folder or Parquet data with model averaging. */
@Command(
    name = "train",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Train a Caffe net (unchanged solver and net prototxt) on Spark with model averaging: each"
          + " round every worker runs tau solver steps on its partition, then the weights are"
          + " averaged. Writes OUTPUT/final.caffemodel and OUTPUT/metrics.jsonl."
    })
public final class TrainCommand implements Callable<Integer> {
  @Mixin NetOptions netOptions = new NetOptions();

  @Option(names = "--train", required = true, paramLabel = "URI", description = "Training data.")
  String train;

  @Option(names = "--test", required = true, paramLabel = "URI", description = "Test data.")
  String test;

  @Option(
      names = "--train-labels",
      paramLabel = "URI",
      description = "idx: labels of --train (default: its name with images->labels, idx3->idx1).")
  String trainLabels;

  @Option(names = "--test-labels", paramLabel = "URI", description = "idx: labels of --test.")
  String testLabels;

  @Mixin DataOptions dataOptions = new DataOptions();

  @Mixin DeviceOptions deviceOptions = new DeviceOptions();

  @Option(names = "--workers", required = true, description = "Workers (partitions).")
  int workers;

  @ArgGroup(multiplicity = "1")
  Tau tau;

  static final class Tau {
    @Option(
        names = "--tau",
        paramLabel = "STEPS|auto",
        description =
            "Solver steps per worker per round, or auto: chosen every round so that broadcast,"
                + " aggregation and scheduling stay under --max-overhead of the round.")
    String steps;

    @Option(names = "--tau-seconds", description = "Seconds of training per worker per round.")
    Double seconds;
  }

  @Option(names = "--rounds", required = true, description = "Rounds to train (resumed included).")
  int rounds;

  @Option(
      names = "--test-interval",
      defaultValue = "0",
      description = "Test every N rounds (default 0: only after the last round).")
  int testInterval;

  @Option(
      names = "--averaging",
      defaultValue = "plain",
      description = "plain (default) or easgd (elastic averaging, with --alpha).")
  String averaging;

  @Option(names = "--alpha", description = "EASGD moving rate in [0, 1].")
  Double alpha;

  @Option(
      names = "--weights",
      paramLabel = "FILE.caffemodel",
      description = "Start from these weights (a Hadoop URI or path).")
  String weights;

  @Option(
      names = "--checkpoint",
      paramLabel = "DIR",
      description = "Checkpoint every round here; resume from it when it holds one.")
  String checkpoint;

  @Option(
      names = "--output",
      defaultValue = "sparknet-output",
      paramLabel = "DIR",
      description =
          "Directory for final.caffemodel and metrics.jsonl (a Hadoop URI or path); default"
              + " ${DEFAULT-VALUE}.")
  String output;

  @Option(
      names = "--metrics",
      paramLabel = "FILE",
      description = "One JSON line per round (default OUTPUT/metrics.jsonl).")
  String metrics;

  @Option(names = "--plot", paramLabel = "FILE", description = "PNG of loss and accuracy.")
  String plot;

  @Option(
      names = "--deterministic",
      description =
          "Reproducible training: the same data, workers and command give identical weights, and a"
              + " run resumed from --checkpoint ends exactly where an uninterrupted one does"
              + " (needs --tau, not --tau-seconds; not with --averaging easgd).")
  boolean deterministic;

  @Option(
      names = "--group-size",
      defaultValue = "1",
      description =
          "Solvers per worker that average after every step (hybrid training, SINGA's worker"
              + " groups); each worker then takes this many cores (spark.task.cpus); default"
              + " ${DEFAULT-VALUE}.")
  int groupSize;

  @Option(
      names = "--master",
      description = "Spark master URL (default: spark-submit's, else local[WORKERS]).")
  String master;

  @Mixin AdaptiveTauOptions tauOptions = new AdaptiveTauOptions();

  @Mixin CompressOption compressOption = new CompressOption();

  @Override
  public Integer call() {
    // Everything that can be checked before Spark starts is checked here (exit 2).
    dataOptions.dataFormat(); // a bad name fails first, naming the accepted ones
    checkNumbers();
    Averaging avg = averaging();
    DataInput trainSet =
        DataInput.open(dataOptions, train, "--train", trainLabels, "--train-labels", true);
    DataInput testSet =
        DataInput.open(dataOptions, test, "--test", testLabels, "--test-labels", true);
    checkDataSets(trainSet, testSet);
    NetOptions.existing(netOptions.solver, "--solver");
    NetOptions.existing(netOptions.net, "--net");
    StoragePath weightsFile = NetOptions.existing(weights, "--weights");
    if (netOptions.solver == null) {
      throw new IllegalArgumentException("train needs --solver FILE");
    }
    DataInput.Loading loading = trainSet.setup(netOptions, dataOptions);
    NetDefinition def = deviceOptions.apply(loading.def(), master);
    StoragePath outputDir = outputOption(output, "--output");
    StoragePath finalModel = outputDir.resolve("final.caffemodel");
    if (finalModel.exists()) {
      throw new IllegalArgumentException(
          finalModel + " already exists; choose another --output or remove it");
    }
    StoragePath metricsFile =
        metrics != null ? outputOption(metrics, "--metrics") : outputDir.resolve("metrics.jsonl");
    StoragePath plotFile = plot == null ? null : outputOption(plot, "--plot");
    try {
      outputDir.mkdirs();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--output: " + e.getMessage(), e);
    }
    TrainerConfig cfg = config(def, avg, metricsFile);
    PrintStream out = System.out;
    out.printf(
        "SparkNet train: %s on %s training / %s test examples (%s, shape %s); %s; %d rounds%n",
        def.netText() != null ? "net" : "solver",
        trainSet.describeCount(),
        testSet.describeCount(),
        trainSet.format().cliName(),
        def.sampleShape(),
        cfg,
        rounds);

    SparkSession spark =
        SparkSessions.forCommand(master, workers * groupSize, "SparkNet train", groupSize);
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      try (SparkNetTrainer trainer = new SparkNetTrainer(sc, cfg)) {
        trainer.addListener(new DeviceReport(out));
        if (trainer.round() > 0) {
          out.printf("Resumed from round %d in %s%n", trainer.round(), checkpoint);
        } else if (weights != null) {
          trainer.setWeights(NetOptions.loadWeights(def, weightsFile));
        }
        trainer.setTrainingData(trainSet.toRdd(spark, workers, loading, true, dataOptions));
        trainer.setValidationData(testSet.toRdd(spark, workers, loading, false, dataOptions));
        String skipped = trainSet.skippedReport() + testSet.skippedReport();
        if (!skipped.isEmpty()) {
          out.println(skipped.substring(2)); // drop the leading "; "
        }
        TrainingCurves curves = new TrainingCurves(Axis.linear("round").integers(), "");
        Map<String, Float> last = trainRounds(trainer, curves, out);
        NetOptions.saveWeights(def, trainer.getWeights(), finalModel);
        out.printf("Final test: %s%n", format(last));
        out.printf("Weights written to %s; metrics to %s%n", finalModel, metricsFile);
        if (plotFile != null && !curves.isEmpty()) {
          plotFile.write(curves.toFigure().toPng(), true);
        }
      }
    } finally {
      spark.stop();
    }
    return SparkNetCli.EXIT_OK;
  }

  private void checkNumbers() {
    if (workers < 1 || rounds < 1 || testInterval < 0) {
      throw new IllegalArgumentException(
          "--workers and --rounds must be >= 1 and --test-interval >= 0 (got workers="
              + workers
              + ", rounds="
              + rounds
              + ", test-interval="
              + testInterval
              + ")");
    }
    if (groupSize < 1) {
      throw new IllegalArgumentException("--group-size must be >= 1 (got " + groupSize + ")");
    }
  }

  private void checkDataSets(DataInput trainSet, DataInput testSet) {
    if (trainSet.classes() != null && !trainSet.classes().equals(testSet.classes())) {
      throw new IllegalArgumentException(
          "--test folder "
              + test
              + " has the classes "
              + testSet.classes()
              + " but --train has "
              + trainSet.classes()
              + "; label indices come from the sorted class folder names, so they must match");
    }
    for (DataInput set : new DataInput[] {trainSet, testSet}) {
      if (set.count() == 0) {
        throw new IllegalArgumentException(
            (set == trainSet ? "--train " + train : "--test " + test)
                + " holds 0 records; there is nothing to "
                + (set == trainSet ? "train on" : "test on"));
      }
    }
  }

  /** An output path given as {@code option}, named in the message when it cannot be used. */
  static StoragePath outputOption(String uri, String option) {
    try {
      return StoragePath.of(uri);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
    }
  }

  private TrainerConfig config(NetDefinition def, Averaging avg, StoragePath metricsFile) {
    TrainerConfig.Builder config =
        TrainerConfig.builder()
            .setNetDefinition(def)
            .optWorkers(workers)
            .optAveraging(avg)
            .optMaxRounds(rounds)
            .optMetricsFile(metricsFile.toString())
            .optGroupSize(groupSize);
    tauOptions.apply(config, tau.steps, tau.seconds);
    config.optCompress(compressOption.compression());
    if (testInterval > 0) {
      config.optValidationInterval(testInterval);
    }
    if (checkpoint != null) {
      config.optCheckpointDir(outputOption(checkpoint, "--checkpoint").toString());
    }
    if (deterministic) {
      if (tau.seconds != null || AdaptiveTauOptions.isAuto(tau.steps)) {
        throw new IllegalArgumentException(
            "--deterministic needs --tau STEPS; "
                + (tau.seconds != null ? "--tau-seconds" : "--tau auto")
                + " depends on the machine's speed");
      }
      if (avg.isElastic()) {
        throw new IllegalArgumentException(
            "--deterministic cannot be combined with --averaging easgd: checkpoints do not hold the"
                + " EASGD workers' own weights, so a resumed run would not repeat an uninterrupted"
                + " one; use --averaging plain, or drop --deterministic");
      }
      config.optDeterministic(true);
    }
    return config.build();
  }

  /** Trains up to --rounds, a line per round; returns the last test metrics. */
  private Map<String, Float> trainRounds(
      SparkNetTrainer trainer, TrainingCurves curves, PrintStream out) {
    Map<String, Float> last = Map.of();
    while (trainer.round() < rounds) {
      RoundMetrics m = trainer.trainRound();
      curves.addTraining(m.round(), m.meanLoss());
      if (!m.validation().isEmpty()) {
        last = m.validation();
      }
      if (m.round() == rounds && m.validation().isEmpty()) {
        last = trainer.test();
      }
      if (!m.validation().isEmpty() || m.round() == rounds) {
        curves.addTest(m.round(), last);
      }
      out.printf(
          "round %3d/%d  iter %6d  loss %.4f  %,6.0f ex/s%s%n",
          m.round(),
          rounds,
          m.iteration(),
          m.meanLoss(),
          m.imagesPerSecond(),
          m.validation().isEmpty() ? "" : "  test " + format(m.validation()));
    }
    return last.isEmpty() ? trainer.test() : last; // resumed at or past --rounds
  }

  private Averaging averaging() {
    switch (averaging) {
      case "plain":
        if (alpha != null) {
          throw new IllegalArgumentException("--alpha applies only to --averaging easgd");
        }
        return Averaging.PLAIN;
      case "easgd":
        if (alpha == null) {
          throw new IllegalArgumentException("--averaging easgd needs --alpha A (0 <= A <= 1)");
        }
        return Averaging.elastic(alpha);
      default:
        throw new IllegalArgumentException(
            "--averaging must be plain or easgd but was '" + averaging + "'");
    }
  }

  static String format(Map<String, Float> metrics) {
    StringBuilder sb = new StringBuilder();
    metrics.forEach(
        (k, v) ->
            sb.append(sb.length() == 0 ? "" : "  ")
                .append(k)
                .append(' ')
                .append(String.format("%.4f", v)));
    return sb.toString();
  }
}
