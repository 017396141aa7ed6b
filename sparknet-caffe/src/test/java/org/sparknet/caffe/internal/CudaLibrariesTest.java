package org.sparknet.caffe.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.caffe.internal.CudaLibraries.Found;

/**
 * Which CUDA libraries the GPU build would load, on machines laid out in a temporary folder as
 * users' machines are: CUDA 11.8 with cuDNN 8 (the path libcaffe was built for), CUDA 13 and cuDNN
 * 9 from Python's wheels only (the compat path), both, neither, and broken installs. The files are
 * empty: this is the choice, {@code CudaCompatIT} in sparknet-apps-gpu loads real ones.
 *
 * <p>Broken builds this catches: with the two-pass search made one pass (each folder's newest
 * file), the machine with both CUDA 11.8 and 13 took the compat path; with Python's folders always
 * asked, the CUDA 11.8 machine started a Python; without the companion check, a cuBLAS 13 without
 * its cuBLASLt was accepted.
 */
class CudaLibrariesTest {
  @TempDir Path root;

  private final AtomicInteger pythonAsked = new AtomicInteger();

  private CudaSearchPath machine(Map<String, String> env, String setting) {
    Path site = root.resolve("opt/venv/lib/python3.12/site-packages");
    return new CudaSearchPath(
        root,
        env,
        setting,
        () -> {
          pythonAsked.incrementAndGet();
          return List.of(site);
        });
  }

  private Path files(String folder, String... names) throws IOException {
    Path dir = Files.createDirectories(root.resolve(folder));
    for (String n : names) {
      Files.createFile(dir.resolve(n));
    }
    return dir;
  }

  private void cuda118() throws IOException {
    files(
        "usr/local/cuda-11.8/lib64",
        "libcudart.so.11.0",
        "libcublas.so.11",
        "libcublasLt.so.11",
        "libcurand.so.10");
    files("usr/lib/x86_64-linux-gnu", "libcudnn.so.8", "libcudnn_ops_infer.so.8");
  }

  private void cuda13Wheels() throws IOException {
    String site = "opt/venv/lib/python3.12/site-packages/nvidia/";
    files(site + "cu13/lib", "libcublas.so.13", "libcublasLt.so.13", "libcurand.so.10");
    files(site + "cudnn/lib", "libcudnn.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9");
  }

  private CudaLibraries find(CudaSearchPath path) {
    return CudaLibraries.find(path, root.resolve("shipped/libcudart.so.11.0"));
  }

  @Test
  void cuda118AndCudnn8AreUsedAsTheyAreWithoutAskingPython() throws IOException {
    cuda118();
    CudaLibraries libs = find(machine(Map.of(), null));
    for (Found f : libs.found()) {
      assertFalse(f.compat(), f.toString());
    }
    assertEquals(root.resolve("usr/local/cuda-11.8/lib64/libcudart.so.11.0"), libs.cudart());
    assertFalse(libs.runtimeShipped());
    assertEquals(
        List.of(root.resolve("usr/local/cuda-11.8/lib64/libcublasLt.so.11")),
        libs.get(CudaLibrary.CUBLAS).companions());
    assertEquals(
        List.of(root.resolve("usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.8")),
        libs.get(CudaLibrary.CUDNN).companions());
    assertEquals(0, pythonAsked.get(), "Python is asked only when a library is missing");
  }

  @Test
  void cuda13AndCudnn9FromPythonWheelsTakeTheCompatPathWithTheShippedRuntime() throws IOException {
    cuda13Wheels();
    CudaLibraries libs = find(machine(Map.of(), null));
    Path cu13 = root.resolve("opt/venv/lib/python3.12/site-packages/nvidia/cu13/lib");
    Found cublas = libs.get(CudaLibrary.CUBLAS);
    assertEquals(cu13.resolve("libcublas.so.13"), cublas.file());
    assertTrue(cublas.compat());
    assertEquals(List.of(cu13.resolve("libcublasLt.so.13")), cublas.companions());
    assertFalse(libs.get(CudaLibrary.CURAND).compat(), "cuRAND 13 keeps libcurand.so.10");
    Found cudnn = libs.get(CudaLibrary.CUDNN);
    assertEquals(9, cudnn.major());
    assertTrue(cudnn.compat());
    assertEquals(2, cudnn.companions().size(), cudnn.companions().toString());
    assertEquals(root.resolve("shipped/libcudart.so.11.0"), libs.cudart());
    assertTrue(libs.runtimeShipped());
    assertEquals(1, pythonAsked.get());
  }

  @Test
  void cuda118WinsOverANewerCudaOnTheSameMachine() throws IOException {
    files("usr/local/cuda-13.0/lib64", "libcublas.so.13", "libcublasLt.so.13");
    cuda118();
    CudaLibraries libs = find(machine(Map.of(), null));
    assertFalse(libs.get(CudaLibrary.CUBLAS).compat());
    assertEquals(
        root.resolve("usr/local/cuda-11.8/lib64/libcublas.so.11"),
        libs.get(CudaLibrary.CUBLAS).file());
  }

