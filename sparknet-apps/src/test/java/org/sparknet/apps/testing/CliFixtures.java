package org.sparknet.apps.testing;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.sparknet.apps.cli.SparkNetCli;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.apps.data.IdxFile;

/**
 * Small real inputs for the CLI tests: the first records of Fashion-MNIST written as plain IDX
 * files under the standard names, and Caffe's unchanged LeNet solver and net laid out so the
 * solver's relative {@code net:} path resolves against the solver's directory.
 */
public final class CliFixtures {
  private CliFixtures() {}

  /** Writes {@code train} training and {@code test} test records into {@code dir}. */
  public static void fashionMnistSubset(Path dir, int train, int test) throws IOException {
    FashionMnist.locate(null); // fails with instructions when the dataset is not installed
    Path src = FashionMnist.DEBIAN_DIR;
    String env = System.getenv("SPARKNET_FASHION_MNIST_DIR");
    if (env != null && !env.isBlank()) {
      src = Path.of(env);
    }
    Files.createDirectories(dir);
    for (String set : new String[] {"train", "t10k"}) {
      int n = set.equals("train") ? train : test;
      copy(src, dir, set + "-images-idx3-ubyte", n);
      copy(src, dir, set + "-labels-idx1-ubyte", n);
    }
  }

  private static void copy(Path srcDir, Path dstDir, String name, int n) throws IOException {
    Path src = srcDir.resolve(name + ".gz");
    if (!Files.exists(src)) {
      src = srcDir.resolve(name);
    }
    IdxFile in = IdxFile.open(src);
    byte[] records = in.readRecords(0, n);
    int[] dims = in.recordDims();
    try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(dstDir.resolve(name)))) {
      out.writeInt(0x0800 | (dims.length + 1));
      out.writeInt(n);
      for (int d : dims) {
        out.writeInt(d);
      }
      out.write(records);
    }
  }

  /**
   * Copies Caffe's lenet_solver.prototxt to {@code dir} and lenet_train_test.prototxt to {@code
   * dir}/examples/mnist, where the solver's {@code net:} names it; returns the solver.
   */
  public static Path caffeLeNet(Path dir) throws IOException {
    Path net = dir.resolve("examples/mnist/lenet_train_test.prototxt");
    Files.createDirectories(net.getParent());
    resource("lenet_train_test.prototxt", net);
    Path solver = dir.resolve("lenet_solver.prototxt");
    resource("lenet_solver.prototxt", solver);
    return solver;
  }

  private static void resource(String name, Path to) throws IOException {
    try (InputStream in = CliFixtures.class.getResourceAsStream("/caffe/examples/mnist/" + name)) {
      if (in == null) {
        throw new IllegalStateException("Test resource /caffe/examples/mnist/" + name + " missing");
      }
      Files.copy(in, to);
    }
  }

  /** The first {@code n} Fashion-MNIST training images and labels (784 bytes each, then labels). */
  public static byte[][] fashionMnistTrain(int n) {
    FashionMnist fm = FashionMnist.locate(null);
    Path dir = Path.of(fm.dir().toUri());
    Path images = dir.resolve("train-images-idx3-ubyte.gz");
    Path labels = dir.resolve("train-labels-idx1-ubyte.gz");
    if (!Files.exists(images)) {
      images = dir.resolve("train-images-idx3-ubyte");
      labels = dir.resolve("train-labels-idx1-ubyte");
    }
    return new byte[][] {
      IdxFile.open(images).readRecords(0, n), IdxFile.open(labels).readRecords(0, n)
    };
  }

  /**
   * Writes a CIFAR-format binary batch made from real images: Fashion-MNIST training images {@code
   * [from, from + n)}, 28x28 grey centred in 32x32 and tinted (record i gets one of three colour
   * tints, so the three planes differ), with their labels. No CIFAR data is reachable here; this is
   * the stand-in. For CIFAR-100 the coarse label is the Fashion-MNIST class and the fine label
   * class * 10 + i % 10.
   */
  public static Path cifarBatch(Path file, int from, int n, boolean cifar100) throws IOException {
    byte[][] fm = fashionMnistTrain(from + n);
    float[][] tints = {{1f, 0.6f, 0.3f}, {0.3f, 1f, 0.6f}, {0.6f, 0.3f, 1f}};
    int labelBytes = cifar100 ? 2 : 1;
    byte[] out = new byte[n * (labelBytes + 3072)];
    for (int i = 0; i < n; i++) {
      int rec = from + i;
      int off = i * (labelBytes + 3072);
      int label = fm[1][rec] & 0xff;
      if (cifar100) {
        out[off] = (byte) label;
        out[off + 1] = (byte) (label * 10 + rec % 10);
      } else {
        out[off] = (byte) label;
      }
      float[] tint = tints[rec % 3];
      for (int c = 0; c < 3; c++) {
        for (int y = 0; y < 28; y++) {
          for (int x = 0; x < 28; x++) {
            int v = fm[0][rec * 784 + y * 28 + x] & 0xff;
            out[off + labelBytes + c * 1024 + (y + 2) * 32 + (x + 2)] =
                (byte) Math.round(v * tint[c]);
          }
        }
      }
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.write(file, out);
    return file;
  }

  /**
   * Writes a folder of class subfolders made from real images: for each of {@code classes}
   * (Fashion-MNIST labels, the folder named {@code class_<label>}), the first {@code perClass}
   * training images of that class, resized to {@code size x size}, alternately as PNG and JPEG.
   */
  public static Path imageFolder(Path root, int[] classes, int perClass, int size)
      throws IOException {
    byte[][] fm = fashionMnistTrain(2000);
    for (int cls : classes) {
      Path dir = Files.createDirectories(root.resolve("class_" + cls));
      int written = 0;
      for (int rec = 0; rec < 2000 && written < perClass; rec++) {
        if ((fm[1][rec] & 0xff) != cls) {
          continue;
        }
        java.awt.image.BufferedImage grey =
            new java.awt.image.BufferedImage(28, 28, java.awt.image.BufferedImage.TYPE_BYTE_GRAY);
        byte[] px = ((java.awt.image.DataBufferByte) grey.getRaster().getDataBuffer()).getData();
        System.arraycopy(fm[0], rec * 784, px, 0, 784);
        java.awt.image.BufferedImage big =
            new java.awt.image.BufferedImage(
                size, size, java.awt.image.BufferedImage.TYPE_3BYTE_BGR);
        java.awt.Graphics2D g = big.createGraphics();
        g.setRenderingHint(
            java.awt.RenderingHints.KEY_INTERPOLATION,
            java.awt.RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        g.drawImage(grey, 0, 0, size, size, null);
        g.dispose();
        String fmt = written % 2 == 0 ? "png" : "jpg";
        javax.imageio.ImageIO.write(big, fmt, dir.resolve("img" + rec + "." + fmt).toFile());
        written++;
      }
    }
    return root;
  }

  /**
   * Lays out an app's unchanged Caffe files from sparknet-apps' resources as Caffe's examples do:
   * the solver in {@code dir}, the net where the solver's relative {@code net:} names it; returns
   * the solver. {@code app} is "cifar10" (CIFAR-10 quick) or "caffenet".
   */
  public static Path appSolver(String app, Path dir) throws IOException {
    String base = "/org/sparknet/apps/" + app + "/";
    if (app.equals("cifar10")) {
      copyResource(
          base + "cifar10_quick_train_test.prototxt",
          dir.resolve("examples/cifar10/cifar10_quick_train_test.prototxt"));
      return copyResource(
          base + "cifar10_quick_solver.prototxt", dir.resolve("cifar10_quick_solver.prototxt"));
    }
    copyResource(
        base + "caffenet_train_val.prototxt",
        dir.resolve("models/bvlc_reference_caffenet/train_val.prototxt"));
    return copyResource(base + "caffenet_solver.prototxt", dir.resolve("caffenet_solver.prototxt"));
  }

  /**
   * Writes a Caffe mean file (binary BlobProto) as Caffe's compute_image_mean does: num 1,
   * channels, height, width (fields 1-4) and the packed float data (field 5).
   */
  public static Path meanFile(Path file, int c, int h, int w, float[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int[][] dims = {{1, 1}, {2, c}, {3, h}, {4, w}};
    for (int[] d : dims) {
      varint(out, d[0] << 3);
      varint(out, d[1]);
    }
    varint(out, (5 << 3) | 2);
    varint(out, data.length * 4);
    java.nio.ByteBuffer b =
        java.nio.ByteBuffer.allocate(data.length * 4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    for (float v : data) {
      b.putFloat(v);
    }
    out.write(b.array());
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.write(file, out.toByteArray());
    return file;
  }

  /** Appends a protobuf varint. */
  public static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  /** Copies a test resource to {@code to}. */
  public static Path copyResource(String resource, Path to) throws IOException {
    Files.createDirectories(to.toAbsolutePath().getParent());
    try (InputStream in = CliFixtures.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("Resource " + resource + " missing");
      }
      Files.copy(in, to);
    }
    return to;
  }

  /**
   * A child JVM that runs the CLI from the shaded jar (built by {@code mvn verify}'s package phase)
   * with the launcher's JVM flags, its output (stdout and stderr) going to {@code log}.
   */
  public static ProcessBuilder childJvm(Path log, String... args) throws IOException {
    Path target = Path.of("target").toAbsolutePath();
    Path jar;
    try (java.util.stream.Stream<Path> s = Files.list(target)) {
      jar =
          s.filter(f -> f.getFileName().toString().matches("sparknet-apps-.*-all\\.jar"))
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("run through mvn verify (shaded jar)"));
    }
    java.util.List<String> cmd = new java.util.ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx1g");
    cmd.addAll(
        java.util.Arrays.asList(
            Files.readString(target.resolve("launcher/jvm-flags.txt")).strip().split("\\s+")));
    cmd.add("-Dlog4j2.configurationFile=" + target.resolve("launcher/log4j2.properties"));
    cmd.add("-cp");
    cmd.add(
        jar
            + java.io.File.pathSeparator
            + target.resolve("spark-jars")
            + java.io.File.separator
            + "*");
    cmd.add(SparkNetCli.class.getName());
    cmd.addAll(java.util.Arrays.asList(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    pb.environment().put("GLOG_minloglevel", "2");
    pb.environment().put("OPENBLAS_NUM_THREADS", "1");
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return pb;
  }

  /**
   * A failed snippet in jshell's output: a compile error or an exception, which jshell reports and
   * then goes on. Run on a script file, jshell starts the lines with "Error:" and "Exception"; at
   * its prompt with "| ".
   */
  public static final java.util.regex.Pattern JSHELL_FAILURE =
      java.util.regex.Pattern.compile("(?m)^(\\|  )?(Error:|Exception [\\w.$]+).*$");

  /**
   * Starts {@code pb} with its output (errors included) going to {@code log}, waits up to {@code
   * minutes}, prints what it wrote and returns it; fails, with the output, when it did not finish
   * in time (killed) or exited with another status than 0. {@code what} names it in the message.
   */
  public static String runToEnd(ProcessBuilder pb, Path log, int minutes, String what)
      throws IOException, InterruptedException {
    pb.redirectErrorStream(true).redirectOutput(log.toFile());
    Process p = pb.start();
    boolean done = p.waitFor(minutes, java.util.concurrent.TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly();
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    System.out.println(out);
    if (!done) {
      throw new AssertionError(what + " did not finish in " + minutes + " minutes:\n" + out);
    }
    if (p.exitValue() != 0) {
      throw new AssertionError(what + " exited with " + p.exitValue() + ":\n" + out);
    }
    return out;
  }

  /** The CLI's exit code and what it printed. */
  public record Result(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  /**
   * {@code train --solver SOLVER --train --test} on the subset {@link #fashionMnistSubset} wrote to
   * {@code data}, followed by {@code more}.
   */
  public static String[] trainArgs(Path solver, Path data, String... more) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "train",
                "--solver",
                solver.toString(),
                "--train",
                data.resolve("train-images-idx3-ubyte").toString(),
                "--test",
                data.resolve("t10k-images-idx3-ubyte").toString()));
    a.addAll(Arrays.asList(more));
    return a.toArray(new String[0]);
  }

  /** Runs the CLI in this JVM, capturing stdout and stderr. */
  public static Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    int exit;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      exit = SparkNetCli.run(args);
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    return new Result(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
