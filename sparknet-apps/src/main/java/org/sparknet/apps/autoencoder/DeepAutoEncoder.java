package org.sparknet.apps.autoencoder;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.storage.StorageLevel;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.Phase;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.FeatureReader;
import org.sparknet.api.device.TaskDevices;
import org.sparknet.api.model.Model;
import org.sparknet.api.model.Predictor;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.api.train.DeviceReport;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.PositiveCounts;
import org.sparknet.caffe.CaffeNet;
import org.sparknet.ndarray.NDArray;
import org.sparknet.rbm.RbmConfig;
import org.sparknet.rbm.RbmNet;

/**
 * The deep auto-encoder pipeline (Hinton and Salakhutdinov 2006; SINGA's dimensionality-reduction
 * example), every training stage distributed by {@link SparkNetTrainer}:
 *
 * <ol>
 *   <li>Greedy layer-wise pre-training: RBM i (engine "rbm") learns the hidden probabilities of RBM
 *       i - 1 (the images for the first). Binary hidden units, except the last RBM, whose hidden
 *       units are linear with Gaussian noise, as in the paper, so the code is real-valued. After
 *       each RBM its weights are written to {@code rbm-i.weights} (the engine's weights file,
 *       {@link NetProvider#encodeWeights}), and the next stage reads them back from there, as SINGA
 *       hands each RBM's checkpoint to the next; its hidden probabilities, computed on the
 *       executors, are the next RBM's data.
 *   <li>Unrolling: the Caffe auto-encoder {@link AutoEncoderNet}, encoder weights W_i^T and hidden
 *       biases, decoder weights W_i and visible biases, all read from the RBM weights files.
 *   <li>Fine-tuning by back-propagation (Adam on the cross-entropy of the reconstruction).
 * </ol>
 *
 * <p>Outputs: held-out reconstruction error (squared error per pixel) of the unrolled stack, of the
 * fine-tuned auto-encoder and of 2-component PCA fitted on the same training data; {@code
 * filters.png} and {@code codes.png}.
 */
public final class DeepAutoEncoder {
  /** An example's pixels, for the data blob. */
  private static final FeatureReader<Example> PIXELS =
      (e, dest, offset, size) -> {
        if (e.features().length != size) {
          throw new IllegalArgumentException(
              "An example has " + e.features().length + " values; the net reads " + size);
        }
        System.arraycopy(e.features(), 0, dest, offset, size);
      };

  /**
   * @param sizes layer sizes, input first, code last (784, 1000, 500, 250, 2)
   * @param workers partitions
   * @param batch the batch of every stage
   * @param tau solver steps per worker per round
   * @param rbmEpochs epochs over the training data per RBM
   * @param rbmLr the learning rate of binary RBMs
   * @param codeLr the learning rate of the last RBM (linear hidden units need a smaller one)
   * @param finetuneEpochs epochs of fine-tuning
   * @param finetuneLr Adam's rate for fine-tuning
   * @param seed the seed of every stage
   * @param finetuneDevice where the fine-tuned Caffe net runs ("cpu", "gpu", "auto", "gpu:N"; the
   *     RBMs run in Java on the CPU)
   */
  public record Settings(
      int[] sizes,
      int workers,
      int batch,
      int tau,
      double rbmEpochs,
      float rbmLr,
      float codeLr,
      double finetuneEpochs,
      double finetuneLr,
      long seed,
      String finetuneDevice) {
    public Settings {
      AutoEncoderNet.checkSizes(sizes);
      sizes = sizes.clone();
      PositiveCounts.require("workers, batch and tau", workers, batch, tau);
      if (!(rbmEpochs > 0) || !(finetuneEpochs >= 0)) {
        throw new IllegalArgumentException(
            "RBM epochs must be > 0 and fine-tuning epochs >= 0 (got "
                + rbmEpochs
                + ", "
                + finetuneEpochs
                + ")");
      }
      if (!(rbmLr > 0) || !(codeLr > 0) || !(finetuneLr > 0)) {
        throw new IllegalArgumentException("learning rates must be > 0");
      }
    }

    /** The paper's 784-1000-500-250-2 with the defaults of the CLI. */
    public static Settings defaults() {
      return new Settings(
          new int[] {784, 1000, 500, 250, 2}, 2, 100, 25, 5, 0.1f, 0.01f, 10, 0.001, 42, "cpu");
    }

    @Override
    public String toString() {
      return "Settings{sizes="
          + Arrays.toString(sizes)
          + ", workers="
          + workers
          + ", batch="
          + batch
          + ", tau="
          + tau
          + ", rbmEpochs="
          + rbmEpochs
          + ", rbmLr="
          + rbmLr
          + ", codeLr="
          + codeLr
          + ", finetuneEpochs="
          + finetuneEpochs
          + ", finetuneLr="
          + finetuneLr
          + ", seed="
          + seed
          + ", finetuneDevice="
          + finetuneDevice
          + "}";
    }
  }

