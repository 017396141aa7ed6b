package org.sparknet.bench.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The {@code blas} section's pure parts: which OpenBLAS core types a CPU's flags allow, and how a
 * child's report becomes the "loaded" column. No BLAS is loaded here.
 */
class BlasSectionTest {
  /** The flags line of this machine's CPU (an Intel Xeon with AVX-512 BF16), trimmed. */
  private static final String XEON =
      "flags\t\t: fpu vme sse sse2 pni ssse3 fma sse4_1 sse4_2 popcnt avx avx2 avx512f avx512dq"
          + " avx512cd avx512bw avx512vl avx512_bf16 avx512_vnni amx_tile";

  @Test
  void coreTypesFollowTheInstructionSets() {
    // Linux calls SSE3 "pni": read literally, the list began at Core2 (checked). A CPU with AVX2
    // but no FMA must not be offered Haswell or Zen (their kernels use FMA: a crash at the first
    // gemm); with Haswell needing avx2 alone the second list ended in Haswell (checked).
    assertEquals(
        List.of(
            "Prescott",
            "Core2",
            "Nehalem",
            "Sandybridge",
            "Zen",
            "Haswell",
            "SkylakeX",
            "Cooperlake"),
        OpenBlasCores.runnable(OpenBlasCores.flags(List.of("processor\t: 0", XEON))));
    Set<String> avx2NoFma = Set.of("sse3", "ssse3", "sse4_1", "sse4_2", "popcnt", "avx", "avx2");
    assertEquals(
        List.of("Prescott", "Core2", "Nehalem", "Sandybridge"), OpenBlasCores.runnable(avx2NoFma));
    Set<String> skylakeX =
        Set.of("sse3", "avx", "avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq");
    assertTrue(!OpenBlasCores.runnable(skylakeX).contains("SkylakeX"), "avx512vl is missing here");
    assertEquals(Set.of(), OpenBlasCores.flags(List.of("processor\t: 0", "Features\t: neon")));
  }

  @Test
  void loadedColumnSaysWhatTheChildReported() {
    // Without OpenBLAS's "Core:" lines read, the first column lost "core Prescott" (checked): the
    // one sign that the default runs OpenBLAS's generic kernels on a CPU it does not know.
    List<String> out =
        List.of(
            "lenet 1500.0",
            "blas openblas-0.3.21-1.5.8-linux-x86_64.jar/libjniopenblas.so"
                + " openblas-0.3.21-1.5.8-linux-x86_64.jar/libopenblas.so.0",
            "symbols openblas_get_corename=found mkl_get_version_string=missing");
    assertEquals(
        "core Prescott; libopenblas.so.0 from openblas-0.3.21-1.5.8-linux-x86_64.jar;"
            + " openblas_get_corename=found mkl_get_version_string=missing",
        BlasSection.whatLoaded(out, List.of("", "Core: Prescott", "Core: Prescott")));
    List<String> mkl =
        List.of(
            "blas mkl-2025.2-1.5.12-linux-x86_64-redist.jar/libopenblas.so.0"
                + " mkl-2025.2-1.5.12-linux-x86_64-redist.jar/libmkl_rt.so.2",
            "symbols openblas_get_corename=missing mkl_get_version_string=found");
    assertEquals(
        "libmkl_rt mapped; libopenblas.so.0 from mkl-2025.2-1.5.12-linux-x86_64-redist.jar;"
            + " openblas_get_corename=missing mkl_get_version_string=found",
        BlasSection.whatLoaded(mkl, List.of()));
  }
}
