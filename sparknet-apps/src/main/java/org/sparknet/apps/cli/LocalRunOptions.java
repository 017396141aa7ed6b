package org.sparknet.apps.cli;

import java.io.PrintStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.DeviceReport;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import picocli.CommandLine.Option;

/**
 * {@code --tau} and {@code --master} of the apps that train on an embedded local Spark unless told
 * otherwise (demo, char-rnn), and what they do alike with them: the worker count, the master and
 * the trainer.
 */
final class LocalRunOptions {
  static final int DEFAULT_TAU = 50;

  @Option(
      names = "--tau",
      description =
          "Solver steps per partition per round; default 50 (the demo's fast recipe: 40).")
  Integer tau;

  @Option(names = "--master", description = "Spark master URL; default local[WORKERS].")
  String master;

  /** {@code --tau}, else the app's default. */
  int tau(int defaultTau) {
    return tau == null ? defaultTau : tau;
  }

  /** {@code --workers} (exit 2 below 1), else the task slots. */
  int workers(Integer given, String appName) {
    if (given != null && given < 1) {
      throw new IllegalArgumentException("--workers must be >= 1 but was " + given);
    }
    return TaskSlots.resolve(given, master, 1, appName);
  }

  /** {@code --master}, else a local Spark of one thread per worker. */
  String sparkMaster(int workers) {
    return master == null ? "local[" + workers + "]" : master;
  }

  /** The settings both apps train with; each adds its own. */
  TrainerConfig.Builder config(NetDefinition def, int workers, int tau, long seed, int rounds) {
    return TrainerConfig.builder()
        .setNetDefinition(def)
        .optTau(tau)
        .optWorkers(workers)
        .optSeed(seed)
        .optMaxRounds(rounds);
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
