package org.sparknet.testing.data;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.sparknet.api.data.Example;

/**
 * Reads the first examples of Fashion-MNIST from its IDX files (gzipped), for tests: 784 pixels
 * scaled to [0, 1], label 0-9. The directory is {@code sparknet.fashion.dir} / {@code
 * SPARKNET_FASHION_DIR}, default /usr/share/datasets/fashion-mnist.
 */
public final class FashionMnist {
  private FashionMnist() {}

  public static Path dir() {
    String d = System.getProperty("sparknet.fashion.dir", System.getenv("SPARKNET_FASHION_DIR"));
    Path p = Path.of(d == null ? "/usr/share/datasets/fashion-mnist" : d);
    if (!Files.isRegularFile(p.resolve("train-images-idx3-ubyte.gz"))) {
      throw new IllegalStateException(
          "Fashion-MNIST not found in "
              + p
              + ": set -Dsparknet.fashion.dir or SPARKNET_FASHION_DIR to the directory holding"
              + " train-images-idx3-ubyte.gz and train-labels-idx1-ubyte.gz");
    }
    return p;
  }

  /** The first {@code n} training examples (or test examples when {@code train} is false). */
  public static List<Example> load(boolean train, int n) {
    String prefix = train ? "train" : "t10k";
    Path d = dir();
    try (DataInputStream images = open(d.resolve(prefix + "-images-idx3-ubyte.gz"));
        DataInputStream labels = open(d.resolve(prefix + "-labels-idx1-ubyte.gz"))) {
      if (images.readInt() != 2051 || labels.readInt() != 2049) {
        throw new IllegalStateException("Not IDX image/label files in " + d);
      }
      int count = Math.min(n, images.readInt());
      labels.readInt();
      int rows = images.readInt();
      int cols = images.readInt();
      byte[] px = new byte[rows * cols];
      List<Example> out = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        images.readFully(px);
        float[] f = new float[px.length];
        for (int k = 0; k < px.length; k++) {
          f[k] = (px[k] & 0xff) / 255f;
        }
        out.add(new Example(f, labels.readUnsignedByte()));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static DataInputStream open(Path p) throws IOException {
    InputStream in = new GZIPInputStream(Files.newInputStream(p), 1 << 16);
    return new DataInputStream(in);
  }
}
