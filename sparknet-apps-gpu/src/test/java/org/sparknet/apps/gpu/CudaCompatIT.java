package org.sparknet.apps.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.apps.gpu.FakeCuda.Layout;

/**
 * SparkNet's CUDA compatibility layer as the GPU jar carries it, on a machine without a GPU or any
 * CUDA library (CI's): the forwarding libraries export exactly what Caffe's real GPU libcaffe asks
 * of the libraries they stand in for, and the whole chain loads and binds libcaffe on machines laid
 * out both ways (CUDA 11.8 with cuDNN 8, where the machine's own libraries are used; CUDA 13 with
 * cuDNN 9 only, where the forwarding libraries and the shipped CUDA 11.8 runtime are), with
 * NVIDIA's libraries replaced by {@link FakeCuda}'s stand-ins.
 *
 * <p>Broken builds this catches: with cudnnAddTensor taken out of cudnn8.functions, the export
 * check found it missing from libcudnn.so.8, and the CUDA 13 chain's libcaffe failed to bind
 * ("undefined symbol: cudnnAddTensor, version libcudnn.so.8"); the cuBLAS forwarding library built
 * to forward to "libcublas.so.99" loaded, but a call through it returned its unbound stub's status
 * ("call cublasSgemm_v2 through libcublas.so.11: -2").
 */
class CudaCompatIT {
  private static final Path GPU_JAR = Path.of(System.getProperty("sparknet.gpu.jar"));
  private static final String NATIVES = "org/sparknet/caffe/cuda/linux-x86_64/";
  private static ElfSymbols libcaffe;

  @TempDir static Path tmp;

  @BeforeAll
  static void readLibcaffe() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("jar"));
    libcaffe =
        ElfSymbols.of(
            ElfSymbols.extract(
                GPU_JAR, "org/bytedeco/caffe/linux-x86_64-gpu/libcaffe.so.1.0.0", dir));
  }

  @Test
  void libcaffeNeedsTheFourCudaLibrariesTheLayerKnows() {
    Set<String> cuda = new java.util.TreeSet<>(libcaffe.neededNodes());
    cuda.removeIf(n -> !n.startsWith("libcu"));
    assertEquals(
        Set.of("libcublas.so.11", "libcudart.so.11.0", "libcudnn.so.8", "libcurand.so.10"), cuda);
  }

  @Test
  void theForwardingLibrariesExportExactlyWhatLibcaffeAsksOfThem() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("natives"));
    for (String node : List.of("libcublas.so.11", "libcudnn.so.8")) {
      ElfSymbols shim = ElfSymbols.of(ElfSymbols.extract(GPU_JAR, NATIVES + node, dir));
      assertEquals(node, shim.soname(), node + ": soname");
      Map<String, Set<String>> expected = new TreeMap<>();
      expected.put(node, libcaffe.undefined().get(node));
      assertEquals(expected, shim.exported(), node + ": functions by version node");
      Set<String> needed = new java.util.TreeSet<>(shim.neededNodes());
      needed.removeIf(n -> n.startsWith("GLIBC_2.2.5"));
      assertEquals(Set.of(), needed, node + " asks nothing of glibc newer than 2.2.5");
    }
  }

  @Test
  void theShippedRuntimeIsCuda118sAndDefinesWhatLibcaffeAsks() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("runtime"));
    ElfSymbols cudart =
        ElfSymbols.of(ElfSymbols.extract(GPU_JAR, NATIVES + "libcudart.so.11.0", dir));
    assertEquals("libcudart.so.11.0", cudart.soname());
    Set<String> asked = libcaffe.undefined().get("libcudart.so.11.0");
    Set<String> missing = new java.util.TreeSet<>(asked);
    missing.removeAll(cudart.exported().getOrDefault("libcudart.so.11.0", Set.of()));
    assertEquals(Set.of(), missing, "asked of the runtime and not defined");
  }

  @Test
  void onCuda13OnlyTheCompatChainLoadsAndBindsLibcaffe() throws Exception {
    Path fakes = FakeCuda.build(tmp.resolve("cuda13"), Layout.CUDA_13, libcaffe);
    String out = chain(fakes);
    assertTrue(out.contains("chain: cuBLAS 13.0 compat, cuDNN 9.14 compat\n"), out);
    assertCallsArrive(out);
    assertTrue(out.contains("runtime: ") && out.contains("sparknet-cuda-"), out);
    assertTrue(out.contains("libcaffe (GPU): every symbol bound"), out);
  }

  @Test
  void onCuda118TheMachinesOwnLibrariesAreUsedAndBindLibcaffe() throws Exception {
    Path fakes = FakeCuda.build(tmp.resolve("cuda118"), Layout.CUDA_11_8, libcaffe);
    String out = chain(fakes);
    assertTrue(out.contains("chain: cuBLAS 11.11, cuDNN 8.6\n"), out);
    assertCallsArrive(out);
    assertTrue(out.contains("runtime: " + fakes.resolve("libcudart.so.11.0")), out);
    assertTrue(out.contains("libcaffe (GPU): every symbol bound"), out);
  }

  private static void assertCallsArrive(String out) {
    for (String call :
        List.of(
            "cublasSgemm_v2 through libcublas.so.11",
            "cudnnConvolutionForward through libcudnn.so.8")) {
      assertTrue(out.contains("call " + call + ": " + FakeCuda.ANSWER + "\n"), out);
    }
  }

  /** {@code CompatChainMain} in a child JVM whose CUDA folder is {@code cuda}. */
  private static String chain(Path cuda) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(GPU_JAR + File.pathSeparator + Path.of("target", "test-classes").toAbsolutePath());
    cmd.add("-Dorg.bytedeco.javacpp.cachedir=" + tmp.resolve("javacpp-" + cuda.getFileName()));
    cmd.add("org.sparknet.caffe.internal.CompatChainMain");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("SPARKNET_CUDA_LIBS", cuda.toString());
    pb.environment().put("GLOG_minloglevel", "2");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("the chain did not load in 2 minutes: " + out);
    }
    assertEquals(0, p.exitValue(), out);
    return out;
  }
}
