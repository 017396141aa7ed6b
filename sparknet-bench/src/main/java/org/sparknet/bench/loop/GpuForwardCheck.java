package org.sparknet.bench.loop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.bytedeco.caffe.Caffe;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.caffe.PlainCaffeSolver;

/**
 * Does Caffe compute the same on the GPU as on the CPU? A small net (3x3 convolution padded by 1,
 * ReLU, max pooling, inner product, softmax; input 2x3x16x16; Gaussian fillers, fixed seed) is
 * built through SparkNet ({@link PlainCaffeSolver}: SparkNet's checks, natives and device), once
 * with {@code engine: CAFFE} on every layer that has an engine field (Caffe's own kernels and
 * cuBLAS) and once with the default engine (cuDNN in the GPU build). Each runs forward on the GPU,
 * then on the CPU, with the same weights and input (the same net, Caffe's mode switched), and every
 * blob is compared: at most 1e-4 apart on Caffe's engine and 2e-3 on cuDNN. Then Dropout in TRAIN
 * on the GPU (cuRAND) must drop about half of its inputs and scale the others by 2.
 *
 * <p>{@code java ... GpuForwardCheck [gpu:N [RESULTS]]}. Prints one {@code gpu-check:} line per
 * finding and appends them to RESULTS as {@code KEY TEXT} lines ({@link GpuCheckResults}). Exit 0
 * when everything agrees, 1 on a mismatch, 3 when there is no GPU to check (the nets are then still
 * built and run on the CPU, which proves the natives and the class path).
 */
public final class GpuForwardCheck {
  static final String PREFIX = "gpu-check: ";
  private static final double CAFFE_BOUND = 1e-4;
  private static final double CUDNN_BOUND = 2e-3;
  private static final long SEED = 1234;
  private static final String SOLVER = "base_lr: 0.01\nlr_policy: \"fixed\"\nmax_iter: 1\n";

  private GpuForwardCheck() {}

  public static void main(String[] args) {
    String device = args.length > 0 ? args[0] : "gpu:0";
    Path results = args.length > 1 ? Path.of(args[1]) : null;
    NetProvider caffe = NetProvider.forEngine("caffe");
    int gpus = caffe.visibleGpus();
    String devices =
        String.format(
            Locale.ROOT,
            "gpu build %s, %d GPU(s) visible%s",
            caffe.gpuBuild(),
            gpus,
            gpus == 0 ? "; " + caffe.gpuProblem() : "; " + caffe.describeDevice(device));
    say("devices: %s", devices);
    record(results, "devices.line", devices);
    if (gpus == 0) {
      say("forward: no GPU: %s", caffe.gpuProblem());
      record(results, "forward.verdict", "no GPU: " + caffe.gpuProblem());
      cpuOnly();
      System.exit(3);
    }
    String caffeEngine = compare("CAFFE", device, CAFFE_BOUND);
    String cudnn = compare(null, device, CUDNN_BOUND);
    String drop = dropout(device);
    record(results, "forward.caffe", caffeEngine);
    record(results, "forward.cudnn", cudnn);
    record(results, "forward.dropout", drop);
    boolean ok = Stream.of(caffeEngine, cudnn, drop).allMatch(t -> t.contains(" ok"));
    record(results, "forward.verdict", ok ? "ok" : "MISMATCH");
    say("forward check: %s", ok ? "ok" : "MISMATCH");
    System.exit(ok ? 0 : 1);
  }

