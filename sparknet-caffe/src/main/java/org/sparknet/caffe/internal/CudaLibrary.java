package org.sparknet.caffe.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A CUDA library that Caffe's GPU libcaffe links (built with CUDA 11.8 and cuDNN 8), by the name it
 * links, and the newer major versions SparkNet can put behind that name with a forwarding library
 * of its own (see src/main/native/cuda/forward.c).
 *
 * @param what the library's name in messages ("cuBLAS")
 * @param stem the file name before ".so." ("libcublas")
 * @param linked the major version libcaffe links (11 for libcublas.so.11)
 * @param newer the majors that a forwarding library can stand in for, newest first (none: the
 *     linked name is kept by newer CUDA releases, as cuRAND's libcurand.so.10 is)
 * @param companions the file names, with {@code %d} for the major, of libraries loaded from the
 *     same folder before this one: its own dependencies (cuBLAS's cuBLASLt) or the parts it opens
 *     by name later (cuDNN's sub-libraries, a glob)
 * @param install what to install when it is missing
 */
record CudaLibrary(
    String what,
    String stem,
    int linked,
    List<Integer> newer,
    List<String> companions,
    String install) {
  static final CudaLibrary CUBLAS =
      new CudaLibrary(
          "cuBLAS",
          "libcublas",
          11,
          List.of(13, 12),
          List.of("libcublasLt.so.%d"),
          "CUDA 12 or 13's cuBLAS (pip install nvidia-cublas, or the CUDA toolkit)");
  static final CudaLibrary CURAND =
      new CudaLibrary(
          "cuRAND",
          "libcurand",
          10,
          List.of(),
          List.of(),
          "cuRAND of CUDA 11, 12 or 13, all libcurand.so.10 (pip install nvidia-curand)");
  static final CudaLibrary CUDNN =
      new CudaLibrary(
          "cuDNN",
          "libcudnn",
          8,
          List.of(9),
          List.of("libcudnn_*.so.%d"),
          "cuDNN 9 (pip install nvidia-cudnn-cu13 or nvidia-cudnn-cu12)");

  /** Every library that needs finding; CUDA 11.8's runtime is shipped in the GPU jar. */
  static final List<CudaLibrary> ALL = List.of(CUBLAS, CURAND, CUDNN);

  /** "libcublas.so.13". */
  String file(int major) {
    return stem + ".so." + major;
  }

  /** The majors searched, in order: the linked one, then the newer ones. */
  List<Integer> majors() {
    return java.util.stream.Stream.concat(java.util.stream.Stream.of(linked), newer.stream())
        .toList();
  }

  /** The major of a file of this library of a version SparkNet does not know, in {@code folder}. */
  Integer unknownMajor(Path folder) {
    Pattern p = Pattern.compile(Pattern.quote(stem) + "\\.so\\.(\\d+)");
    for (Path f : CudaSearchPath.glob(folder, stem + ".so.*")) {
      Matcher m = p.matcher(f.getFileName().toString());
      if (m.matches() && Files.exists(f) && !majors().contains(Integer.parseInt(m.group(1)))) {
        return Integer.parseInt(m.group(1));
      }
    }
    return null;
  }
}
