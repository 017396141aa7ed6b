package org.sparknet.apps.cli;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.charrnn.CharRnn;
import org.sparknet.apps.charrnn.TextCorpus;
import org.sparknet.apps.charrnn.TextSampler;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Seed app 3: a character-level LSTM trained on source code, then sampled. */
@Command(
    name = "char-rnn",
    mixinStandardHelpOptions = true,
    description = {
      "Train a character-level LSTM (Caffe's LSTM layer, back-propagation through time) on text"
          + " files with model averaging on Spark, report next-character accuracy on the last"
          + " 10%% of the text, and print text sampled from the trained net. The default corpus is"
          + " the Linux kernel's kernel/*.c (a linux-source-* package, unpacked by bin/setup --tests)."
    })
public final class CharRnnCommand implements Callable<Integer> {
  @Option(
      names = "--text",
      paramLabel = "DIR|FILE",
      description =
          "Text files, a path or Hadoop URI (a directory is searched recursively for --ext files;"
              + " default: $SPARKNET_TEXT_DIR, else .data/linux/kernel in the SparkNet checkout).")
  String text;

  @Option(
      names = "--ext",
      defaultValue = ".c",
      description = "File extension; default ${DEFAULT-VALUE}.")
  String ext;

  @Option(
      names = "--max-bytes",
      defaultValue = "6000000",
      description = "Read at most this many bytes of text; default ${DEFAULT-VALUE}.")
  long maxBytes;

  @Option(
      names = "--rounds",
      defaultValue = "20",
      description = "Rounds; default ${DEFAULT-VALUE}.")
  int rounds;

  @Option(
      names = "--unroll",
      defaultValue = "32",
      description =
          "Time steps of back-propagation through time (unroll_len); default ${DEFAULT-VALUE}.")
  int unroll;

  @Option(
      names = "--streams",
      defaultValue = "16",
      description = "Windows per batch; default ${DEFAULT-VALUE}.")
  int streams;

  @Option(
      names = "--hidden",
      defaultValue = "128",
      description = "LSTM units; default ${DEFAULT-VALUE}.")
  int hidden;

  @Option(
      names = "--lr",
      defaultValue = "0.004",
      description = "Adam learning rate; default ${DEFAULT-VALUE}.")
  double lr;

  @Option(
      names = "--sample",
      defaultValue = "400",
      description = "Characters to sample after training; default ${DEFAULT-VALUE}.")
  int sample;

  @Option(
      names = "--temperature",
      defaultValue = "0.7",
      description = "Sampling temperature; default ${DEFAULT-VALUE}.")
  double temperature;

  @Option(
      names = "--prime",
      defaultValue = "static int ",
      description = "Text to start sampling from.")
  String prime;

  @Mixin LocalRunOptions run = new LocalRunOptions();

  @Override
  public Integer call() {
    run.checkWorkers();
    int tau = run.tau(LocalRunOptions.DEFAULT_TAU);
    // Before the net is built: its text refuses these sizes too, without naming the options.
    if (tau < 1 || rounds < 1 || unroll < 1 || streams < 1 || hidden < 1) {
      throw new IllegalArgumentException(
          "--workers, --tau, --rounds, --unroll, --streams and --hidden must be >= 1");
    }
    NetDefinition def = CharRnn.definition(unroll, streams, hidden, lr, run.seed);
    LocalRunOptions.Placement placement = run.place("SparkNet char-RNN", def);
    int workers = placement.workers();
    if (!(lr > 0) || !(temperature > 0) || sample < 0) {
      throw new IllegalArgumentException("--lr and --temperature must be > 0, --sample >= 0");
    }
    run.checkOutputs();
    PrintStream out = System.out;
    StoragePath dir = text != null ? TrainCommand.outputOption(text, "--text") : defaultText();
    TextCorpus corpus = TextCorpus.scan(dir, ext, maxBytes);
    long split = corpus.size() * 9 / 10;
    out.printf(
        "SparkNet char-RNN: %,d bytes of %s text in %d files under %s (90%% train, 10%% test)%n",
        corpus.size(), ext, corpus.files(), dir);
    out.printf(
        "LSTM %d units, unrolled %d steps x %d streams; %d workers, tau=%d, %d rounds%n",
        hidden, unroll, streams, workers, tau, rounds);
    String sparkMaster = run.sparkMaster(workers);
    TrainerConfig config = run.config(placement.onDevice(def), workers, tau, rounds).build();
    SparkSession spark = SparkSessions.local(sparkMaster, "SparkNet char-RNN");
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      JavaRDD<Example> train = corpus.windows(sc, workers, unroll, 0, split);
      JavaRDD<Example> test = corpus.windows(sc, workers, unroll, split, corpus.size());
      try (SparkNetTrainer trainer = LocalRunOptions.trainer(sc, config, train, test, out)) {
        Map<String, Float> before = trainer.test();
        out.printf(
            "Before training: test loss %.4f, next-character accuracy %.4f%n",
            before.get("loss"), before.get("accuracy"));
        for (int r = 1; r <= rounds; r++) {
          RoundMetrics m = trainer.trainRound();
          out.printf(
              "%s round %3d/%d  loss %.4f  %,7.0f chars/s%n",
              ProgressBar.render(r, rounds, 20),
              r,
              rounds,
              m.meanLoss(),
              m.imagesPerSecond() * unroll);
        }
        Map<String, Float> after = trainer.test();
        out.printf(
            "Final: test loss %.4f, next-character accuracy %.4f (%.2f bits per character)%n",
            after.get("loss"), after.get("accuracy"), after.get("loss") / Math.log(2));
        if (sample > 0) {
          try (TextSampler sampler = new TextSampler(hidden, trainer.getWeights(), run.seed)) {
            out.printf(
                "Sample (temperature %.2f):%n%s%n",
                temperature, sampler.sample(prime, sample, temperature));
          }
        }
      }
    } finally {
      spark.stop();
    }
    return SparkNetCli.EXIT_OK;
  }

  private static StoragePath defaultText() {
    String env = System.getenv("SPARKNET_TEXT_DIR");
    if (env != null && !env.isBlank()) {
      return TrainCommand.outputOption(env, "$SPARKNET_TEXT_DIR");
    }
    String home = System.getenv("SPARKNET_HOME");
    Path p = Path.of(home != null ? home : ".", ".data", "linux", "kernel");
    if (!Files.isDirectory(p)) {
      throw new IllegalArgumentException(
          "No text given and "
              + p
              + " does not exist: run bin/setup --tests (it installs a linux-source-* package and"
              + " unpacks kernel/*.c there) or pass --text DIR");
    }
    return StoragePath.of(p);
  }
}
