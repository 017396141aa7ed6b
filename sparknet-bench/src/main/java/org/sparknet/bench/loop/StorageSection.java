package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.WORKERS;
import static org.sparknet.bench.loop.BenchRun.log;
import static org.sparknet.bench.loop.BenchRun.seconds;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.sparknet.bench.loop.ImageDecodeRates.FileSet;
import org.sparknet.bench.loop.MiniHdfs.Replica;

/**
 * Section 18, storage (issue 16's measurements): (a) loading IDX files from HDFS through SparkNet's
 * executor-side loader against a plain read of the same bytes ({@link HdfsLoadRates}); (b) the
 * driver's heap peak while training from a data set larger than the driver's heap, executors in
 * their own JVMs on a standalone cluster on loopback ({@link DriverHeapRun}); (c) images/s of the
 * image-folder decoder, OpenCV against javax.imageio ({@link ImageDecodeRates}). The HDFS is
 * Hadoop's MiniDFSCluster in this JVM ({@link MiniHdfs}); its blocks go under
 * sparknet-bench/target/bench-storage and are deleted when the section ends.
 */
final class StorageSection {
  /** The driver's -Xmx in part (b): smaller than the data set it trains from. */
  static final String DRIVER_HEAP = "512m";

  private final BenchRun run;
  private final boolean quick;

  /** What part (b) printed for one data set. */
  private record HeapRun(Replica data, List<String> out) {}

  StorageSection(BenchRun run) {
    this.run = run;
    this.quick = run.opt().quick();
  }

  /** Copies of Fashion-MNIST's training set in part (a): 4 x 47 MB. */
  private int loadCopies() {
    return quick ? 1 : 4;
  }

  /** Copies in part (b): 23 x 47,040,000 bytes of pixels = 1.08 GB (1.01 GiB). */
  private int heapCopies() {
    return quick ? 2 : 23;
  }

  /** Partitions (workers) in part (b): shards small enough to pack in an executor's heap. */
  private int heapWorkers() {
    return quick ? 4 : 16;
  }

  private String executorMemory() {
    return quick ? "1g" : "3g";
  }

  private int repeats() {
    return quick ? 1 : run.opt().repeats();
  }

  void run() throws Exception {
    String load = Machine.loadAverage();
    Path dir =
        Files.createDirectories(
            Path.of("sparknet-bench/target/bench-storage/run-" + System.currentTimeMillis()));
    Path data = run.opt().data();
    Replica loadSet;
    HdfsLoadRates.Times loadTimes;
    List<HeapRun> heap = new ArrayList<>();
    double writeSeconds;
    try (MiniHdfs hdfs = MiniHdfs.start(dir.resolve("dfs"))) {
      loadSet = hdfs.writeTrainingSet(data, "/load", loadCopies());
      loadTimes = HdfsLoadRates.measure(run.sc(), loadSet, WORKERS, repeats());
      hdfs.fileSystem().delete(new org.apache.hadoop.fs.Path("/load"), true);
      Replica one = hdfs.writeTrainingSet(data, "/one", 1);
      long t0 = System.nanoTime();
      Replica big = hdfs.writeTrainingSet(data, "/big", heapCopies());
      writeSeconds = seconds(t0);
      log("storage: wrote %d images to %s in %.1f s", big.count(), big.images(), writeSeconds);
      try (LoopbackCluster cluster =
          LoopbackCluster.start(dir.resolve("cluster"), WORKERS, executorMemory())) {
        for (Replica r : List.of(one, big)) {
          heap.add(new HeapRun(r, driver(cluster, r, dir)));
        }
      }
    }
    List<FileSet> sets =
        ImageDecodeRates.write(
            run.train(), dir.resolve("images"), quick ? 200 : 2000, quick ? 50 : 500);
    List<ImageDecodeRates.Times> images = ImageDecodeRates.measure(sets, repeats());
    StringBuilder md =
        new StringBuilder("### 18. Storage: loading from HDFS, the driver's heap, images\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "HDFS: Hadoop's MiniDFSCluster in the benchmark's JVM (a NameNode and one DataNode on"
                + " 127.0.0.1, replication 1, blocks on the local disk; the files are fresh, so"
                + " reads likely come from the page cache). MB = 10^6 bytes. Load average %s"
                + " before.%n%n",
            load));
    loadTable(md, loadSet, loadTimes);
    heapTable(md, heap, writeSeconds);
    imageTable(md, images);
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(run.opt().output(), "loop-storage", md.toString());
  }

