package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.WORKERS;
import static org.sparknet.bench.loop.BenchRun.log;
import static org.sparknet.bench.loop.BenchRun.seconds;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.sparknet.api.train.SparkNetTrainer;

/**
 * Section 1b: where the cores go during the demo's loop, thread by thread: Spark's task threads
 * (the workers' solvers), the driver, the JVM's garbage collectors and JIT compilers, and the rest.
 * Two workers on two cores can reach 2 × one raw net only if nothing else takes a core.
 */
record ThreadsSection(BenchRun bench) {
  private static final int TAU = BenchRun.DEMO_TAU;

  void run() {
    String load = Machine.loadAverage();
    Sgemm.setThreads(1);
    int rounds = bench.demoRounds();
    Map<Integer, ThreadCpu.Sample> before = ThreadCpu.snapshot();
    long start = System.nanoTime();
    long examples = 0;
    try (SparkNetTrainer t = bench.trainer(BenchRun.lenet(), TAU, WORKERS)) {
      t.setTrainingData(bench.trainRdd());
      for (int r = 0; r < rounds; r++) {
        examples += t.trainRound().examples();
      }
    }
    double wall = seconds(start);
    Map<String, double[]> groups = ThreadCpu.perGroup(before, ThreadCpu.snapshot());
    log("threads: %d rounds in %.1f s, %,.0f img/s", rounds, wall, examples / wall);
    report(load, rounds, wall, examples, groups);
  }

  private void report(
      String load, int rounds, double wall, long examples, Map<String, double[]> groups) {
    int cores = Machine.processors();
    List<Map.Entry<String, double[]>> sorted = new ArrayList<>(groups.entrySet());
    sorted.sort((a, b) -> Double.compare(b.getValue()[0], a.getValue()[0]));
    double total = sorted.stream().mapToDouble(e -> e.getValue()[0]).sum();
    StringBuilder md = new StringBuilder("### 1b. Where the cores go: CPU time per thread\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "The demo's loop in this JVM (LeNet, 2 workers on `local[%d]`, tau=%d, %d rounds, no"
                + " tests), from building the trainer to closing it: %.1f s of wall time, %,.0f"
                + " images/s. CPU time (user + system) of every thread of the JVM, from Linux's"
                + " `/proc/self/task/*/stat` (Java's own GC and JIT threads included), grouped by"
                + " the thread's name without its number. Threads that ended during the run are"
                + " not counted. Share: of the %d cores × wall time. Load average %s before.%n%n",
            WORKERS,
            TAU,
            rounds,
            wall,
            examples / wall,
            cores,
            load));
    md.append("| threads named | threads that ran | CPU s | share of the cores |\n");
    md.append("|---|---:|---:|---:|\n");
    double other = 0;
    for (Map.Entry<String, double[]> e : sorted) {
      double cpu = e.getValue()[0];
      if (cpu < 0.005 * wall * cores) {
        other += cpu;
        continue;
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| `%s` | %.0f | %.1f | %.1f %% |%n",
              e.getKey(),
              e.getValue()[1],
              cpu,
              100 * cpu / (wall * cores)));
    }
    md.append(
        String.format(
            Locale.ROOT,
            "| every other thread (each group under 0.5 %%) | | %.1f | %.1f %% |%n| all | | %.1f |"
                + " %.1f %% |%n",
            other,
            100 * other / (wall * cores),
            total,
            100 * total / (wall * cores)));
    bench.write("loop-threads", md);
  }
}