  /**
   * What a run measured. Errors are squared errors per pixel on the held-out images.
   *
   * @param rbmErrors each RBM's held-out mean-field reconstruction error (of its own input)
   * @param stackError the unrolled RBM stack before fine-tuning
   * @param autoEncoderError the fine-tuned auto-encoder
   * @param pcaError PCA with as many components as the code has units
   * @param rbmSeconds time of pre-training
   * @param finetuneSeconds time of fine-tuning
   * @param codes the held-out images' codes
   * @param weightFiles the RBM weights files, bottom first
   */
  public record Result(
      List<Float> rbmErrors,
      double stackError,
      double autoEncoderError,
      double pcaError,
      double rbmSeconds,
      double finetuneSeconds,
      float[][] codes,
      List<StoragePath> weightFiles) {}

  private DeepAutoEncoder() {}

  /**
   * Runs the pipeline on {@code train} (pixels in [0, 1], labels unused) and evaluates on {@code
   * heldOut}; writes the weights files and the two PNGs into {@code outDir}, on any Hadoop file
   * system, each under a temporary name that is renamed when it is complete. The held-out images
   * reach the executors through {@code parallelize}; see the other overload to read them there.
   */
  public static Result run(
      JavaSparkContext sc,
      JavaRDD<Example> train,
      List<Example> heldOut,
      List<String> classNames,
      Settings s,
      StoragePath outDir,
      PrintStream log) {
    return run(
        sc, train, sc.parallelize(heldOut, s.workers()), heldOut, classNames, s, outDir, log);
  }

  /**
   * Like {@link #run(JavaSparkContext, JavaRDD, List, List, Settings, StoragePath, PrintStream)},
   * with {@code heldOutRdd} the same held-out images read on the executors (the RBMs' validation
   * and the next stage's test input), so that they are not shipped inside the tasks; {@code
   * heldOut} serves the driver's evaluation and plots.
   */
  public static Result run(
      JavaSparkContext sc,
      JavaRDD<Example> train,
      JavaRDD<Example> heldOutRdd,
      List<Example> heldOut,
      List<String> classNames,
      Settings s,
      StoragePath outDir,
      PrintStream log) {
    outDir.mkdirs();
    int[] sizes = s.sizes();
    JavaRDD<Example> input = train.persist(StorageLevel.MEMORY_ONLY());
    long count = input.count();
    long t0 = System.nanoTime();
    RbmStack rbms = pretrain(sc, input, heldOutRdd, count, s, outDir, log);
    double rbmSeconds = (System.nanoTime() - t0) / 1e9;

    // Unroll from the weights files.
    List<WeightCollection> stack = rbms.readBack();
    WeightCollection unrolled = AutoEncoderNet.unroll(stack);
    outDir
        .resolve("filters.png")
        .write(
            Figures.filters(stack.get(0), 100, 10, (int) Math.round(Math.sqrt(sizes[0]))).toPng(),
            true);
    NetDefinition ae =
        AutoEncoderNet.definition(sizes, s.batch(), s.finetuneLr(), s.seed())
            .withDevice(s.finetuneDevice());
    double stackError = evaluate(ae, unrolled, heldOut, null);

    long t1 = System.nanoTime();
    WeightCollection tuned = finetune(sc, ae, unrolled, train, count, s, log);
    double finetuneSeconds = (System.nanoTime() - t1) / 1e9;
    float[][] codes = new float[heldOut.size()][];
    double aeError = evaluate(ae, tuned, heldOut, codes);

    Pca pca = Pca.fit(train, sizes[sizes.length - 1]);
    double pcaError = pca.reconstructionError(heldOut);
    int[] labels = heldOut.stream().mapToInt(e -> (int) e.label()).toArray();
    outDir.resolve("codes.png").write(Figures.codes(codes, labels, classNames).toPng(), true);
    train.unpersist(false);
    return new Result(
        rbms.errors(),
        stackError,
        aeError,
        pcaError,
        rbmSeconds,
        finetuneSeconds,
        codes,
        rbms.files());
  }