  /** Part (b) for {@code data}: the driver JVM's output lines. */
  private List<String> driver(LoopbackCluster cluster, Replica data, Path dir) {
    List<String> args =
        new ArrayList<>(
            List.of(
                cluster.masterUrl(),
                data.images(),
                data.labels(),
                Integer.toString(heapWorkers()),
                quick ? "5" : "10",
                quick ? "2" : "3"));
    cluster.appSettings(executorMemory()).forEach((k, v) -> args.add(k + "=" + v));
    return ChildJvm.run(
        DriverHeapRun.class,
        DRIVER_HEAP,
        args,
        Map.of(),
        dir.resolve("driver-" + data.count() + ".log"));
  }

  private void loadTable(StringBuilder md, Replica data, HdfsLoadRates.Times t) {
    double mb = HdfsLoadRates.bytes(data) / 1e6;
    md.append(
        String.format(
            Locale.ROOT,
            "**(a) Loading IDX files from HDFS.** Fashion-MNIST's training set x %d"
                + " (%,d images; images and labels files %.1f MB), read three ways in turns,"
                + " %d repetition(s), medians. SparkNet's loader is what `train` does before its"
                + " first round: `IdxDataset.toRdd` (each of %d tasks seeks to its record range and"
                + " makes one float example per image), packed into one `DataShard` per partition,"
                + " cached and counted; the plain reads move the same bytes and keep nothing.%n%n",
            loadCopies(),
            data.count(),
            mb,
            t.loader().size(),
            WORKERS));
    md.append("| read | seconds | MB/s | ÷ plain ranges in tasks |\n|---|---:|---:|---:|\n");
    double tasks = Spread.of(t.plainTasks()).median();
    row(md, "plain `FSDataInputStream`, one stream, start to end", t.plainStream(), mb, tasks);
    row(
        md,
        "plain `FSDataInputStream`, the partitions' ranges in " + WORKERS + " Spark tasks",
        t.plainTasks(),
        mb,
        tasks);
    row(
        md,
        "SparkNet's loader (" + WORKERS + " tasks, floats packed and cached)",
        t.loader(),
        mb,
        tasks);
    md.append("\n");
  }

  private static void row(StringBuilder md, String what, List<Double> s, double mb, double ref) {
    double m = Spread.of(s).median();
    md.append(
        String.format(
            Locale.ROOT, "| %s | %.2f | %.0f | %.2f |%n", what, m, mb / m, (mb / m) / (mb / ref)));
  }

