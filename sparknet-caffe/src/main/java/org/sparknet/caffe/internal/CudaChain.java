package org.sparknet.caffe.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import org.sparknet.caffe.internal.CudaLibraries.Found;

/**
 * Loads the libraries that {@link CudaLibraries} found, by path and dependencies first, so that
 * when JavaCPP loads libcaffe its CUDA dependencies are already in the process under the sonames it
 * asks for: the runtime, then cuBLAS (after cuBLASLt), cuRAND and cuDNN (after its sub-libraries),
 * then the forwarding libraries for the compat ones. A forwarding library binds its functions when
 * it loads, so each target is first checked to define every function libcaffe calls through it.
 *
 * @param libraries what was loaded
 * @param description the versions and the path each took, for the devices line ("cuBLAS 13.0
 *     compat, cuDNN 9.14 compat")
 * @param skipped companions that did not load (cuDNN opens its sub-libraries itself when it needs
 *     them; one that needs a library this machine lacks is left to it), each with the loader's
 *     reason
 */
record CudaChain(CudaLibraries libraries, String description, List<String> skipped) {
  /** The forwarding library for each library, and the list of the functions it forwards. */
  private static String forwarding(CudaLibrary lib) {
    return lib.file(lib.linked());
  }

  private static String functionList(CudaLibrary lib) {
    return lib.stem().substring(3) + lib.linked() + ".functions";
  }

  /**
   * Loads {@code libs}, with the forwarding libraries from {@code natives}.
   *
   * @throws IllegalArgumentException naming the library that failed and why
   */
  static CudaChain load(CudaLibraries libs, Path natives) {
    Loading loading = new Loading(libs.searched());
    loading.open(libs.cudart(), "CUDA 11.8's runtime");
    List<String> skipped = new ArrayList<>();
    for (Found f : libs.found()) {
      skipped.addAll(loading.openAll(f.companions()));
      loading.open(f.file(), f.library().what() + " " + f.major());
    }
    for (Found f : libs.found()) {
      if (f.compat()) {
        checkFunctions(f, natives.resolve(functionList(f.library())));
        loading.open(
            natives.resolve(forwarding(f.library())),
            "SparkNet's forwarding " + f.library().what());
      }
    }
    return new CudaChain(libs, describe(libs), List.copyOf(skipped));
  }

  /** "cuBLAS 13.0 compat, cuDNN 9.14 compat" (compat: through a forwarding library). */
  private static String describe(CudaLibraries libs) {
    List<String> parts = new ArrayList<>();
    for (CudaLibrary lib : List.of(CudaLibrary.CUBLAS, CudaLibrary.CUDNN)) {
      Found f = libs.get(lib);
      String getter = lib.stem().substring(3) + "GetProperty";
      int major = CudaNatives.property(f.file().toString(), getter, 0);
      int minor = CudaNatives.property(f.file().toString(), getter, 1);
      if (major >= 0 && major != f.major()) {
        throw new IllegalArgumentException(
            f.file() + " says it is " + lib.what() + " " + major + ", not " + f.major());
      }
      parts.add(
          lib.what()
              + " "
              + f.major()
              + (minor >= 0 ? "." + minor : "")
              + (f.compat() ? " compat" : ""));
    }
    return String.join(", ", parts);
  }

  /**
   * Opening libraries by path. A library's own dependencies are found by the dynamic loader, which
   * does not know the folders SparkNet searched (cuDNN's runtime-compiled engines need NVRTC, which
   * Python's wheels keep in CUDA's folder, not cuDNN's): a dependency it cannot find is looked for
   * in those folders, opened, and the library opened again.
   */
  private record Loading(List<Path> folders) {
    void open(Path file, String what) {
      String error = openResolving(file, 0);
      if (error != null) {
        throw new IllegalArgumentException("Cannot load " + what + " (" + file + "): " + error);
      }
    }

    /** Opens each file, retrying those whose dependencies come later in the list; the failures. */
    List<String> openAll(List<Path> files) {
      List<Path> pending = new ArrayList<>(files);
      List<String> errors = new ArrayList<>();
      boolean progress = true;
      while (!pending.isEmpty() && progress) {
        progress = false;
        errors.clear();
        for (Path p : new ArrayList<>(pending)) {
          String error = openResolving(p, 0);
          if (error == null) {
            pending.remove(p);
            progress = true;
          } else {
            errors.add(error);
          }
        }
      }
      return errors;
    }

    private String openResolving(Path file, int depth) {
      String error = CudaNatives.open(file.toString());
      Matcher m = NativeLoadFailure.MISSING.matcher(error == null ? "" : error);
      if (m.find() && depth < 4) {
        for (Path folder : folders) {
          Path dependency = folder.resolve(m.group(1));
          if (Files.exists(dependency) && openResolving(dependency, depth + 1) == null) {
            return openResolving(file, depth + 1);
          }
        }
      }
      return error;
    }
  }

  private static void checkFunctions(Found f, Path list) {
    List<String> functions;
    try {
      functions = Files.readAllLines(list).stream().filter(l -> !l.isBlank()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + list, e);
    }
    for (String fn : functions) {
      if (!CudaNatives.defines(f.file().toString(), fn)) {
        throw new IllegalArgumentException(
            f.library().what()
                + " "
                + f.major()
                + " ("
                + f.file()
                + ") lacks "
                + fn
                + ", which Caffe calls: SparkNet cannot forward "
                + f.library().file(f.library().linked())
                + " to it; install "
                + f.library().install());
      }
    }
  }
}
