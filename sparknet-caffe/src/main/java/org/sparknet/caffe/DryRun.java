package org.sparknet.caffe;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.sparknet.api.NetDefinition;
import org.sparknet.caffe.internal.NetMemory;
import org.sparknet.ndarray.NDArray;

/**
 * The safety net behind the Java checks: builds a definition once in a short-lived child JVM (same
 * java binary and class path) and runs one training step and one test forward pass on zeros. A
 * Caffe CHECK that fails there aborts the child, not this JVM; its glog "Check failed" line becomes
 * an {@link IllegalArgumentException}. Verdicts are cached per definition for the life of the JVM.
 */
final class DryRun {
  private static final Map<NetDefinition, Optional<String>> VERDICTS = new ConcurrentHashMap<>();
  private static final AtomicInteger CHILDREN = new AtomicInteger();
  private static final String FAILURE_MARK = "SPARKNET-DRY-RUN-FAILED: ";
  private static final String GPU_MEMORY_MARK = "SPARKNET-DRY-RUN-GPU-MEMORY: ";

  private DryRun() {}

  /** Throws IllegalArgumentException if Caffe aborts on {@code definition}. */
  static void check(NetDefinition definition) {
    NetDefinition key = definition.withSeed(0);
    Optional<String> verdict = VERDICTS.computeIfAbsent(key, DryRun::runChild);
    if (verdict.isPresent()) {
      throw new IllegalArgumentException(verdict.get());
    }
  }

  /** Whether a dry run of {@code definition} (any seed) ran in this JVM and passed. */
  static boolean passed(NetDefinition definition) {
    Optional<String> verdict = VERDICTS.get(definition.withSeed(0));
    return verdict != null && verdict.isEmpty();
  }

  /** Takes another JVM's passed dry run of {@code definition} as this one's. */
  static void accept(NetDefinition definition) {
    VERDICTS.putIfAbsent(definition.withSeed(0), Optional.empty());
  }

  /** Number of child JVMs this JVM has started (for tests). */
  static int children() {
    return CHILDREN.get();
  }

  /** Number of cached verdicts (for tests). */
  static int cachedVerdicts() {
    return VERDICTS.size();
  }

  private static Optional<String> runChild(NetDefinition definition) {
    CHILDREN.incrementAndGet();
    Path defFile = null;
    Path errFile = null;
    try {
      defFile = Files.createTempFile("sparknet-dryrun-", ".ser");
      errFile = Files.createTempFile("sparknet-dryrun-", ".err");
      try (ObjectOutputStream out = new ObjectOutputStream(Files.newOutputStream(defFile))) {
        out.writeObject(definition);
      }
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      List<String> cmd = new ArrayList<>();
      cmd.add(java);
      cmd.add("-Xmx1g");
      // The child lives for one build and one step, most of it loading Caffe's natives: the C2
      // compiler and parallel GC threads would only take CPU from the executors beside it.
      cmd.add("-XX:TieredStopAtLevel=1");
      cmd.add("-XX:+UseSerialGC");
      cmd.add("-cp");
      cmd.add(classPath());
      cmd.add(DryRun.class.getName());
      cmd.add(defFile.toString());
      ProcessBuilder pb = new ProcessBuilder(cmd);
      // INFO, so that net.cpp's "Creating Layer" lines tell the verdict which layer a CHECK is in.
      pb.environment().put("GLOG_minloglevel", "0");
      pb.environment().putIfAbsent("OPENBLAS_NUM_THREADS", "1");
      pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
      pb.redirectError(errFile.toFile());
      Process p = pb.start();
      long timeout = Long.getLong("sparknet.caffe.dryRunTimeoutSeconds", 600);
      if (!p.waitFor(timeout, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(
            "The dry run of net definition took more than "
                + timeout
                + " s and was stopped;"
                + " raise -Dsparknet.caffe.dryRunTimeoutSeconds or disable it with"
                + " -Dsparknet.caffe.dryRun=false");
      }
      int rc = p.exitValue();
      if (rc == 0) {
        return Optional.empty();
      }
      List<String> err = Files.readAllLines(errFile, StandardCharsets.UTF_8);
      return Optional.of(verdict(rc, err));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the dry run of a net definition", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted during the dry run of a net definition", e);
    } finally {
      for (Path f : new Path[] {defFile, errFile}) {
        if (f != null) {
          try {
            Files.deleteIfExists(f);
          } catch (IOException ignored) {
            // a leftover temporary file is harmless
          }
        }
      }
    }
  }

  /**
   * This JVM's class path, plus the jar or directory that holds this class when it is not on it:
   * under spark-submit the application jar is loaded by Spark's own class loader, not from
   * java.class.path.
   */
  static String classPath() {
    String cp = System.getProperty("java.class.path", "");
    try {
      java.security.CodeSource src = DryRun.class.getProtectionDomain().getCodeSource();
      if (src != null && src.getLocation() != null) {
        String own = Path.of(src.getLocation().toURI()).toString();
        if (!List.of(cp.split(java.io.File.pathSeparator)).contains(own)) {
          return cp.isEmpty() ? own : own + java.io.File.pathSeparator + cp;
        }
      }
    } catch (java.net.URISyntaxException | IllegalArgumentException e) {
      // not a file location: keep the class path as it is
    }
    return cp;
  }

