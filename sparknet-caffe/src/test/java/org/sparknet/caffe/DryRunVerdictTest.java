package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The dry run's verdict for a GPU allocation that failed in the child JVM: named with the net, its
 * batch size and the bytes the child predicted before stepping (no Caffe needed: stderr lines in).
 *
 * <p>Broken build this catches: the verdict without its out-of-memory case named no net ("Caffe
 * rejects this net definition: Check failed: error == cudaSuccess (2 vs. 0) out of memory ...").
 */
class DryRunVerdictTest {
  @Test
  void aGpuAllocationThatFailsInTheDryRunIsNamedWithTheNetsEstimate() {
    String oom =
        "F1125 02:40:00.000000 123 syncedmem.cpp:71] Check failed: error == cudaSuccess (2 vs. 0) "
            + " out of memory";
    String verdict =
        DryRun.verdict(
            134,
            List.of(
                "SPARKNET-DRY-RUN-GPU-MEMORY: CaffeNet\t256\t3500000000\tgpu:1",
                oom,
                "*** Check failure stack trace: ***"));
    assertTrue(
        verdict.startsWith(
            "GPU out of memory: net 'CaffeNet' at batch size 256 asks for about 3,500,000,000 bytes"
                + " (3.26 GiB) on gpu:1 and Caffe's allocation failed (Check failed: error =="
                + " cudaSuccess (2 vs. 0)  out of memory; found by a dry run in a child JVM)"),
        verdict);
  }

  /**
   * A CHECK in a layer's set-up names that layer, from net.cpp's INFO lines before it; one in a
   * step, after the net is built, names none. Broken build: without the layer, the message for a
   * Pooling layer of stride 0 was "Caffe rejects this net definition: Check failed: shape[i] >= 0
   * (-2147483647 vs. 0) (at blob.cpp:32; ...)", which names no layer of the net.
   */
  @Test
  void aCheckInALayersSetUpNamesTheLayer() {
    String check = "F1207 23:50:00.000000 123 blob.cpp:32] Check failed: shape[i] >= 0 (-1 vs. 0)";
    List<String> building =
        List.of(
            "I1207 23:50:00.000000 123 net.cpp:84] Creating Layer conv1",
            "I1207 23:50:00.000000 123 net.cpp:122] Setting up conv1",
            "I1207 23:50:00.000000 123 net.cpp:84] Creating Layer pool1",
            check);
    assertTrue(
        DryRun.verdict(134, building)
            .startsWith(
                "Caffe rejects this net definition, layer 'pool1': Check failed: shape[i] >= 0"),
        DryRun.verdict(134, building));
    List<String> stepping =
        List.of(
            "I1207 23:50:00.000000 123 net.cpp:84] Creating Layer pool1",
            "I1207 23:50:00.000000 123 net.cpp:283] Network initialization done.",
            check);
    assertTrue(
        DryRun.verdict(134, stepping).startsWith("Caffe rejects this net definition: Check failed"),
        DryRun.verdict(134, stepping));
  }
}
