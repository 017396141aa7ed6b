package org.sparknet.apps.cli;

import java.io.PrintStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.DeviceReport;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code --workers}, {@code --tau}, {@code --master}, {@code --seed}, {@code --metrics}, {@code
 * --device} and {@code --workers-per-gpu} of the apps that train on an embedded local Spark unless
 * told otherwise (demo, char-rnn), and what they do alike with them: the worker count, the master,
 * the net's device and the trainer.
 */
final class LocalRunOptions {
  static final int DEFAULT_TAU = 50;

  @Mixin DeviceOptions device = new DeviceOptions();

  @Mixin WorkersPerGpuOption perGpu = new WorkersPerGpuOption();

  /** How many workers an app runs, and the device its nets run on. */
  record Placement(int workers, String device) {
    /** {@code def} on this placement's device. */
    NetDefinition onDevice(NetDefinition def) {
      return def.withDevice(device);
    }
  }

  @Option(
      names = "--workers",
      description = "Partitions (one net each); default: the task slots (local: the cores).")
  Integer workers;

  @Option(
      names = "--tau",
      description =
          "Solver steps per partition per round; default 50 (the demo's fast recipe: 40).")
  Integer tau;

  @Option(names = "--master", description = "Spark master URL; default local[WORKERS].")
  String master;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description =
          "Seed for the weights, the data order and any sampling; default ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--metrics",
      paramLabel = "FILE",
      description = "Also write one JSON line per round to this file (a path or Hadoop URI).")
  String metrics;

  /** Checks, before the app reads its data, that {@code --metrics} (if given) can be written. */
  void checkOutputs() {
    if (metrics != null) {
      TrainCommand.outputOption(metrics, "--metrics").checkWritable(false, "--metrics");
    }
  }

  /** {@code --tau}, else the app's default. */
  int tau(int defaultTau) {
    return tau == null ? defaultTau : tau;
  }

  /** Exit 2 for a {@code --workers} below 1, before anything else is read. */
  void checkWorkers() {
    if (workers != null && workers < 1) {
      throw new IllegalArgumentException("--workers must be >= 1 but was " + workers);
    }
  }

  /**
   * The workers: {@code --workers} (exit 2 below 1), else, in local mode with {@code --device gpu},
   * K per visible GPU ({@code --workers-per-gpu K}, as train), else the task slots; and the device
   * of the app's nets, chosen from {@code sample} (any of its definitions: they differ in their
   * numbers only).
   */
  Placement place(String appName, NetDefinition sample) {
    checkWorkers();
    perGpu.check();
    // The device depends on whether the tasks run here, not on how many local threads they get.
    String device = this.device.apply(sample, master == null ? "local" : master).device();
    int w = perGpu.workers(sample.withDevice(device), workers, TaskSlots.local(master, 1), 1);
    return new Placement(w > 0 ? w : TaskSlots.resolve(workers, master, 1, appName), device);
  }

  /** {@code --master}, else a local Spark of one thread per worker. */
  String sparkMaster(int workers) {
    return master == null ? "local[" + workers + "]" : master;
  }

  /**
   * The settings both apps train with, {@code --seed} and {@code --metrics} included; each adds its
   * own.
   */
  TrainerConfig.Builder config(NetDefinition def, int workers, int tau, int rounds) {
    TrainerConfig.Builder config =
        TrainerConfig.builder().setNetDefinition(def).optTau(tau).optWorkers(workers).optSeed(seed);
    if (rounds > 0) {
      config.optMaxRounds(rounds); // 0: another limit ends the run (a time budget)
    }
    if (metrics != null) {
      config.optMetricsFile(TrainCommand.outputOption(metrics, "--metrics").toString());
    }
    perGpu.apply(config);
    return config;
  }

  /**
   * A trainer of {@code train}, validated on {@code test}, that reports its devices to {@code out}.
   */
  static SparkNetTrainer trainer(
      JavaSparkContext sc,
      TrainerConfig config,
      JavaRDD<Example> train,
      JavaRDD<Example> test,
      PrintStream out) {
    SparkNetTrainer trainer = new SparkNetTrainer(sc, config);
    try {
      trainer.addListener(new DeviceReport(out));
      trainer.setTrainingData(train);
      trainer.setValidationData(test);
      return trainer;
    } catch (RuntimeException e) {
      trainer.close(); // the caller's try-with-resources never got it
      throw e;
    }
  }
}
