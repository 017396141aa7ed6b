package org.sparknet.bench.loop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.bytedeco.javacpp.Loader;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.Example;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.apps.data.IdxDataset;
import org.sparknet.bench.loop.BenchNets.BenchNet;

/**
 * One BLAS variant of the {@code blas} section, in a JVM of its own ({@link BlasSection} starts it
 * with the variant's class path, system properties and environment): a BLAS library is loaded once
 * per process, so each variant needs a fresh one. It trains LeNet (batch 64) and CIFAR-10 quick
 * (batch 100) with the plain JavaCPP solver loop ({@link PlainSolverLoop}) and prints {@code lenet
 * IMAGES/S}, {@code cifar IMAGES/S}, {@code sgemm GFLOP/S} (one 512³ product through the OpenBLAS
 * presets' cblas_sgemm, which goes to the same library), then {@code blas LIBRARIES}: the BLAS
 * libraries this process has mapped (from /proc/self/maps, each as its JavaCPP cache folder and
 * file), and {@code symbols ...}: which of OpenBLAS's and MKL's own entry points the process can
 * find, so that the table shows which library Caffe's gemm calls went to, not which one was asked
 * for.
 *
 * <p>Arguments: {@code quick} or {@code full}, then the Fashion-MNIST directory (or {@code -}).
 */
public final class BlasChild {
  /** Symbols that only OpenBLAS or only MKL exports. */
  private static final List<String> MARKERS =
      List.of("openblas_get_corename", "mkl_get_version_string");

  /** M = N = K of the square sgemm whose GFLOP/s the child prints ({@code sgemm GFLOP/S}). */
  static final int SGEMM_SIDE = 512;

  private BlasChild() {}

  public static void main(String[] args) throws IOException {
    boolean quick = args[0].equals("quick");
    FashionMnist data = FashionMnist.locate(args[1].equals("-") ? null : Path.of(args[1]));
    IdxDataset train = data.train();
    List<Example> images = train.read(0, quick ? 3000 : 10000, BenchRun.SCALE);
    BenchNet lenet = BenchNets.lenet(BenchRun.SEED, BenchRun.LR);
    BenchNet cifar = BenchNets.cifarQuick(BenchRun.SEED);
    double l = imagesPerSecond(lenet, images, quick ? 10 : 30, lenetSteps(quick));
    System.out.printf(Locale.ROOT, "lenet %.1f%n", l);
    System.out.flush();
    double c = imagesPerSecond(cifar, images, quick ? 3 : 5, cifarSteps(quick));
    System.out.printf(Locale.ROOT, "cifar %.1f%n", c);
    // The kernel's own speed, apart from Caffe's im2col and the rest of the step.
    double gflops =
        Sgemm.gflops(
            GemmShapes.NO_TRANS,
            GemmShapes.NO_TRANS,
            SGEMM_SIDE,
            SGEMM_SIDE,
            SGEMM_SIDE,
            300_000_000L);
    System.out.printf(Locale.ROOT, "sgemm %.1f%n", gflops);
    System.out.println("blas " + String.join(" ", mappedBlas()));
    List<String> symbols = new ArrayList<>();
    for (String s : MARKERS) {
      symbols.add(s + "=" + (Loader.addressof(s) != null ? "found" : "missing"));
    }
    System.out.println("symbols " + String.join(" ", symbols));
  }

  /** Measured LeNet steps (batch 64). */
  static int lenetSteps(boolean quick) {
    return quick ? 60 : 200;
  }

  /** Measured CIFAR-10 quick steps (batch 100). */
  static int cifarSteps(boolean quick) {
    return quick ? 10 : 30;
  }

  /** Images/s of {@code steps} plain solver steps on {@code net}, after {@code warmup} steps. */
  private static double imagesPerSecond(BenchNet net, List<Example> images, int warmup, int steps) {
    List<Example> in = images;
    if (net.channels() != 1) {
      in = new ArrayList<>(images.size());
      for (Example e : images) {
        in.add(BenchNets.upscale(e, net.channels(), net.side()));
      }
    }
    DataShard shard = BenchRun.pack(0, in);
    try (PlainSolverLoop loop = new PlainSolverLoop(net.definition(), shard, BenchRun.SEED)) {
      loop.run(warmup);
      return (double) steps * loop.batch() / loop.run(steps);
    }
  }

  /**
   * The BLAS shared libraries this process has mapped, as {@code JARFOLDER/file} (JavaCPP names
   * each cache folder after the jar the library came from) or the full path outside such a folder.
   */
  static List<String> mappedBlas() throws IOException {
    Set<String> libs = new LinkedHashSet<>();
    for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
      int slash = line.indexOf('/');
      if (slash < 0) {
        continue;
      }
      String path = line.substring(slash);
      String file = path.substring(path.lastIndexOf('/') + 1);
      if (file.contains("blas") || file.contains("mkl") || file.contains("iomp")) {
        String jar = null;
        for (String part : path.split("/")) {
          if (part.endsWith(".jar")) {
            jar = part;
          }
        }
        libs.add(jar == null ? path : jar + "/" + file);
      }
    }
    return new ArrayList<>(libs);
  }
}
