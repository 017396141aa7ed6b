package org.sparknet.caffe.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The classes of a training step read blob values back to the host only through {@link HostReads},
 * so that {@code HostSyncsIT}'s count sees every read a step makes (on a GPU, each is a wait for
 * the device). A direct Caffe read in them (a blob's data or diff on the host side, its sums, a
 * value at an index, Caffe's CPU reductions) fails here. Mutation: with {@code net.blobs().get(0)
 * .asum_data()} added to CheckedStep.run, this test failed naming "CheckedStep.java:122:
 * asum_data(".
 */
class HostReadsGuardTest {
  private static final Path MAIN = Path.of("src/main/java/org/sparknet/caffe");
  private static final List<Path> STEP =
      List.of(
          MAIN.resolve("CaffeNet.java"),
          MAIN.resolve("internal/CheckedStep.java"),
          MAIN.resolve("internal/Divergence.java"),
          MAIN.resolve("internal/LossTerms.java"),
          MAIN.resolve("internal/StepProbe.java"));
  private static final Pattern READ =
      Pattern.compile(
          "\\b(?:mutable_)?cpu_(?:data|diff)\\(|\\b(?:asum|sumsq)_(?:data|diff)\\("
              + "|\\b(?:data|diff)_at\\(|\\bcaffe_(?:cpu|gpu)_(?:asum|dot|strided_dot)");

  @Test
  void aStepReadsBlobsOnlyThroughHostReads() throws IOException {
    List<String> found = new ArrayList<>();
    for (Path file : STEP) {
      List<String> lines = Files.readAllLines(file);
      for (int i = 0; i < lines.size(); i++) {
        String code = lines.get(i).replaceAll("//.*|^\\s*\\*.*|/\\*.*?\\*/", "");
        Matcher m = READ.matcher(code);
        while (m.find()) {
          found.add(file.getFileName() + ":" + (i + 1) + ": " + m.group());
        }
      }
    }
    assertEquals(List.of(), found, "blob reads outside HostReads in a step's classes");
  }

  @Test
  void thePatternSeesEachKindOfRead() {
    for (String read :
        List.of(
            "b.cpu_data()",
            "b.mutable_cpu_data()",
            "b.cpu_diff()",
            "b.asum_data()",
            "b.sumsq_diff()",
            "b.data_at(0, 0, 0, 0)",
            "caffe_cpu_asum_float(n, p)",
            "caffe_cpu_dot_float(n, a, b)")) {
      assertEquals(true, READ.matcher(read).find(), read);
    }
    // A device pointer is not a read back: Caffe copies to the device, if at all.
    for (String notRead : List.of("reads.cpuOperand(b)", "b.gpu_data()", "b.mutable_gpu_diff()")) {
      assertEquals(false, READ.matcher(notRead).find(), notRead);
    }
  }
}
