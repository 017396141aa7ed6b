package org.sparknet.bench.loop;

import java.io.File;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The BLAS libraries the {@code blas} section puts behind the same Caffe presets
 * (org.bytedeco:caffe:1.0-1.5.8, whose libcaffe links libopenblas.so.0): OpenBLAS 0.3.21 as the
 * build ships it, the same with each core type this CPU can run forced, MKL through the OpenBLAS
 * presets' {@code org.bytedeco.openblas.load} switch, and a newer OpenBLAS's jars in place of
 * 0.3.21's. MKL and the newer OpenBLAS are not dependencies of the build: they are copied from the
 * Maven repository into sparknet-bench/target/blas/jars when the section runs (with {@code
 * MAVEN_ARGS}, so {@code -o} keeps it offline), and a variant whose jars cannot be had is reported
 * as not available, with Maven's reason.
 */
final class BlasVariants {
  static final String NEW_OPENBLAS = "0.3.31-1.5.13";
  static final String MKL = "2025.2-1.5.12";
  private static final String OLD_OPENBLAS = "openblas-0.3.21-1.5.8";
  static final Path DIR = Path.of("sparknet-bench/target/blas");

  /**
   * One way to start the child.
   *
   * @param key a short name for file names
   * @param name what the table calls it
   * @param jvmOptions system properties for the child
   * @param classPath the child's class path
   * @param env environment for the child (an empty value unsets the variable)
   * @param unavailable why it cannot run, or null
   */
  record Variant(
      String key,
      String name,
      List<String> jvmOptions,
      String classPath,
      Map<String, String> env,
      String unavailable) {
    boolean isDefault() {
      return key.equals("default");
    }
  }

  private BlasVariants() {}

  /** Every variant, today's default first; {@code quick} forces only the newest core types. */
  static List<Variant> all(boolean quick) {
    String cp = System.getProperty("java.class.path");
    List<Variant> out = new ArrayList<>();
    // Unset: the parent may carry an OPENBLAS_CORETYPE of its own.
    out.add(
        openBlas(
            "default", "OpenBLAS 0.3.21 (today's default), core auto-detected", cp, List.of(), ""));
    List<String> cores = OpenBlasCores.ofThisMachine();
    if (quick && cores.size() > 3) {
      cores = cores.subList(cores.size() - 3, cores.size());
    }
    for (String core : cores) {
      out.add(
          openBlas(
              "core-" + core, "OpenBLAS 0.3.21, OPENBLAS_CORETYPE=" + core, cp, List.of(), core));
    }
    out.add(mkl(cp));
    out.add(newOpenBlas(cp));
    return out;
  }

  private static Variant openBlas(
      String key, String name, String cp, List<String> options, String coreType) {
    Map<String, String> env =
        Map.of(
            "OPENBLAS_CORETYPE", coreType,
            "OPENBLAS_NUM_THREADS", "1",
            "MKL_NUM_THREADS", "1",
            // OpenBLAS then prints "Core: NAME" on standard error: the core it really picked.
            "OPENBLAS_VERBOSE", "2",
            "GLOG_minloglevel", "2");
    return new Variant(key, name, options, cp, env, null);
  }

  private static Variant mkl(String cp) {
    String name =
        "MKL "
            + MKL
            + " (org.bytedeco:mkl linux-x86_64-redist jar on the class path,"
            + " `-Dorg.bytedeco.openblas.load=mkl_rt`)";
    try {
      Path redist = fetch("org.bytedeco:mkl:" + MKL + ":jar:linux-x86_64-redist");
      List<String> options = List.of("-Dorg.bytedeco.openblas.load=mkl_rt", cacheDir("mkl"));
      return openBlas("mkl", name, cp + File.pathSeparator + redist.toAbsolutePath(), options, "");
    } catch (IllegalStateException e) {
      return new Variant("mkl", name, List.of(), cp, Map.of(), e.getMessage());
    }
  }

  private static Variant newOpenBlas(String cp) {
    String name =
        "OpenBLAS "
            + NEW_OPENBLAS.substring(0, NEW_OPENBLAS.indexOf('-'))
            + " (openblas "
            + NEW_OPENBLAS
            + " jars in place of 0.3.21-1.5.8's), core auto-detected";
    try {
      Path java = fetch("org.bytedeco:openblas:" + NEW_OPENBLAS);
      Path natives = fetch("org.bytedeco:openblas:" + NEW_OPENBLAS + ":jar:linux-x86_64");
      List<String> entries = new ArrayList<>(Arrays.asList(cp.split(File.pathSeparator)));
      int swapped = 0;
      for (int i = 0; i < entries.size(); i++) {
        String file = Path.of(entries.get(i)).getFileName().toString();
        if (file.equals(OLD_OPENBLAS + ".jar")) {
          entries.set(i, java.toAbsolutePath().toString());
          swapped++;
        } else if (file.equals(OLD_OPENBLAS + "-linux-x86_64.jar")) {
          entries.set(i, natives.toAbsolutePath().toString());
          swapped++;
        }
      }
      if (swapped != 2) {
        throw new IllegalStateException(
            "the class path has " + swapped + " of the 2 " + OLD_OPENBLAS + " jars to replace");
      }
      return openBlas(
          "openblas-new",
          name,
          String.join(File.pathSeparator, entries),
          List.of(cacheDir("openblas-new")),
          "");
    } catch (IllegalStateException e) {
      return new Variant("openblas-new", name, List.of(), cp, Map.of(), e.getMessage());
    }
  }

  /**
   * A JavaCPP cache of the variant's own: JavaCPP links libopenblas.so.0 next to libjnicaffe in the
   * cache, and in the shared one (~/.javacpp/cache) that link would point other processes at MKL.
   */
  private static String cacheDir(String key) {
    return "-Dorg.bytedeco.javacpp.cachedir=" + DIR.resolve("cache-" + key).toAbsolutePath();
  }

  /** The jar of Maven coordinates {@code coords} under DIR/jars, copied there if missing. */
  static Path fetch(String coords) {
    String[] c = coords.split(":");
    String file = c[1] + "-" + c[2] + (c.length > 4 ? "-" + c[4] : "") + ".jar";
    Path jars = DIR.resolve("jars");
    Path jar = jars.resolve(file);
    if (Files.isRegularFile(jar)) {
      return jar;
    }
    List<String> cmd =
        Processes.maven(
            "-N",
            "dependency:copy",
            "-Dartifact=" + coords,
            "-DoutputDirectory=" + jars.toAbsolutePath());
    BenchRun.log("blas: fetching %s (%s)", coords, String.join(" ", cmd));
    String error = mavenError(cmd);
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "not available: `mvn dependency:copy -Dartifact=" + coords + "` failed: " + error);
    }
    return jar;
  }

  /** Runs Maven; returns its first error line (or its exit status) for the report. */
  private static String mavenError(List<String> cmd) {
    String[] first = {null};
    int exit;
    try {
      exit =
          Processes.run(
              new ProcessBuilder(cmd).redirectErrorStream(true),
              "Maven",
              line -> {
                if (first[0] == null && line.contains("[ERROR]")) {
                  first[0] =
                      line.replaceAll("\u001b\\[[0-9;]*m", "")
                          .replace("[ERROR] ", "")
                          .replaceFirst("^Failed to execute goal .* on project [^:]+: ", "")
                          .replace(" -> [Help 1]", "")
                          .trim();
                }
              });
    } catch (UncheckedIOException e) {
      return "cannot run " + cmd.get(0) + ": " + e.getCause().getMessage();
    }
    return first[0] != null ? first[0] : "exit status " + exit;
  }
}
