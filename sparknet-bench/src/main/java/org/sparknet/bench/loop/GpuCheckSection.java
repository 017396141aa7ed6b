package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.metOrNot;
import static org.sparknet.bench.loop.GpuForwardCheck.say;

import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.sparknet.bench.loop.GpuCheckResults.CliRun;

/**
 * BENCHMARKS section 11 from the GPU check's results ({@link GpuCheckResults}): the machine, the
 * forward-pass comparison and GpuIT, LeNet's and the AlexNet-sized net's images/s on gpu:0 (plain
 * JavaCPP solver loop, {@code CaffeNet.train}, SparkNet with 1 worker) with their targets, the
 * round's share outside the solver steps at tau 50, the same nets with 16 workers on the CPU cores
 * for the GPU/CPU ratio, and LeNet's test accuracy after one epoch on the GPU and on the CPU.
 *
 * <pre>java ... GpuCheckSection RESULTS_DIR OUTPUT.md [COMMAND]</pre>
 *
 * Writes the section between the {@code bench:loop-gpu} markers of OUTPUT.md (created when absent,
 * so the section can be carried into BENCHMARKS.md) and prints one {@code gpu-check:} line per
 * figure. A figure whose step did not run reads "not measured".
 */
public final class GpuCheckSection {
  static final double CAFFENET_TARGET = 0.95;
  static final double SPARKNET_TARGET = 0.90;
  static final double ACCURACY_POINTS = 1.0;

  private final GpuCheckResults r;
  private final StringBuilder md = new StringBuilder();

  private GpuCheckSection(GpuCheckResults r) {
    this.r = r;
  }

  public static void main(String[] args) {
    if (args.length < 2) {
      System.err.println("usage: GpuCheckSection RESULTS_DIR OUTPUT.md [COMMAND]");
      System.exit(2);
    }
    String command = args.length > 2 ? args[2] : "bench/gpu-check/gpu-check run";
    String body = markdown(GpuCheckResults.read(Path.of(args[0])), command);
    MarkdownSections.rewrite(Path.of(args[1]), "loop-gpu", body);
    say("section 11 written to %s", Path.of(args[1]).toAbsolutePath());
  }

  /** The section's text from {@code results}; prints its figures as it goes. */
  static String markdown(GpuCheckResults results, String command) {
    GpuCheckSection s = new GpuCheckSection(results);
    s.write(command);
    return s.md.toString();
  }

  private void write(String command) {
    boolean rehearsal = r.text("env.mode", "gpu").equals("rehearsal");
    md.append("### 11. GPUs: LeNet and AlexNet-sized training on one GPU\n\n");
    if (rehearsal) {
      md.append(
          "**CPU rehearsal of the GPU check, not GPU figures**: every step ran on the CPU of the"
              + " machine that packed it, with smaller AlexNet sizes, to prove the packing, the"
              + " class path and the JRE.\n\n");
    }
    machine(command);
    correctness();
    speed();
    cpuRatio();
    sharing();
    accuracy();
  }

