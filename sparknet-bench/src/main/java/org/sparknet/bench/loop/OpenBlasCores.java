package org.sparknet.bench.loop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The OpenBLAS x86-64 core types (the names {@code OPENBLAS_CORETYPE} takes) whose kernels this CPU
 * can run, from the instruction-set flags the kernel reports in /proc/cpuinfo. Forcing a core whose
 * instructions the CPU lacks would crash on the first gemm, so the {@code blas} section only offers
 * these.
 */
final class OpenBlasCores {
  /** A core type and the cpuinfo flags its kernels need. */
  private record Core(String name, Set<String> needs) {}

  /**
   * Roughly by instruction set, widest last (Zen, an AMD core, uses AVX2 and FMA as Haswell does);
   * SapphireRapids is left out: OpenBLAS 0.3.21 has no such core.
   */
  private static final List<Core> CORES =
      List.of(
          new Core("Prescott", Set.of("sse3")),
          new Core("Core2", Set.of("ssse3")),
          new Core("Nehalem", Set.of("ssse3", "sse4_1", "sse4_2", "popcnt")),
          new Core("Sandybridge", Set.of("avx")),
          new Core("Zen", Set.of("avx", "avx2", "fma")),
          new Core("Haswell", Set.of("avx", "avx2", "fma")),
          new Core(
              "SkylakeX",
              Set.of("avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl")),
          new Core(
              "Cooperlake",
              Set.of(
                  "avx2",
                  "fma",
                  "avx512f",
                  "avx512cd",
                  "avx512bw",
                  "avx512dq",
                  "avx512vl",
                  "avx512_bf16")));

  private OpenBlasCores() {}

  /** The core types whose needed flags are all in {@code flags}, in the order above. */
  static List<String> runnable(Set<String> flags) {
    List<String> out = new ArrayList<>();
    for (Core c : CORES) {
      if (flags.containsAll(c.needs())) {
        out.add(c.name());
      }
    }
    return out;
  }

  /**
   * The flags of the first processor in {@code cpuinfo} ("pni" is how Linux names SSE3), or an
   * empty set where the file has no flags line (not x86).
   */
  static Set<String> flags(List<String> cpuinfo) {
    for (String line : cpuinfo) {
      if (line.startsWith("flags")) {
        Set<String> flags = new HashSet<>();
        for (String f : line.substring(line.indexOf(':') + 1).trim().split("\\s+")) {
          flags.add(f.equals("pni") ? "sse3" : f);
        }
        return flags;
      }
    }
    return Set.of();
  }

  /** The runnable core types of this machine's CPU. */
  static List<String> ofThisMachine() {
    try {
      return runnable(flags(Files.readAllLines(Path.of("/proc/cpuinfo"))));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read /proc/cpuinfo", e);
    }
  }
}
