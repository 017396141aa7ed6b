package org.sparknet.apps.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.api.train.Averaging;
import org.sparknet.api.train.DeviceReport;
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
          + " averaged. Writes OUTPUT/final.caffemodel and OUTPUT/metrics.jsonl. The solver's"
          + " max_iter, test_interval, display, snapshot, snapshot_prefix and base_lr apply (steps"
          + " per worker); a flag wins over the file. SIGINT or SIGTERM stops after the current"
          + " round and writes a snapshot first."
    })
public final class TrainCommand implements Callable<Integer> {
  @Mixin NetOptions netOptions = new NetOptions();

  @Option(
      names = "--train",
      paramLabel = "URI",
      description =
          "Training data (default: what the net's TRAIN data layer names: a Data layer's source"
              + " and backend, an ImageData or HDF5Data layer's list file, from the working"
              + " directory as Caffe opens them; its TEST data layer then gives the test data).")
  String train;

  @Option(
      names = "--train-labels",
      paramLabel = "URI",
      description = "idx: labels of --train (default: its name with images->labels, idx3->idx1).")
  String trainLabels;

  /** Optional: without it nothing is tested. */
  @ArgGroup(exclusive = false, multiplicity = "0..1")
  TestData testData;

  @Mixin DataOptions dataOptions = new DataOptions();

  @Mixin DeviceOptions deviceOptions = new DeviceOptions();

  @Mixin SparkOptions sparkOptions = new SparkOptions();

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

  @Option(
      names = "--rounds",
      description = "Rounds to train (resumed included); optional when max_iter is set.")
  Integer rounds;

  @Mixin SolverFlags solverFlags = new SolverFlags();

  @Option(
      names = "--averaging",
      defaultValue = "plain",
      description =
          "plain (default), easgd (elastic averaging, with --alpha), allreduce (plain averaging"
              + " summed by the executors in a ring, a barrier stage a round: no dynamic"
              + " allocation, a task slot per worker), downpour (asynchronous: workers push their"
              + " tau-step updates to a parameter server on the driver, no barrier) or easgd-async"
              + " (asynchronous elastic averaging, with --alpha).")
  String averaging;

  @Option(names = "--alpha", description = "EASGD moving rate in [0, 1].")
  Double alpha;

