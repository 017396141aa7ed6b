package org.sparknet.bench.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.RoundMetrics.Timings;

/**
 * Section 11 from a GPU check's results folder, as the check leaves it: every figure with its ratio
 * and verdict, the CLI's rounds after the first only, and a folder whose steps did not run (the
 * section must still be written, saying so, since it runs last on a machine lent for minutes).
 */
class GpuCheckSectionTest {
  @TempDir Path dir;

  @Test
  void figuresRatiosAndVerdictsComeFromTheResults() throws IOException {
    Files.writeString(
        dir.resolve("results.txt"),
        String.join(
            "\n",
            "env.gpu 1 NVIDIA H100 80GB HBM3, 81559 MiB",
            "env.driver 580.95.05",
            "env.cuda 13.0",
            "devices.line gpu build true, 1 GPU(s) visible",
            "forward.caffe gpu:0 against cpu: max|GPU-CPU| = 1.2e-07 ok",
            "forward.verdict ok",
            "gpuit.summary 3 passed, 0 failed",
            "lenet.gpu.batch 64.0",
            "lenet.gpu.plain 40000.0",
            "lenet.gpu.caffenet 38400.0",
            "alexnet.gpu.batch 128.0",
            "alexnet.gpu.plain 2000.0",
            "alexnet.gpu.caffenet 1800.0",
            "alexnet.gpu.sparknet 1700.0",
            "alexnet.gpu.sparknet.noncompute 0.125",
            "alexnet.gpu.sparknet.tau 50.0",
            "alexnet.gpu.sparknet.rounds 2.0",
            "alexnet.cpu.batch 32.0",
            "alexnet.cpu.sparknet 170.0",
            "alexnet.cpu.sparknet.tau 2.0",
            "lenet.gpu.share1.sparknet 20000.0",
            "lenet.gpu.share1.sparknet.tau 50.0",
            "lenet.gpu.share1.sparknet.gpumemory 512 MiB (this JVM)",
            "lenet.gpu.share2.sparknet 30000.0",
            "lenet.gpu.share4.sparknet 36000.0",
            "lenet.gpu.ring2.sparknet 28000.0",
            ""));
    // The first round (JIT, net building) is slow and must not count: 3,200 images in 1 s.
    metrics("lenet-gpu", 1, 1000, 100, 100, 100);
    metrics("lenet-cpu16", 16, 3000, 800, 800);
    Files.writeString(dir.resolve("lenet-gpu.out"), "Final test: accuracy 0.8650  loss 0.38\n");
    Files.writeString(dir.resolve("lenet-cpu1.out"), "Final test: accuracy 0.8600  loss 0.38\n");

    String md = GpuCheckSection.markdown(GpuCheckResults.read(dir), "gpu-check run");

    assertTrue(md.contains("| `CaffeNet.train` | 38,400 | 0.960 | ≥ 0.95: met |"), md);
    // Workers sharing the GPU, against one worker; memory where nvidia-smi gave it.
    assertTrue(md.contains("`--device gpu --workers-per-gpu K` with K workers, tau 50"), md);
    assertTrue(md.contains("| 1 | plain | 20,000 | 1.00 | 512 MiB (this JVM) |"), md);
    assertTrue(md.contains("| 4 | plain | 36,000 | 1.80 | not measured |"), md);
    assertTrue(md.contains("| 2 | allreduce | 28,000 | 1.40 | not measured |"), md);
    // 3 rounds x 3,200 images in 0.3 s: 32,000 img/s, 0.8 of plain; 20 % outside the solver steps.
    assertTrue(
        md.contains(
            "a child process, rounds after the first | 32,000 | 0.800 | ≥ 0.9: **not met** |"),
        md);
    assertTrue(
        md.contains("LeNet 20.0 % at tau 50 (CLI metrics), AlexNet-sized 12.5 % at tau 50"), md);
    assertTrue(md.contains("SparkNet with 16 workers on the CPU"), md);
    // 2 rounds x 16 workers x 3,200 images in 1.6 s against 32,000 img/s on the GPU.
    assertTrue(md.contains("| LeNet | 32,000 | 64,000 | 0.5 |"), md);
    assertTrue(md.contains("| AlexNet-sized | 1,700 | 170 | 10.0 |"), md);
    assertTrue(md.contains("0.8650 on the GPU, 0.8600 on the CPU, 0.50 points apart"), md);
    assertTrue(md.contains("(within 1 point: met)"), md);
    assertTrue(
        md.contains("GPU: 1 NVIDIA H100 80GB HBM3, 81559 MiB; driver 580.95.05, CUDA 13.0"), md);
  }

  @Test
  void stepsThatDidNotRunAreNotMeasured() {
    String md = GpuCheckSection.markdown(GpuCheckResults.read(dir), "gpu-check run");
    assertTrue(md.contains("| `CaffeNet.train` | not measured | — | ≥ 0.95: not measured |"), md);
    assertTrue(md.contains("not measured on the GPU, not measured on the CPU, ? points apart"), md);
    assertTrue(md.contains("- verdict: not run"), md);
    assertTrue(md.contains("| 2 | plain | not measured | — | not measured |"), md);
  }

  @Test
  void theCliRunSkipsItsFirstRound() throws IOException {
    metrics("run", 1, 5000, 100);
    GpuCheckResults.CliRun run = GpuCheckResults.read(dir).cli("run");
    assertEquals(2, run.rounds().size());
    assertEquals(32_000, run.imagesPerSecond(), 1e-9);
    assertEquals(0.2, run.nonComputeShare(), 1e-12);
    assertEquals(1, run.workers());
  }

  /** NAME.jsonl: one round per wall time given, 3,200 images a worker, 80 % of it computing. */
  private void metrics(String name, int workers, long... wallMillis) throws IOException {
    List<String> lines = new ArrayList<>();
    List<String> devices = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      devices.add("gpu:0");
    }
    for (int r = 0; r < wallMillis.length; r++) {
      long wall = wallMillis[r];
      lines.add(
          RoundMetrics.builder()
              .round(r + 1)
              .iteration(50L * (r + 1))
              .steps(50)
              .tau(50)
              .examples(3200L * workers)
              .devices(devices)
              .timings(new Timings(wall * 4 / 5, wall / 10, wall / 10, 0, wall, 0))
              .timestampMillis(1_700_000_000_000L + r)
              .build()
              .toJson());
    }
    Files.write(dir.resolve(name + ".jsonl"), lines);
  }
}
