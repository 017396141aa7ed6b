package org.sparknet.apps.memory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.Pointer;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.caffe.CaffeNet;
import org.sparknet.ndarray.NDArray;

/**
 * A measurement, not a test: the resident memory one LeNet takes as an executor holds it (train
 * net, test net, solver; after 3 steps and a test), for docs/memory.md. Run from sparknet-apps
 * after {@code mvn package} (test classes compiled):
 *
 * <pre>
 * GLOG_minloglevel=2 OPENBLAS_NUM_THREADS=1 java -Xms512m -Xmx512m -XX:+AlwaysPreTouch \
 *   $(cat target/launcher/jvm-flags.txt) \
 *   -cp "target/test-classes:target/sparknet-apps-0.1.0-SNAPSHOT-all.jar:target/spark-jars/*" \
 *   org.sparknet.apps.memory.NetFootprint SOLVER.prototxt NET.prototxt 8
 * </pre>
 *
 * The heap is pre-touched so that its residency does not change while nets are built.
 */
public final class NetFootprint {
  private NetFootprint() {}

  public static void main(String[] args) throws Exception {
    String solver = Files.readString(Path.of(args[0])).replaceAll("(?m)^net:.*$", "");
    String net = Files.readString(Path.of(args[1]));
    int n = Integer.parseInt(args[2]);
    NetDefinition def = NetDefinition.caffe(solver, net, List.of(1, 28, 28)).withSeed(1);
    CaffeNet.create(def).close(); // loads the natives before the first reading
    BatchFeeder zeros =
        in -> {
          for (NDArray a : in.values()) {
            a.fill(0f);
          }
        };
    System.gc();
    long rss0 = rssMb();
    long phys0 = Pointer.physicalBytes();
    List<CaffeNet> nets = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        CaffeNet c = CaffeNet.create(def.withSeed(i));
        nets.add(c);
        c.train(3, zeros);
        c.test(1, zeros);
      }
      System.gc();
      long rss1 = rssMb();
      System.out.printf(
          "RSS with natives loaded %d MB; %d nets: RSS +%d MB (%.1f MB a net), physicalBytes +%d"
              + " MB, Pointer.totalBytes %d bytes%n",
          rss0,
          n,
          rss1 - rss0,
          (rss1 - rss0) / (double) n,
          (Pointer.physicalBytes() - phys0) >> 20,
          Pointer.totalBytes());
    } finally {
      for (CaffeNet c : nets) {
        c.close();
      }
    }
  }

  private static long rssMb() throws Exception {
    for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (l.startsWith("VmRSS:")) {
        return Long.parseLong(l.replaceAll("\\D+", "")) / 1024;
      }
    }
    throw new IllegalStateException("no VmRSS in /proc/self/status");
  }
}