  /** The pre-trained RBMs: their held-out errors, weights files and definitions, input first. */
  private record RbmStack(List<Float> errors, List<StoragePath> files, List<NetDefinition> defs) {
    List<WeightCollection> readBack() {
      NetProvider rbmEngine = NetProvider.forEngine("rbm");
      List<WeightCollection> stack = new ArrayList<>();
      for (int i = 0; i < files.size(); i++) {
        stack.add(
            rbmEngine.decodeWeights(
                defs.get(i), files.get(i).readAllBytes(), files.get(i).toString()));
      }
      return stack;
    }
  }

  /**
   * Trains the RBMs one after the other, each on the hidden probabilities of the one before (read
   * back from its weights file, as SINGA's next stage does), and writes each one's weights file.
   */
  private static RbmStack pretrain(
      JavaSparkContext sc,
      JavaRDD<Example> cachedTrain,
      JavaRDD<Example> heldOutRdd,
      long count,
      Settings s,
      StoragePath outDir,
      PrintStream log) {
    int[] sizes = s.sizes();
    int layers = sizes.length - 1;
    RbmStack stack = new RbmStack(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    NetProvider rbmEngine = NetProvider.forEngine("rbm");
    // The weights each transformed dataset was computed with: kept while the cached data may need
    // recomputing, destroyed at the end of pre-training.
    List<Broadcast<WeightCollection>> broadcasts = new ArrayList<>();
    JavaRDD<Example> input = cachedTrain;
    JavaRDD<Example> testInput = heldOutRdd;
    for (int i = 0; i < layers; i++) {
      boolean last = i == layers - 1;
      // Input probabilities must be read in the range of a visible unit: they are, since every
      // RBM but the last has binary (sigmoid) hidden units.
      NetDefinition def = rbmConfig(s, i, last).definition(s.seed() + i);
      int rounds = rounds(s.rbmEpochs(), count, s);
      WeightCollection weights;
      try (SparkNetTrainer trainer = new SparkNetTrainer(sc, config(def, s))) {
        trainer.setTrainingData(input);
        trainer.setValidationData(testInput);
        List<RoundMetrics> m = trainer.train(rounds);
        float error = trainer.test().get("loss");
        weights = trainer.getWeights();
        stack.errors().add(error);
        log.printf(
            "RBM %d: %d-%d%s, %d rounds, train reconstruction error %.4f -> %.4f, held-out %.4f%n",
            i + 1,
            sizes[i],
            sizes[i + 1],
            last ? " (linear Gaussian hidden units)" : "",
            rounds,
            m.get(0).meanLoss(),
            m.get(m.size() - 1).meanLoss(),
            error);
      }
      StoragePath file = outDir.resolve("rbm-" + (i + 1) + ".weights");
      file.write(rbmEngine.encodeWeights(def, weights), true);
      stack.files().add(file);
      stack.defs().add(def);
      if (!last) {
        // The next RBM reads this one's weights back from its file, as SINGA's next stage does.
        WeightCollection handedOn =
            rbmEngine.decodeWeights(def, file.readAllBytes(), file.toString());
        Broadcast<WeightCollection> bw = sc.broadcast(handedOn);
        broadcasts.add(bw);
        JavaRDD<Example> next = hidden(input, def, bw).persist(StorageLevel.MEMORY_ONLY());
        JavaRDD<Example> nextTest = hidden(testInput, def, bw).cache();
        next.count();
        release(input, testInput, heldOutRdd);
        input = next;
        testInput = nextTest;
      }
    }
    release(input, testInput, heldOutRdd);
    for (Broadcast<WeightCollection> b : broadcasts) {
      b.destroy();
    }
    return stack;
  }

  /**
   * Releases a stage's cached input once the next stage's is cached (each trainer packs and caches
   * its own copy of its data), and the held-out data of the hidden layers, never the caller's.
   */
  private static void release(
      JavaRDD<Example> input, JavaRDD<Example> testInput, JavaRDD<Example> heldOut) {
    input.unpersist(false);
    if (testInput != heldOut) {
      testInput.unpersist(false);
    }
  }

  private static RbmConfig rbmConfig(Settings s, int i, boolean last) {
    int[] sizes = s.sizes();
    float lr = last ? s.codeLr() : s.rbmLr();
    return RbmConfig.of(sizes[i], sizes[i + 1], s.batch(), lr)
        .withSolver(lr, 0.5f, 2e-4f)
        .withHiddenUnits(last ? RbmConfig.HiddenUnits.GAUSSIAN : RbmConfig.HiddenUnits.BINARY)
        .withSeed(s.seed() + i);
  }

  /** Fine-tunes the unrolled auto-encoder from {@code unrolled}; returns its weights. */
  private static WeightCollection finetune(
      JavaSparkContext sc,
      NetDefinition ae,
      WeightCollection unrolled,
      JavaRDD<Example> train,
      long count,
      Settings s,
      PrintStream log) {
    try (SparkNetTrainer trainer = new SparkNetTrainer(sc, config(ae, s))) {
      trainer.setWeights(unrolled);
      trainer.setTrainingData(train);
      trainer.addListener(new DeviceReport(log));
      int rounds = rounds(s.finetuneEpochs(), count, s);
      int every = Math.max(1, rounds / 10);
      trainer.addListener(
          m -> {
            if (m.round() % every == 0) {
              log.printf(
                  "  fine-tuning round %d/%d: cross-entropy per image %.2f, %.0f img/s%n",
                  m.round(), rounds, m.meanLoss(), m.imagesPerSecond());
            }
          });
      List<RoundMetrics> m = rounds == 0 ? List.of() : trainer.train(rounds);
      if (!m.isEmpty()) {
        log.printf(
            "Fine-tuning: %d rounds, cross-entropy per image %.2f -> %.2f%n",
            rounds, m.get(0).meanLoss(), m.get(m.size() - 1).meanLoss());
      }
      return trainer.getWeights();
    }
  }

  private static TrainerConfig config(NetDefinition def, Settings s) {
    return TrainerConfig.builder()
        .setNetDefinition(def)
        .optWorkers(s.workers())
        .optTau(s.tau())
        .optSeed(s.seed())
        .build();
  }

  /** Rounds for {@code epochs} passes: each round consumes workers x tau x batch examples. */
  static int rounds(double epochs, long count, Settings s) {
    double perRound = (double) s.workers() * s.tau() * s.batch();
    return (int) Math.ceil(epochs * count / perRound);
  }

  /**
   * The hidden probabilities (means) of an RBM for every example, computed on the executors: each
   * partition builds the RBM once, loads the broadcast weights and runs it forward in batches
   * ({@link Predictor}). Labels are kept.
   */
  static JavaRDD<Example> hidden(
      JavaRDD<Example> data, NetDefinition def, Broadcast<WeightCollection> bw) {
    return data.mapPartitions(it -> hiddenOfPartition(it, def, bw.value()));
  }

  private static Iterator<Example> hiddenOfPartition(
      Iterator<Example> it, NetDefinition def, WeightCollection weights) {
    List<Example> out = new ArrayList<>();
    if (!it.hasNext()) {
      return out.iterator();
    }
    try (Predictor predictor = Model.of(def, weights).newPredictor()) {
      predictor
          .predict(it, PIXELS, RbmNet.HIDDEN)
          .forEachRemaining(p -> out.add(new Example(p.values(), p.item().label())));
    }
    return out.iterator();
  }

  /**
   * Held-out reconstruction error (squared error per pixel) of the auto-encoder with {@code
   * weights}, on the driver; fills {@code codes} when not null.
   */
  static double evaluate(
      NetDefinition ae, WeightCollection weights, List<Example> heldOut, float[][] codes) {
    try (CaffeNet net = CaffeNet.create(TaskDevices.forDriver(ae), false)) {
      net.setWeights(weights);
      int batch = net.inputShapes(Phase.TEST).get("data").dim(0);
      int d = net.inputShapes(Phase.TEST).get("data").dim(1);
      float[] buf = new float[batch * d];
      double sse = 0;
      for (int from = 0; from < heldOut.size(); from += batch) {
        int n = Math.min(batch, heldOut.size() - from);
        Arrays.fill(buf, 0f);
        for (int r = 0; r < n; r++) {
          System.arraycopy(heldOut.get(from + r).features(), 0, buf, r * d, d);
        }
        Map<String, NDArray> res =
            net.forward(
                in -> in.get("data").copyFrom(buf),
                List.of(AutoEncoderNet.RECONSTRUCTION, AutoEncoderNet.CODE));
        try (NDArray rec = res.get(AutoEncoderNet.RECONSTRUCTION);
            NDArray code = res.get(AutoEncoderNet.CODE)) {
          float[] r = rec.toArray();
          for (int i = 0; i < n * d; i++) {
            double diff = r[i] - buf[i];
            sse += diff * diff;
          }
          if (codes != null) {
            float[] c = code.toArray();
            int k = code.shape().dim(1);
            for (int i = 0; i < n; i++) {
              codes[from + i] = Arrays.copyOfRange(c, i * k, (i + 1) * k);
            }
          }
        }
      }
      return sse / ((double) heldOut.size() * d);
    }
  }
}