  @Test
  void theSettingAndLdLibraryPathComeFirstInTheirOrder() throws IOException {
    cuda13Wheels();
    Path mine = files("home/me/cuda", "libcublas.so.12", "libcublasLt.so.12");
    Path ld = files("opt/ld", "libcublas.so.13", "libcublasLt.so.13");
    CudaSearchPath path =
        machine(Map.of("LD_LIBRARY_PATH", "/opt/ld", "SPARKNET_CUDA_LIBS", "/home/me/cuda"), null);
    assertEquals(List.of(mine, ld), path.folders().subList(0, 2));
    // cuBLAS 13 comes before 12 in the search of newer versions.
    assertEquals(ld.resolve("libcublas.so.13"), find(path).get(CudaLibrary.CUBLAS).file());
    CudaSearchPath property = machine(Map.of("LD_LIBRARY_PATH", "/opt/ld"), "/home/me/cuda");
    assertEquals(mine, property.folders().get(0));
  }

  @Test
  void ldSoConfAndItsIncludesAreSearched() throws IOException {
    Path etc = Files.createDirectories(root.resolve("etc/ld.so.conf.d"));
    Files.writeString(root.resolve("etc/ld.so.conf"), "include /etc/ld.so.conf.d/*.conf\n");
    Files.writeString(etc.resolve("cuda.conf"), "# CUDA\n/usr/local/nvidia/lib64\n");
    Path nvidia = files("usr/local/nvidia/lib64", "libcublas.so.12", "libcublasLt.so.12");
    assertTrue(machine(Map.of(), null).folders().contains(nvidia));
  }

  @Test
  void aMissingLibraryIsNamedWithEveryFolderLookedIn() throws IOException {
    files("usr/lib/x86_64-linux-gnu", "libcurand.so.10", "libcudnn.so.9");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> find(machine(Map.of(), null)));
    assertTrue(
        e.getMessage()
            .startsWith(
                "cuBLAS not found: looked for libcublas.so.11, libcublas.so.13, libcublas.so.12 in "),
        e.getMessage());
    assertTrue(e.getMessage().contains(root.resolve("usr/lib/x86_64-linux-gnu").toString()));
    assertTrue(e.getMessage().contains("SPARKNET_CUDA_LIBS"), e.getMessage());
  }

  @Test
  void aCudnnMajorVersionSparkNetDoesNotKnowIsNamed() throws IOException {
    cuda13Wheels();
    Path cudnn = root.resolve("opt/venv/lib/python3.12/site-packages/nvidia/cudnn/lib");
    Files.delete(cudnn.resolve("libcudnn.so.9"));
    Files.createFile(cudnn.resolve("libcudnn.so.10"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> find(machine(Map.of(), null)));
    assertTrue(
        e.getMessage()
            .startsWith("cuDNN 10 (" + cudnn.resolve("libcudnn.so.10") + ") is a version"),
        e.getMessage());
    assertTrue(e.getMessage().contains("forwards it to libcudnn.so.9"), e.getMessage());
  }

  @Test
  void cublasWithoutItsCublasLtIsAnError() throws IOException {
    cuda13Wheels();
    Path cu13 = root.resolve("opt/venv/lib/python3.12/site-packages/nvidia/cu13/lib");
    Files.delete(cu13.resolve("libcublasLt.so.13"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> find(machine(Map.of(), null)));
    assertEquals(
        "cuBLAS at "
            + cu13.resolve("libcublas.so.13")
            + " needs libcublasLt.so.13 beside it, which is not there: install the whole of"
            + " cuBLAS 13 in that folder",
        e.getMessage());
  }

  /**
   * /usr/local/cuda, the installer's link to /usr/local/cuda-13.0, is the same folder: searched and
   * named once. Broken build this catches: without the real-path check both names were listed.
   */
  @Test
  void aFolderReachedByALinkIsSearchedOnce() throws IOException {
    Path real = files("usr/local/cuda-13.0/lib64", "libcublas.so.13", "libcublasLt.so.13");
    Files.createSymbolicLink(root.resolve("usr/local/cuda"), root.resolve("usr/local/cuda-13.0"));
    List<Path> folders = machine(Map.of(), null).folders();
    assertEquals(
        1,
        folders.stream()
            .filter(f -> f.endsWith("lib64") && f.toString().contains("usr/local/cuda"))
            .count(),
        folders.toString());
    assertTrue(folders.contains(real) || folders.contains(root.resolve("usr/local/cuda/lib64")));
  }

  @Test
  void cudaFoldersAreSearchedNewestVersionFirst() throws IOException {
    Path old = files("usr/local/cuda-12.8/lib64");
    Path newer = files("usr/local/cuda-12.10/lib64");
    List<Path> folders = machine(Map.of(), null).folders();
    assertTrue(folders.indexOf(newer) < folders.indexOf(old), folders.toString());
  }
}
