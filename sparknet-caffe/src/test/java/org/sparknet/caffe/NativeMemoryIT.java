package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sparknet.ndarray.NDArray;

/**
 * Building, training, testing and closing LeNet over and over does not grow the process: resident
 * memory (/proc/self/statm) after 30 rounds stays within 40 MB of where it was after 10 (each LeNet
 * with its solver holds ~10 MB of blobs; one leaked net per round would add 200+ MB).
 */
class NativeMemoryIT {
  private static long rssMb() throws IOException {
    String[] f = Files.readString(Path.of("/proc/self/statm")).trim().split("\\s+");
    return Long.parseLong(f[1]) * 4096 / (1 << 20);
  }

  @Test
  void repeatedBuildTrainCloseKeepsResidentMemoryFlat() throws IOException {
    long warm = 0;
    for (int round = 1; round <= 30; round++) {
      try (CaffeNet net = CaffeNet.create(Zoo.lenet().withSeed(round), false)) {
        net.train(2, TinyNetsForLenet.FEEDER);
        net.test(1, TinyNetsForLenet.FEEDER);
        Map<String, NDArray> out = net.forward(TinyNetsForLenet.FEEDER, List.of("ip2"));
        out.values().forEach(NDArray::close);
        net.setWeights(net.getWeights());
      }
      if (round == 10) {
        System.gc();
        warm = rssMb();
      }
    }
    System.gc();
    long end = rssMb();
    System.out.printf("RSS after 10 rounds %d MB, after 30 rounds %d MB%n", warm, end);
    assertTrue(end - warm <= 40, "RSS grew from " + warm + " MB to " + end + " MB");
  }

  /** Zeros with label 0: enough to run LeNet. */
  private static final class TinyNetsForLenet {
    static final org.sparknet.api.BatchFeeder FEEDER =
        in -> {
          for (NDArray a : in.values()) {
            a.fill(0f);
          }
        };
  }
}
