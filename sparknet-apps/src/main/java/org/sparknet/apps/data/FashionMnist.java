package org.sparknet.apps.data;

import java.nio.file.Path;
import org.sparknet.api.storage.StoragePath;

/**
 * Where Fashion-MNIST lives and how to get it. Debian and Ubuntu ship it as the package {@code
 * dataset-fashion-mnist} (IDX files under /usr/share/datasets/fashion-mnist); any directory with
 * the four standard files, gzip-compressed or not, works too.
 */
public final class FashionMnist {
  /** Where Debian's {@code dataset-fashion-mnist} package installs the files. */
  public static final Path DEBIAN_DIR = Path.of("/usr/share/datasets/fashion-mnist");

  /** The ten class names, in label order. */
  public static final String[] CLASSES = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"
  };

  private final StoragePath dir;

  private FashionMnist(StoragePath dir) {
    this.dir = dir;
  }

  /**
   * The dataset in {@code dir}, or, when {@code dir} is null, in $SPARKNET_FASHION_MNIST_DIR or
   * else Debian's location. Absent files give an error that says how to get them.
   */
  public static FashionMnist locate(Path dir) {
    return locateAt(dir == null ? null : StoragePath.of(dir));
  }

  /** {@link #locate(Path)} of a directory on any Hadoop file system. */
  public static FashionMnist locateAt(StoragePath dir) {
    if (dir == null) {
      String env = System.getenv("SPARKNET_FASHION_MNIST_DIR");
      dir = StoragePath.of(env != null && !env.isBlank() ? Path.of(env) : DEBIAN_DIR);
    }
    FashionMnist data = new FashionMnist(dir);
    for (String name :
        new String[] {
          "train-images-idx3-ubyte",
          "train-labels-idx1-ubyte",
          "t10k-images-idx3-ubyte",
          "t10k-labels-idx1-ubyte"
        }) {
      if (data.file(name) == null) {
        throw new IllegalArgumentException(
            "Fashion-MNIST not found: "
                + dir.resolve(name + ".gz")
                + " does not exist. Install it with 'sudo apt-get install dataset-fashion-mnist'"
                + " (Debian/Ubuntu), or download the four IDX files from"
                + " https://github.com/zalandoresearch/fashion-mnist into a directory and pass"
                + " --data DIR (or set SPARKNET_FASHION_MNIST_DIR).");
      }
    }
    return data;
  }

  public StoragePath dir() {
    return dir;
  }

  public IdxDataset train() {
    return IdxDataset.open(
        file("train-images-idx3-ubyte"), file("train-labels-idx1-ubyte"), CLASSES.length);
  }

  public IdxDataset test() {
    return IdxDataset.open(
        file("t10k-images-idx3-ubyte"), file("t10k-labels-idx1-ubyte"), CLASSES.length);
  }

  private StoragePath file(String name) {
    for (String candidate : new String[] {name + ".gz", name}) {
      StoragePath p = dir.resolve(candidate);
      if (p.isFile()) {
        return p;
      }
    }
    return null;
  }
}