  @Option(
      names = "--staleness",
      paramLabel = "N",
      description =
          "downpour and easgd-async: drop a push made from weights more than N pushes old"
              + " (default 32).")
  Integer staleness;

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
              + " (needs --tau, not --tau-seconds; not with --averaging downpour or easgd-async,"
              + " nor with spark.dynamicAllocation.enabled=true).")
  boolean deterministic;

  @Option(
      names = "--group-size",
      defaultValue = "1",
      description =
          "Solvers per worker that average after every step (hybrid training, SINGA's worker"
              + " groups); each worker then takes this many cores (spark.task.cpus); default"
              + " ${DEFAULT-VALUE}.")
  int groupSize;

  @Mixin WorkersPerGpuOption perGpu = new WorkersPerGpuOption();

  @Mixin AdaptiveTauOptions tauOptions = new AdaptiveTauOptions();

  @Mixin CompressOption compressOption = new CompressOption();

  @Mixin TimeBudgetOption timeBudget = new TimeBudgetOption();

  /** Reads the options above; holds no state of its own. */
  private final TrainerSetup setup = new TrainerSetup(this);

  @Override
  public Integer call() {
    // Everything that can be checked before Spark starts is checked here (exit 2).
    dataOptions.dataFormat(); // a bad name fails first, naming the accepted ones
    checkNumbers();
    Averaging avg = setup.averaging();
    NetOptions.existing(netOptions.solver, "--solver");
    NetOptions.existing(netOptions.net, "--net");
    if (train == null && netOptions.solver == null) {
      throw new IllegalArgumentException(
          "train needs --solver FILE (and --train URI, or a net"
              + " whose data layers name their source)");
    }
    LayerDataInputs layerData =
        train == null ? LayerDataInputs.of(netOptions.files(), dataOptions) : null;
    DataInput trainSet =
        layerData != null
            ? layerData.train()
            : DataInput.open(dataOptions, train, "--train", trainLabels, "--train-labels", true);
    List<DataInput> testSets =
        testData != null
            ? List.of(testData.open(dataOptions))
            : layerData != null ? layerData.tests() : List.of();
    checkDataSets(trainSet, testSets);
    StoragePath weightsFile = NetOptions.existing(weights, "--weights");
    if (netOptions.solver == null) {
      throw new IllegalArgumentException("train needs --solver FILE");
    }
    DataInput.Loading loading = trainSet.setup(netOptions, dataOptions);
    StoragePath outputDir = outputOption(output, "--output");
    SolverSettings settings =
        SolverSettings.of(
            loading.def().solverText(),
            StoragePath.of(netOptions.solver).name(),
            solverFlags.flags(),
            outputDir);
    if (rounds == null && settings.maxIter().value() == 0 && !timeBudget.given()) {
      throw new IllegalArgumentException(
          "train needs --rounds N, --max-iter STEPS, --time-budget DURATION or a max_iter in the"
              + " solver "
              + netOptions.solver);
    }
    NetDefinition def = deviceOptions.apply(settings.apply(loading.def()), sparkOptions.master);
    StoragePath finalModel = outputDir.resolve("final.caffemodel");
    if (finalModel.exists()) {
      throw new IllegalArgumentException(
          finalModel + " already exists; choose another --output or remove it");
    }
    StoragePath metricsFile =
        metrics != null ? outputOption(metrics, "--metrics") : outputDir.resolve("metrics.jsonl");
    StoragePath plotFile = plot == null ? null : outputOption(plot, "--plot");
    checkWritable(new RunFiles(weightsFile, outputDir, metricsFile, plotFile), settings);
    // Local mode: --device gpu runs K workers per visible GPU unless --workers says (checked).
    int slots =
        perGpu.workers(
            def, sparkOptions.workers, TaskSlots.local(sparkOptions.master, groupSize), groupSize);
    // The config's own checks before Spark starts; a cluster's slots are known only after.
    setup.config(def, avg, settings, metricsFile, Math.max(1, slots));
    try (StopSignals signals = StopSignals.install()) {
      return run(
          new Plan(
              def,
              avg,
              settings,
              new RunFiles(weightsFile, outputDir, metricsFile, plotFile),
              trainSet,
              testSets,
              loading),
          slots,
          signals);
    }
  }

  /**
   * Every place the run writes, checked before Spark starts (a probe file written and removed where
   * it will write), so that nothing trains before they pass: output, metrics, plot, checkpoint and
   * the snapshot prefix, which a stop by signal writes to even without a snapshot interval.
   */
  private void checkWritable(RunFiles files, SolverSettings settings) {
    files.output().checkWritable(true, "--output");
    files.output().mkdirs();
    files
        .metrics()
        .checkWritable(false, metrics != null ? "--metrics" : "--output's metrics.jsonl");
    if (files.plot() != null) {
      files.plot().checkWritable(false, "--plot");
    }
    if (checkpoint != null) {
      outputOption(checkpoint, "--checkpoint").checkWritable(true, "--checkpoint");
    }
    settings
        .snapshotFile(0, ".caffemodel")
        .checkWritable(false, "The snapshot prefix (" + settings.snapshotPrefix().source() + ")");
  }

  /** The run's files, each checked and qualified before Spark starts; weights and plot optional. */
  private record RunFiles(
      StoragePath weights, StoragePath output, StoragePath metrics, StoragePath plot) {}

  /** What {@link #call} checked and prepared before Spark starts. */
  private record Plan(
      NetDefinition def,
      Averaging avg,
      SolverSettings settings,
      RunFiles files,
      DataInput trainSet,
      List<DataInput> testSets,
      DataInput.Loading loading) {}

  /** Starts Spark and trains; {@code slots} is the worker count, or 0 for the cluster's slots. */
  private int run(Plan p, int slots, StopSignals signals) {
    PrintStream out = System.out;
    String master =
        sparkOptions.master != null ? sparkOptions.master : System.getProperty("spark.master");
    Map<String, String> conf = new HashMap<>();
    LocalNetMemory.check(master, p.def(), slots, groupSize);
    MemoryOverhead.forRun(master, p.def(), slots, groupSize)
        .ifPresent(
            v -> {
              out.println(MemoryOverhead.KEY + " " + v + " (the net's native memory)");
              conf.put(MemoryOverhead.KEY, v);
            });
    SparkSession spark =
        SparkSessions.forCommand(
            sparkOptions.master, Math.max(1, slots) * groupSize, "SparkNet train", groupSize, conf);
    try {
      int w = slots > 0 ? slots : TaskSlots.ofSession(spark, groupSize);
      TrainerConfig cfg = setup.config(p.def(), p.avg(), p.settings(), p.files().metrics(), w);
      out.printf(
          "SparkNet train: %s on %s training / %s test examples (%s, shape %s); %s; %s%n",
          p.def().netText() != null ? "net" : "solver",
          p.trainSet().describeCount(),
          p.testSets().isEmpty() ? "no" : describeCounts(p.testSets()),
          p.trainSet().format().name(),
          p.def().sampleShape(),
          cfg,
          rounds == null ? "until max_iter" : rounds + " rounds");
      out.printf(
          "workers %d (%s)%n",
          w, sparkOptions.workers != null ? "--workers" : "default: task slots");
      p.settings().describe().forEach(out::println);
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      try (SparkNetTrainer trainer = new SparkNetTrainer(sc, cfg)) {
        trainer.addListener(new DeviceReport(out));
        if (trainer.round() > 0) {
          out.printf("Resumed from round %d in %s%n", trainer.round(), checkpoint);
        } else if (p.files().weights() != null) {
          trainer.setWeights(NetOptions.loadWeights(p.def(), p.files().weights()));
        }
        trainer.setTrainingData(p.trainSet().toRdd(spark, w, p.loading(), dataOptions));
        String skipped = p.trainSet().skippedReport();
        if (!p.testSets().isEmpty()) {
          List<JavaRDD<Example>> sets = new ArrayList<>();
          for (DataInput t : p.testSets()) {
            sets.add(t.toRdd(spark, w, p.loading(), dataOptions));
          }
          trainer.setValidationData(sets);
          for (DataInput t : p.testSets()) {
            skipped += t.skippedReport();
          }
        }
        if (!skipped.isEmpty()) {
          out.println(skipped.substring(2)); // drop the leading "; "
        }
        finish(trainer, p, signals, out);
      }
    } finally {
      spark.stop();
    }
    return SparkNetCli.EXIT_OK;
  }

  private void finish(SparkNetTrainer trainer, Plan p, StopSignals signals, PrintStream out) {
    TrainingCurves curves = new TrainingCurves(Axis.linear("round").integers(), "");
    TrainLoop.Outcome o =
        new TrainLoop(
                new TrainLoop.Parts(
                    trainer,
                    p.settings(),
                    rounds,
                    setup.plannedRounds(p.settings()),
                    !p.testSets().isEmpty(),
                    new Snapshots(p.def(), p.settings(), out),
                    signals,
                    curves,
                    out))
            .run();
    StoragePath finalModel = p.files().output().resolve("final.caffemodel");
    NetOptions.saveWeights(p.def(), trainer.getWeights(), finalModel);
    if (o.stoppedBy() != null) {
      out.printf("Stopped by %s after round %d%n", o.stoppedBy(), trainer.round());
    }
    if (!o.lastTests().isEmpty()) {
      out.printf("Final test: %s%n", TrainLoop.format(o.lastTests()));
    }
    out.printf("Weights written to %s; metrics to %s%n", finalModel, p.files().metrics());
    if (p.files().plot() != null && !curves.isEmpty()) {
      p.files().plot().write(curves.toFigure().toPng(), true);
    }
  }

  private void checkNumbers() {
    if ((sparkOptions.workers != null && sparkOptions.workers < 1)
        || (rounds != null && rounds < 1)) {
      throw new IllegalArgumentException(
          "--workers and --rounds must be >= 1 (got workers="
              + sparkOptions.workers
              + ", rounds="
              + rounds
              + ")");
    }
    if (groupSize < 1) {
      throw new IllegalArgumentException("--group-size must be >= 1 (got " + groupSize + ")");
    }
    perGpu.check();
  }

  private void checkDataSets(DataInput trainSet, List<DataInput> testSets) {
    for (DataInput testSet : testSets) {
      if (trainSet.classes() != null && !trainSet.classes().equals(testSet.classes())) {
        throw new IllegalArgumentException(
            testSet.describe()
                + " has the classes "
                + testSet.classes()
                + " but --train has "
                + trainSet.classes()
                + "; label indices come from the sorted class folder names, so they must match");
      }
    }
    List<DataInput> all = new ArrayList<>(List.of(trainSet));
    all.addAll(testSets);
    for (DataInput set : all) {
      if (set.count() == 0) {
        throw new IllegalArgumentException(
            set.describe()
                + " holds 0 records; there is nothing to "
                + (set == trainSet ? "train on" : "test on"));
      }
    }
  }

  /** Each test set's count, "200" or, with a set per test net, "200 + 100". */
  private static String describeCounts(List<DataInput> sets) {
    List<String> counts = new ArrayList<>();
    for (DataInput d : sets) {
      counts.add(d.describeCount());
    }
    return String.join(" + ", counts);
  }

  /** An output path given as {@code option}, named in the message when it cannot be used. */
  static StoragePath outputOption(String uri, String option) {
    try {
      return StoragePath.of(uri);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
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