  /** Appends {@code KEY TEXT} to the results file, when there is one. */
  static void record(Path results, String key, String text) {
    if (results == null) {
      return;
    }
    try {
      Files.writeString(
          results,
          key + " " + text.replace('\n', ' ') + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot append to " + results, e);
    }
  }

  /** Builds both nets and the Dropout net on the CPU and runs them, checking only sanity. */
  private static void cpuOnly() {
    for (String engine : new String[] {"CAFFE", null}) {
      try (PlainCaffeSolver s = PlainCaffeSolver.create(definition(engine, false, "cpu"))) {
        float[] prob = forward(s.net(), "prob");
        double sum = 0;
        for (float p : prob) {
          sum += p;
        }
        say(
            "cpu only: engine %s built and run, softmax sums to %.4f (expect 2)",
            engine == null ? "default" : engine, sum);
      }
    }
    try (PlainCaffeSolver s = PlainCaffeSolver.create(definition(null, true, "cpu"))) {
      say("cpu only: %s", dropped(s.net()));
    }
  }

  /**
   * Forward on the GPU, then on the CPU; the largest difference of any blob against its bound, as
   * text that contains " ok" when within it.
   */
  private static String compare(String engine, String device, double bound) {
    String name = engine == null ? "default (cuDNN)" : engine;
    try (PlainCaffeSolver s = PlainCaffeSolver.create(definition(engine, false, device));
        PointerScope scope = new PointerScope()) {
      FloatNet net = s.net();
      s.useDevice();
      float[][] gpu = allBlobs(net);
      float[][] gpuAgain = allBlobs(net);
      Caffe.set_mode(Caffe.CPU);
      float[][] cpu = allBlobs(net);
      s.useDevice();
      double worst = 0;
      String where = "";
      boolean repeatable = true;
      List<String> names = blobNames(net);
      for (int b = 0; b < gpu.length; b++) {
        double d = maxDiff(gpu[b], cpu[b]);
        if (d > worst || where.isEmpty()) {
          worst = d;
          where = names.get(b);
        }
        repeatable &= maxDiff(gpu[b], gpuAgain[b]) == 0;
      }
      boolean ok = worst <= bound && Double.isFinite(worst);
      String text =
          String.format(
              Locale.ROOT,
              "%s against cpu: max|GPU-CPU| = %.3g (blob '%s'; bound %.0e) %s; two GPU passes %s",
              device,
              worst,
              where,
              bound,
              ok ? "ok" : "MISMATCH",
              repeatable ? "identical" : "differ");
      say("forward engine %s, %s", name, text);
      return text;
    } catch (RuntimeException e) {
      say("forward engine %s: error: %s", name, e.getMessage());
      return "error: " + e.getMessage();
    }
  }

  private static String dropout(String device) {
    try (PlainCaffeSolver s = PlainCaffeSolver.create(definition(null, true, device))) {
      s.useDevice();
      String result = device + ": " + dropped(s.net());
      say("dropout TRAIN on %s", result);
      return result;
    } catch (RuntimeException e) {
      say("dropout TRAIN on %s: error: %s", device, e.getMessage());
      return "error: " + e.getMessage();
    }
  }

  /** Runs the Dropout net once: how many inputs it zeroed, and whether the rest were doubled. */
  private static String dropped(FloatNet net) {
    float[] out = forward(net, "drop");
    int zeros = 0;
    int doubled = 0;
    for (float v : out) {
      if (v == 0f) {
        zeros++;
      } else if (Math.abs(v - 2f) < 1e-6) {
        doubled++;
      }
    }
    double share = (double) zeros / out.length;
    boolean ok = share >= 0.45 && share <= 0.55 && zeros + doubled == out.length;
    return String.format(
        Locale.ROOT,
        "%d of %d zeroed (%.3f; expect 0.45-0.55), %d kept and scaled to 2 %s",
        zeros,
        out.length,
        share,
        doubled,
        ok ? "ok" : "MISMATCH");
  }

  /** Fills the input (sin of the index; ones for Dropout), runs forward, reads {@code top}. */
  private static float[] forward(FloatNet net, String top) {
    try (PointerScope scope = new PointerScope()) {
      fillInput(net, top.equals("drop"));
      net.Forward();
      return read(net.blob_by_name(top));
    }
  }

  private static float[][] allBlobs(FloatNet net) {
    fillInput(net, false);
    net.Forward();
    List<String> names = blobNames(net);
    float[][] out = new float[names.size()][];
    for (int b = 0; b < out.length; b++) {
      out[b] = read(net.blob_by_name(names.get(b)));
    }
    return out;
  }

  private static List<String> blobNames(FloatNet net) {
    String[] names = new String[(int) net.blob_names().size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = net.blob_names().get(i).getString();
    }
    return List.of(names);
  }

  private static void fillInput(FloatNet net, boolean ones) {
    FloatBlob in = net.blob_by_name("data");
    FloatPointer d = in.mutable_cpu_data();
    for (int i = 0; i < in.count(); i++) {
      d.put(i, ones ? 1f : (float) Math.sin(i * 0.37));
    }
  }

  private static float[] read(FloatBlob blob) {
    float[] r = new float[blob.count()];
    blob.cpu_data().get(r);
    return r;
  }

  static double maxDiff(float[] a, float[] b) {
    double m = 0;
    for (int i = 0; i < a.length; i++) {
      double d = Math.abs(a[i] - b[i]);
      m = Double.isNaN(d) ? Double.POSITIVE_INFINITY : Math.max(m, d);
    }
    return m;
  }

  /**
   * The check's net: {@code engine} on every layer that has the field (null: Caffe's default), or,
   * with {@code dropout}, the input straight into a Dropout of ratio 0.5.
   */
  static NetDefinition definition(String engine, boolean dropout, String device) {
    String e = engine == null ? "" : " engine: " + engine;
    StringBuilder net = new StringBuilder("name: \"ForwardCheck\"\n");
    net.append(
        "layer { name: \"data\" type: \"Input\" top: \"data\""
            + " input_param { shape { dim: 2 dim: 3 dim: 16 dim: 16 } } }\n");
    if (dropout) {
      net.append(
          "layer { name: \"drop\" type: \"Dropout\" bottom: \"data\" top: \"drop\""
              + " dropout_param { dropout_ratio: 0.5 } }\n");
    } else {
      net.append(
          "layer { name: \"conv1\" type: \"Convolution\" bottom: \"data\" top: \"conv1\""
              + " convolution_param { num_output: 8 kernel_size: 3 pad: 1"
              + e
              + " weight_filler { type: \"gaussian\" std: 0.1 }"
              + " bias_filler { type: \"constant\" value: 0.1 } } }\n");
      net.append(
          "layer { name: \"relu1\" type: \"ReLU\" bottom: \"conv1\" top: \"relu1\""
              + (engine == null ? "" : " relu_param {" + e + " }")
              + " }\n");
      net.append(
          "layer { name: \"pool1\" type: \"Pooling\" bottom: \"relu1\" top: \"pool1\""
              + " pooling_param { pool: MAX kernel_size: 2 stride: 2"
              + e
              + " } }\n");
      net.append(
          "layer { name: \"ip1\" type: \"InnerProduct\" bottom: \"pool1\" top: \"ip1\""
              + " inner_product_param { num_output: 10"
              + " weight_filler { type: \"gaussian\" std: 0.05 } } }\n");
      net.append(
          "layer { name: \"prob\" type: \"Softmax\" bottom: \"ip1\" top: \"prob\""
              + (engine == null ? "" : " softmax_param {" + e + " }")
              + " }\n");
    }
    return NetDefinition.caffe(SOLVER, net.toString(), List.of(3, 16, 16))
        .withSeed(SEED)
        .withDevice(device);
  }

  static void say(String format, Object... args) {
    System.out.println(PREFIX + String.format(Locale.ROOT, format, args));
    System.out.flush();
  }
}
