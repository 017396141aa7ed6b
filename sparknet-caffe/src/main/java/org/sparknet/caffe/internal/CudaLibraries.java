package org.sparknet.caffe.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The CUDA libraries Caffe's GPU natives will use on this machine, found on {@link CudaSearchPath}:
 * for each of cuBLAS, cuRAND and cuDNN the version libcaffe links (CUDA 11, cuDNN 8) where present,
 * "as today", else a newer major version that SparkNet's forwarding library stands in for (the
 * compat path); CUDA 11.8's runtime is the machine's where present, else the one shipped in the GPU
 * jar. Each library is later loaded by path, dependencies first (the chain that uses this), so that
 * libcaffe's own dependencies are already loaded, by soname, when JavaCPP loads it.
 *
 * @param cudart CUDA 11.8's runtime, the machine's or the shipped one
 * @param runtimeShipped whether {@code cudart} is the one shipped in the GPU jar
 * @param found cuBLAS, cuRAND and cuDNN, in that order
 * @param searched the folders searched, in order
 */
record CudaLibraries(Path cudart, boolean runtimeShipped, List<Found> found, List<Path> searched) {
  static final String CUDART = "libcudart.so.11.0";

  /**
   * A library found.
   *
   * @param file the library itself
   * @param major its major version: the linked one, or a newer one behind a forwarding library
   * @param companions the libraries of its folder to load before it
   */
  record Found(CudaLibrary library, Path file, int major, List<Path> companions) {
    /** Whether a forwarding library stands in for the version libcaffe links. */
    boolean compat() {
      return major != library.linked();
    }
  }

  /**
   * Finds the libraries; Python's folders are searched only when the others lack one.
   *
   * @param shippedCudart CUDA 11.8's runtime from the GPU jar
   * @throws IllegalArgumentException naming the library that is missing and where it was looked for
   */
  static CudaLibraries find(CudaSearchPath path, Path shippedCudart) {
    List<Path> folders = new ArrayList<>(path.folders());
    Map<CudaLibrary, Found> found = search(folders);
    if (found.size() < CudaLibrary.ALL.size()) {
      LinkedHashSet<Path> more = new LinkedHashSet<>(folders);
      more.addAll(path.pythonFolders());
      folders = new ArrayList<>(more);
      found = search(folders);
    }
    for (CudaLibrary lib : CudaLibrary.ALL) {
      if (!found.containsKey(lib)) {
        throw new IllegalArgumentException(missing(lib, folders));
      }
    }
    Path cudart = first(folders, CUDART);
    return new CudaLibraries(
        cudart != null ? cudart : shippedCudart,
        cudart == null,
        List.copyOf(found.values()),
        List.copyOf(folders));
  }

  Found get(CudaLibrary library) {
    return found.stream().filter(f -> f.library().equals(library)).findFirst().orElseThrow();
  }

  /**
   * Each library in the first folder that has it, the linked version first (in any folder), then
   * the newer ones; a library whose required companion is not beside it is an error.
   */
  private static Map<CudaLibrary, Found> search(List<Path> folders) {
    Map<CudaLibrary, Found> out = new LinkedHashMap<>();
    for (CudaLibrary lib : CudaLibrary.ALL) {
      search:
      for (int major : lib.majors()) {
        for (Path folder : folders) {
          Path file = folder.resolve(lib.file(major));
          if (Files.exists(file)) {
            out.put(lib, new Found(lib, file, major, companions(lib, folder, major, file)));
            break search;
          }
        }
      }
    }
    return out;
  }

  private static List<Path> companions(CudaLibrary lib, Path folder, int major, Path file) {
    List<Path> out = new ArrayList<>();
    for (String pattern : lib.companions()) {
      String name = String.format(pattern, major);
      if (name.contains("*")) {
        out.addAll(CudaSearchPath.glob(folder, name));
      } else if (Files.exists(folder.resolve(name))) {
        out.add(folder.resolve(name));
      } else {
        throw new IllegalArgumentException(
            lib.what()
                + " at "
                + file
                + " needs "
                + name
                + " beside it, which is not there: install the whole of "
                + lib.what()
                + " "
                + major
                + " in that folder");
      }
    }
    return out;
  }

  private static Path first(List<Path> folders, String name) {
    for (Path folder : folders) {
      if (Files.exists(folder.resolve(name))) {
        return folder.resolve(name);
      }
    }
    return null;
  }

  private static String missing(CudaLibrary lib, List<Path> folders) {
    for (Path folder : folders) {
      Integer unknown = lib.unknownMajor(folder);
      if (unknown != null) {
        return lib.what()
            + " "
            + unknown
            + " ("
            + folder.resolve(lib.file(unknown))
            + ") is a version SparkNet does not know: Caffe's GPU natives link "
            + lib.file(lib.linked())
            + (lib.newer().isEmpty()
                ? ""
                : ", and SparkNet forwards it to "
                    + lib.newer().stream().map(lib::file).collect(Collectors.joining(" or ")))
            + "; install "
            + lib.install();
      }
    }
    return lib.what()
        + " not found: looked for "
        + lib.majors().stream().map(lib::file).collect(Collectors.joining(", "))
        + " in "
        + (folders.isEmpty()
            ? "no folder"
            : folders.stream().map(Path::toString).collect(Collectors.joining(", ")))
        + " (SPARKNET_CUDA_LIBS, LD_LIBRARY_PATH, /usr/local/cuda*, ld.so.conf, the system's"
        + " folders, Python's nvidia packages); install "
        + lib.install()
        + ", or name its folder in "
        + CudaSearchPath.SETTING_VARIABLE;
  }
}