  private void machine(String command) {
    md.append(
        String.format(
            Locale.ROOT,
            "Measured %s by `%s` (packed on a CPU machine by `bench/gpu-check/gpu-check pack`;"
                + " the GPU machine has no Java or Maven: a jlinked JRE, the GPU jar and the"
                + " data travel). GPU: %s; driver %s, CUDA %s (nvidia-smi); NVIDIA's wheels"
                + " there: %s. CPU: %d cores (%s), %s. SparkNet's devices: %s.%n%n",
            ZonedDateTime.now(ZoneOffset.UTC)
                .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT)),
            command,
            r.text("env.gpu", "none"),
            r.text("env.driver", "none"),
            r.text("env.cuda", "none"),
            r.text("env.wheels", "none"),
            Machine.processors(),
            Machine.cpuModel(),
            Machine.memory(),
            r.text("devices.line", "not recorded")));
  }

  private void correctness() {
    md.append("Forward pass, GPU against CPU (`GpuForwardCheck`, same net, weights and input):\n");
    md.append("- engine CAFFE: ").append(r.text("forward.caffe", "not run")).append('\n');
    md.append("- default engine (cuDNN): ").append(r.text("forward.cudnn", "not run")).append('\n');
    md.append("- Dropout in TRAIN on the GPU: ").append(r.text("forward.dropout", "not run"));
    md.append("\n- verdict: ").append(r.text("forward.verdict", "not run")).append("\n\n");
    md.append("`GpuIT` (JUnit console, tag gpu): ")
        .append(r.text("gpuit.summary", "not run"))
        .append(".\n\n");
  }

  private void speed() {
    CliRun lenet = r.cli("lenet-gpu");
    double lenetPlain = r.value("lenet.gpu.plain");
    double alexPlain = r.value("alexnet.gpu.plain");
    md.append("| Net on gpu:0 | What runs | images/s | ÷ plain | target |\n");
    md.append("|---|---|---:|---:|---|\n");
    String lenetName = "LeNet, batch " + whole(r.value("lenet.gpu.batch"));
    String plainLoop = "plain JavaCPP solver loop (`PlainSolverLoop`)";
    row(lenetName, "LeNet", plainLoop, lenetPlain, lenetPlain, 0);
    row(
        "",
        "LeNet",
        "`CaffeNet.train`",
        r.value("lenet.gpu.caffenet"),
        lenetPlain,
        CAFFENET_TARGET);
    row(
        "",
        "LeNet",
        "SparkNet CLI `train --device gpu --workers 1 --tau 50`, a child process, rounds after"
            + " the first",
        lenet.imagesPerSecond(),
        lenetPlain,
        SPARKNET_TARGET);
    String alexName =
        "AlexNet-sized (`BenchNets.alexNet`), batch " + whole(r.value("alexnet.gpu.batch"));
    row(alexName, "AlexNet", plainLoop, alexPlain, alexPlain, 0);
    row(
        "",
        "AlexNet",
        "`CaffeNet.train`",
        r.value("alexnet.gpu.caffenet"),
        alexPlain,
        CAFFENET_TARGET);
    row(
        "",
        "AlexNet",
        String.format(
            Locale.ROOT,
            "SparkNet in-process `SparkNetTrainer`, 1 worker, `--device gpu`, tau %s, %s rounds"
                + " after one (the CLI cannot upscale)",
            whole(r.value("alexnet.gpu.sparknet.tau")),
            whole(r.value("alexnet.gpu.sparknet.rounds"))),
        r.value("alexnet.gpu.sparknet"),
        alexPlain,
        SPARKNET_TARGET);
    double alexShare = r.value("alexnet.gpu.sparknet.noncompute");
    String alexTau = whole(r.value("alexnet.gpu.sparknet.tau"));
    md.append(
        String.format(
            Locale.ROOT,
            "%nA round's time outside the slowest worker's solver steps (broadcast, aggregation,"
                + " scheduling; rounds after the first): LeNet %s at tau 50 (CLI metrics),"
                + " AlexNet-sized %s at tau %s.%n%n",
            percent(lenet.nonComputeShare()),
            percent(alexShare),
            alexTau));
    say(
        "LeNet, SparkNet CLI on gpu:0: outside the solver steps at tau 50: %s",
        percent(lenet.nonComputeShare()));
    say(
        "AlexNet, SparkNet on gpu:0: outside the solver steps at tau %s: %s",
        alexTau, percent(alexShare));
  }

  /** A table row (its first cell {@code cell}) and its printed line, labelled {@code net}. */
  private void row(String cell, String net, String what, double ips, double plain, double target) {
    double ratio = ips / plain;
    String verdict =
        target == 0
            ? ""
            : Double.isNaN(ratio)
                ? "≥ " + target + ": not measured"
                : "≥ " + target + ": " + metOrNot(ratio >= target);
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %s | %s | %s | %s |%n",
            cell,
            what,
            number(ips),
            Double.isNaN(ratio) ? "—" : String.format(Locale.ROOT, "%.3f", ratio),
            verdict));
    say(
        "%s on gpu:0, %s: %s%s",
        net,
        what,
        rate(ips),
        target == 0 || Double.isNaN(ratio)
            ? ""
            : String.format(Locale.ROOT, " = %.3f of plain (%s)", ratio, verdict));
  }

  private void cpuRatio() {
    CliRun lenetGpu = r.cli("lenet-gpu");
    CliRun lenetCpu = r.cli("lenet-cpu16");
    double alexGpu = r.value("alexnet.gpu.sparknet");
    double alexCpu = r.value("alexnet.cpu.sparknet");
    md.append(
        String.format(
            Locale.ROOT,
            "The GPU against this machine's CPU cores: SparkNet with 1 worker on gpu:0 against"
                + " SparkNet with %s workers on the CPU (`--device cpu`, one BLAS thread each)."
                + " LeNet: the CLI, rounds after the first; AlexNet-sized: in-process, batch %s"
                + " a worker, tau %s.%n%n",
            lenetCpu.ran() ? String.valueOf(lenetCpu.workers()) : "N",
            whole(r.value("alexnet.cpu.batch")),
            whole(r.value("alexnet.cpu.sparknet.tau"))));
    md.append("| Net | gpu:0, 1 worker | CPU, all cores | GPU ÷ CPU |\n|---|---:|---:|---:|\n");
    ratioRow("LeNet", lenetGpu.imagesPerSecond(), lenetCpu.imagesPerSecond());
    ratioRow("AlexNet-sized", alexGpu, alexCpu);
    md.append('\n');
  }

  private void ratioRow(String net, double gpu, double cpu) {
    String ratio =
        Double.isNaN(gpu / cpu) ? "not measured" : String.format(Locale.ROOT, "%.1f", gpu / cpu);
    md.append(
        String.format(
            Locale.ROOT, "| %s | %s | %s | %s |%n", net, number(gpu), number(cpu), ratio));
    say(
        "%s, GPU/CPU: %s on gpu:0 against %s on the CPU cores: %s",
        net, rate(gpu), rate(cpu), ratio);
  }

  private void accuracy() {
    CliRun gpu = r.cli("lenet-gpu");
    CliRun cpu = r.cli("lenet-cpu1");
    double points = 100 * Math.abs(gpu.finalAccuracy() - cpu.finalAccuracy());
    String verdict = Double.isNaN(points) ? "not measured" : metOrNot(points <= ACCURACY_POINTS);
    md.append(
        String.format(
            Locale.ROOT,
            "LeNet's test accuracy on Fashion-MNIST's 10,000 test images after one epoch (%s steps"
                + " of 64 images, seed 42, `train --workers 1 --tau 50` with Caffe's"
                + " examples/mnist solver): %s on the GPU, %s on the CPU, %s points apart"
                + " (within %.0f point: %s).%n",
            gpu.ran() ? String.valueOf(gpu.steps()) : "?",
            accuracyText(gpu.finalAccuracy()),
            accuracyText(cpu.finalAccuracy()),
            pointsText(points),
            ACCURACY_POINTS,
            verdict));
    say(
        "LeNet, one epoch: test accuracy %s on the GPU, %s on the CPU, %s points apart (%s)",
        accuracyText(gpu.finalAccuracy()),
        accuracyText(cpu.finalAccuracy()),
        pointsText(points),
        verdict);
  }

  /**
   * LeNet with 1, 2 and 4 workers sharing the first GPU ({@code --workers-per-gpu K}), and the
   * all-reduce ring with 2 workers on it: images/s, against one worker, and the GPU memory held.
   */
  private void sharing() {
    md.append("Workers sharing one GPU (LeNet, SparkNet `--device gpu --workers-per-gpu K` with K")
        .append(" workers, tau ")
        .append(whole(r.value("lenet.gpu.share1.sparknet.tau")))
        .append("):\n\n| workers on the GPU | averaging | images/s | ÷ 1 worker | GPU memory |\n")
        .append("|---:|---|---:|---:|---|\n");
    double one = r.value("lenet.gpu.share1.sparknet");
    for (String k : new String[] {"share1", "share2", "share4", "ring2"}) {
      String key = "lenet.gpu." + k;
      double ips = r.value(key + ".sparknet");
      String workers = k.substring(k.length() - 1);
      String ratio = Double.isNaN(ips / one) ? "—" : String.format(Locale.ROOT, "%.2f", ips / one);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s |%n",
              workers,
              k.startsWith("ring") ? "allreduce" : "plain",
              number(ips),
              ratio,
              r.text(key + ".sparknet.gpumemory", "not measured")));
      say("LeNet %s worker(s) on one GPU, %s: %s, %s", workers, k, rate(ips), ratio);
    }
    md.append('\n');
  }

  private static String pointsText(double points) {
    return Double.isNaN(points) ? "?" : String.format(Locale.ROOT, "%.2f", points);
  }

  private static String accuracyText(double a) {
    return Double.isNaN(a) ? "not measured" : String.format(Locale.ROOT, "%.4f", a);
  }

  private static String whole(double v) {
    return Double.isNaN(v) ? "?" : String.valueOf((long) v);
  }

  private static String rate(double ips) {
    return Double.isNaN(ips) ? "not measured" : number(ips) + " img/s";
  }

  private static String number(double ips) {
    return Double.isNaN(ips) ? "not measured" : String.format(Locale.ROOT, "%,.0f", ips);
  }

  private static String percent(double share) {
    return Double.isNaN(share)
        ? "not measured"
        : String.format(Locale.ROOT, "%.1f %%", 100 * share);
  }
}