  private void heapTable(StringBuilder md, List<HeapRun> runs, double writeSeconds) {
    md.append(
        String.format(
            Locale.ROOT,
            "**(b) The driver's heap while training from a data set larger than it.** The driver"
                + " in a JVM of its own with -Xmx%s (`DriverHeapRun`), a standalone cluster of %d"
                + " workers of 1 core on 127.0.0.1/.2, one executor JVM each (%s heap); LeNet,"
                + " %d workers (partitions), tau %s, from plain IDX files on the HDFS above"
                + " (Fashion-MNIST's training set once, and replicated; the large set took %.0f s"
                + " to write). The driver's heap over two spans: while Spark starts and the"
                + " executors register, then (peaks reset) while the data is opened (headers and"
                + " labels checked on the driver) and trained on. Peak used: the sum of the heap"
                + " pools' peaks (`MemoryPoolMXBean`; an upper bound, garbage included); live: the"
                + " largest heap right after a collection (the collectors' notifications). The"
                + " first round includes each executor reading and caching its partitions; what"
                + " does not fit in an executor's storage memory is read from HDFS again in later"
                + " rounds.%n%n",
            DRIVER_HEAP,
            WORKERS,
            executorMemory(),
            heapWorkers(),
            quick ? "5" : "10",
            writeSeconds));
    md.append(
        "| data set on HDFS | images | IDX MB | driver -Xmx (MB) | heap peak used, Spark start /"
            + " open + train (MB) | of it old gen (MB) | live heap peak after GC, Spark start /"
            + " open + train (MB) | GCs in open + train | executors' cache after round 1 | first"
            + " round (s) | later rounds (s, median) |\n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
    for (HeapRun r : runs) {
      heapRow(md, r);
    }
    md.append("\n");
  }

  private static void heapRow(StringBuilder md, HeapRun r) {
    List<Double> later = new ArrayList<>();
    double first = Double.NaN;
    String cache = "?";
    for (String l : r.out()) {
      String[] f = l.trim().split("\\s+");
      if (f.length == 4 && f[0].equals("round")) {
        double s = Double.parseDouble(f[2]) / 1000;
        if (f[1].equals("0")) {
          first = s;
        } else {
          later.add(s);
        }
      } else if (f.length == 4 && f[0].equals("cached")) {
        cache =
            f[1] + " of " + f[2] + " partitions, " + Math.round(Double.parseDouble(f[3])) + " MB";
      }
    }
    List<String> o = r.out();
    md.append(
        String.format(
            Locale.ROOT,
            "| Fashion-MNIST train x %d | %,d | %.0f | %.0f | %.0f / %.0f | %.0f | %.0f / %.0f |"
                + " %.0f | %s | %.1f | %.1f |%n",
            r.data().count() / 60_000,
            r.data().count(),
            HdfsLoadRates.bytes(r.data()) / 1e6,
            ChildJvm.value(o, "heap_max"),
            ChildJvm.value(o, "heap_spark"),
            ChildJvm.value(o, "heap_train"),
            ChildJvm.value(o, "heap_old"),
            ChildJvm.value(o, "live_spark"),
            ChildJvm.value(o, "live_train"),
            ChildJvm.value(o, "collections"),
            cache,
            first,
            later.isEmpty() ? Double.NaN : Spread.of(later).median()));
  }

  private static void imageTable(StringBuilder md, List<ImageDecodeRates.Times> times)
      throws IOException {
    md.append(
        "**(c) Decoding an image folder: OpenCV against javax.imageio.** `ImageFolder.decode`"
            + " (OpenCV `imdecode` in colour, linear `resize`, BGR planes: what `--format images`"
            + " runs on the executors) against javax.imageio with a bilinear Java2D resize into the"
            + " same planes, one thread, the same files, each file read from local disk inside the"
            + " timed loop; after one unmeasured pass each, then in turns, medians. Files:"
            + " Fashion-MNIST training images tinted into colour, written by javax.imageio; the"
            + " 224x224 ones scaled up from 28x28 and decoded to 227x227 (CaffeNet's input).\n\n");
    md.append(
        "| files | count | mean file (bytes) | decoded to | OpenCV (images/s) | javax.imageio"
            + " (images/s) | OpenCV ÷ javax.imageio |\n|---|---:|---:|---|---:|---:|---:|\n");
    for (ImageDecodeRates.Times t : times) {
      FileSet s = t.set();
      long bytes = 0;
      for (Path f : s.files()) {
        bytes += Files.size(f);
      }
      double cv = s.files().size() / Spread.of(t.opencv()).median();
      double io = s.files().size() / Spread.of(t.imageio()).median();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s %dx%d | %,d | %,d | %dx%d | %,.0f | %,.0f | %.2f |%n",
              s.format(),
              s.side(),
              s.side(),
              s.files().size(),
              bytes / s.files().size(),
              s.outSide(),
              s.outSide(),
              cv,
              io,
              cv / io));
    }
  }
}