  /** Turns the child's exit code and stderr into the message of an IllegalArgumentException. */
  static String verdict(int rc, List<String> stderr) {
    for (String line : stderr) {
      int i = line.indexOf(FAILURE_MARK);
      if (i >= 0) {
        return line.substring(i + FAILURE_MARK.length());
      }
    }
    String fatal = null;
    String layer = null;
    for (String line : stderr) {
      if (line.contains("Check failed:")) {
        fatal = line;
        break;
      }
      layer = layerBeingBuilt(line, layer);
    }
    if (fatal == null) {
      for (String line : stderr) {
        if (line.matches("^F\\d{4} .*")) {
          fatal = line;
          break;
        }
      }
    }
    if (fatal != null && fatal.contains("out of memory")) {
      return outOfMemory(fatal, stderr);
    }
    if (fatal != null) {
      int i = fatal.indexOf("] ");
      String where = i > 0 ? fatal.substring(fatal.lastIndexOf(' ', i - 1) + 1, i) : "?";
      String what = i > 0 ? fatal.substring(i + 2) : fatal;
      return "Caffe rejects this net definition"
          + (layer != null ? ", layer '" + layer + "'" : "")
          + ": "
          + what
          + " (at "
          + where
          + "; found by a dry run in a child JVM: build, then one forward/backward pass on"
          + " zeros)";
    }
    if (rc == 134 || rc == 139 || rc == 136) {
      return "Caffe crashed on this net definition (exit code "
          + rc
          + ", no glog message) during a dry run in a child JVM; stderr ends with: "
          + tail(stderr);
    }
    throw new IllegalStateException(
        "The dry run of a net definition failed without a Caffe error (exit code "
            + rc
            + "): "
            + tail(stderr)
            + "; disable it with -Dsparknet.caffe.dryRun=false if the child JVM cannot start here");
  }

  /**
   * The layer Caffe is setting up after glog's {@code line}, given the one before it: net.cpp logs
   * "Creating Layer NAME" before each layer's set-up, where its CHECKs on the parameters and shapes
   * run, and "Network initialization done." once a net is built; a CHECK after that one fails in a
   * step, in no layer that the log names.
   */
  private static String layerBeingBuilt(String line, String before) {
    int i = line.indexOf("] Creating Layer ");
    if (i >= 0) {
      return line.substring(i + "] Creating Layer ".length()).strip();
    }
    return line.contains("] Network initialization done") ? null : before;
  }

  /** A GPU allocation that failed in the child, with the net's estimate when it printed one. */
  private static String outOfMemory(String fatal, List<String> stderr) {
    String caffe = fatal.substring(fatal.indexOf("] ") + 2);
    for (String line : stderr) {
      int i = line.indexOf(GPU_MEMORY_MARK);
      if (i >= 0) {
        String[] f = line.substring(i + GPU_MEMORY_MARK.length()).split("\t");
        return "GPU out of memory: net '"
            + f[0]
            + "' at batch size "
            + f[1]
            + " asks for about "
            + NetMemory.describe(Long.parseLong(f[2]))
            + " on "
            + f[3]
            + " and Caffe's allocation failed ("
            + caffe
            + "; found by a dry run in a child JVM); lower the batch size (--batch-size)";
      }
    }
    return "GPU out of memory: Caffe's allocation failed ("
        + caffe
        + "; found by a dry run in a child JVM); lower the batch size (--batch-size)";
  }

  private static String tail(List<String> lines) {
    int from = Math.max(0, lines.size() - 5);
    return String.join(" | ", lines.subList(from, lines.size()));
  }

  /** The child: builds the definition without a dry run, trains one step and tests one. */
  public static void main(String[] args) throws Exception {
    NetDefinition def;
    try (ObjectInputStream in = new ObjectInputStream(Files.newInputStream(Path.of(args[0])))) {
      def = (NetDefinition) in.readObject();
    }
    try (CaffeNet net = CaffeNet.create(def, false)) {
      NetMemory m = NetMemory.last();
      if (m != null) {
        // Read back by verdict() should Caffe run out of GPU memory in the step below.
        System.err.println(
            GPU_MEMORY_MARK + m.net() + "\t" + m.batch() + "\t" + m.bytes() + "\t" + m.device());
      }
      net.train(1, DryRun::zeros);
      net.test(1, DryRun::zeros);
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println(FAILURE_MARK + e.getMessage());
      System.exit(3);
    }
    System.exit(0);
  }

  private static void zeros(Map<String, NDArray> inputs) {
    for (NDArray a : inputs.values()) {
      a.fill(0f);
    }
  }
}
