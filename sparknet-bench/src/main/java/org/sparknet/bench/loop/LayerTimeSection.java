package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.LR;
import static org.sparknet.bench.loop.BenchRun.SCALE;
import static org.sparknet.bench.loop.BenchRun.SEED;
import static org.sparknet.bench.loop.BenchRun.log;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.sparknet.api.data.Example;
import org.sparknet.bench.loop.BenchNets.BenchNet;
import org.sparknet.bench.loop.GemmShapes.Gemm;
import org.sparknet.bench.loop.LayerTimer.Layer;
import org.sparknet.bench.loop.LayerTimer.Times;

/**
 * Section 5b: where LeNet's and CIFAR-10 quick's training step goes, layer by layer, against the
 * time its matrix products would take at the 1-thread sgemm rate of section 5; the same at larger
 * batch sizes; and whether the roofline targets are within reach of Caffe 1.0's CPU layers.
 */
final class LayerTimeSection {
  private final BenchRun run;
  private final boolean quick;
  private final int reps;
  private final long sgemmNanos;

  LayerTimeSection(BenchRun run) {
    this.run = run;
    this.quick = run.opt().quick();
    this.reps = quick ? 1 : run.opt().repeats();
    this.sgemmNanos = quick ? 20_000_000L : 300_000_000L;
  }

  /**
   * One net at one batch size, measured: per layer (in the net's order) the shortest forward,
   * backward and im2col/col2im seconds of a step over all passes, the shortest {@code Step(1)},
   * each layer's GEMMs at the best 1-thread sgemm rates, and the step's shape-weighted 1-thread
   * peak at those rates.
   */
  record Profile(
      BenchNet net,
      List<Layer> layers,
      double[] forward,
      double[] backward,
      double[] im2col,
      double step,
      int iterations,
      Map<String, LayerGemms> gemms,
      double peak) {

    double layerSum() {
      double s = 0;
      for (int i = 0; i < forward.length; i++) {
        s += forward[i] + backward[i];
      }
      return s;
    }

    double gemmFlops() {
      return gemms.values().stream().mapToDouble(LayerGemms::flopsPerStep).sum();
    }

    double gemmSeconds() {
      return gemms.values().stream().mapToDouble(LayerGemms::seconds).sum();
    }

    /** Seconds per step of the layers of {@code type} (e.g. "Convolution"). */
    double seconds(String type) {
      double s = 0;
      for (int i = 0; i < forward.length; i++) {
        if (layers.get(i).type().equals(type)) {
          s += forward[i] + backward[i];
        }
      }
      return s;
    }

    double imagesPerSecond() {
      return net.batch() / step;
    }
  }

  void run() {
    String load = Machine.loadAverage();
    Sgemm.setThreads(1);
    List<Profile> lenet = new ArrayList<>();
    List<Profile> cifar = new ArrayList<>();
    for (int b : quick ? List.of(64, 128) : List.of(64, 128, 256)) {
      lenet.add(measure(BenchNets.lenet(SEED, LR, b)));
    }
    for (int b : quick ? List.of(100) : List.of(100, 200)) {
      cifar.add(measure(BenchNets.cifarQuick(SEED, b)));
    }
    LayerReport report = new LayerReport(reps, sgemmNanos, load);
    run.write("loop-layers", report.markdown(lenet, cifar));
  }

  /** Profiles {@code net} on 1 BLAS thread: sgemm rates, per-layer times, Step(1), im2col. */
  private Profile measure(BenchNet net) {
    List<Gemm> shapes = GemmShapes.of(net.definition());
    Map<Gemm, Double> rates = new HashMap<>();
    double flops = 0;
    double time = 0;
    for (Gemm g : shapes) {
      double rate = Sgemm.bestCallGflops(g.transA(), g.transB(), g.m(), g.n(), g.k(), sgemmNanos);
      rates.put(g, rate);
      flops += g.flopsPerImage();
      time += g.flopsPerImage() / rate;
    }
    Map<String, LayerGemms> gemms = LayerGemms.byLayer(shapes, rates::get);
    int batches = quick ? 2 : 8;
    List<Example> examples = new ArrayList<>();
    for (Example e : run.train().read(0, net.batch() * batches, SCALE)) {
      examples.add(net.channels() == 1 ? e : BenchNets.upscale(e, net.channels(), net.side()));
    }
    try (LayerTimer timer = new LayerTimer(net.definition(), examples)) {
      timer.time(2); // warm-up: first passes allocate the layers' buffers
      double guess = timer.step(3);
      int iterations = (int) Math.max(quick ? 2 : 5, Math.ceil((quick ? 0.3 : 3.0) / guess));
      List<Times> times = new ArrayList<>();
      List<Double> steps = new ArrayList<>();
      for (int r = 0; r < reps; r++) {
        times.add(timer.time(iterations));
        steps.add(timer.step(iterations));
      }
      Profile p =
          new Profile(
              net,
              timer.layers(),
              best(times, true),
              best(times, false),
              timer.im2col(iterations),
              steps.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
              iterations,
              gemms,
              flops / time);
      log(
          "layers %s batch %d: step %.1f ms (%.0f img/s), layers %.1f ms, GEMMs at peak %.1f ms,"
              + " %d iterations x %d",
          net.name(),
          net.batch(),
          1e3 * p.step(),
          p.imagesPerSecond(),
          1e3 * p.layerSum(),
          1e3 * p.gemmSeconds(),
          iterations,
          reps);
      return p;
    }
  }

  /** Per layer, the shortest over the repetitions of the forward (or backward) seconds. */
  private static double[] best(List<Times> times, boolean forward) {
    int n = times.get(0).forward().length;
    double[] out = new double[n];
    for (int i = 0; i < n; i++) {
      out[i] = Double.MAX_VALUE;
      for (Times t : times) {
        out[i] = Math.min(out[i], forward ? t.forward()[i] : t.backward()[i]);
      }
    }
    return out;
  }
}
