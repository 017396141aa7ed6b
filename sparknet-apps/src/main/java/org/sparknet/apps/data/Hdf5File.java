package org.sparknet.apps.data;

import io.jhdf.HdfFile;
import io.jhdf.api.Dataset;
import io.jhdf.api.Node;
import io.jhdf.exceptions.HdfException;
import io.jhdf.object.datatype.DataType;
import io.jhdf.object.datatype.FixedPoint;
import io.jhdf.object.datatype.FloatingPoint;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Array;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;

/**
 * One HDF5 file of Caffe's {@code HDF5Data} layer, read with jhdf (pure Java): a dataset per top of
 * the layer (a data top and optionally a label top), each with the same first dimension N (the
 * rows), floating-point or integer values that are converted to float, as Caffe's {@code
 * hdf5_load_nd_dataset} converts them.
 *
 * <p>jhdf reads a local file (memory-mapped). On another Hadoop file system the header is read on
 * the driver through a seekable channel over the Hadoop stream (only the header's bytes travel); to
 * read rows, an executor copies the file to a local temporary file, deleted when it is read.
 */
final class Hdf5File {
  /** Values read from a dataset at once: bounds the nested arrays jhdf returns for a slice. */
  private static final int BLOCK_VALUES = 1 << 22;

  private final StoragePath path;
  private final int rows;
  private final int[] sampleDims;

  private Hdf5File(StoragePath path, int rows, int[] sampleDims) {
    this.path = path;
    this.rows = rows;
    this.sampleDims = sampleDims;
  }

  /**
   * Reads and checks the header of {@code path}: dataset {@code dataTop} and, when {@code labelTop}
   * is not null, dataset {@code labelTop} with one value a row and the same rows.
   */
  static Hdf5File open(StoragePath path, String dataTop, String labelTop) {
    try (HdfFile hdf = openHeader(path)) {
      Dataset data = dataset(hdf, path, dataTop);
      long[] dims = data.getDimensionsAsLong();
      int[] sample = new int[dims.length - 1];
      long perRow = 1;
      for (int i = 1; i < dims.length; i++) {
        sample[i - 1] = (int) dims[i];
        perRow *= dims[i];
      }
      if (perRow * dims[0] > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "HDF5 file "
                + path
                + ": dataset '"
                + dataTop
                + "' of shape "
                + Arrays.toString(dims)
                + " has more than "
                + Integer.MAX_VALUE
                + " values; split it over several files");
      }
      if (labelTop != null) {
        Dataset label = dataset(hdf, path, labelTop);
        long[] ldims = label.getDimensionsAsLong();
        if (ldims[0] != dims[0]) {
          throw new IllegalArgumentException(
              "HDF5 file "
                  + path
                  + ": dataset '"
                  + labelTop
                  + "' has "
                  + ldims[0]
                  + " rows but '"
                  + dataTop
                  + "' has "
                  + dims[0]
                  + "; every top's first dimension must be the same (Caffe checks it too)");
        }
        long perLabel = Arrays.stream(ldims).skip(1).reduce(1, Math::multiplyExact);
        if (perLabel != 1) {
          throw new IllegalArgumentException(
              "HDF5 file "
                  + path
                  + ": dataset '"
                  + labelTop
                  + "' has shape "
                  + Arrays.toString(ldims)
                  + ", "
                  + perLabel
                  + " values a row; a SparkNet example holds one label a row (shape [N] or"
                  + " [N, 1])");
        }
      }
      return new Hdf5File(path, (int) dims[0], sample);
    } catch (HdfException e) {
      throw notHdf5(path, e);
    }
  }

  StoragePath path() {
    return path;
  }

  int rows() {
    return rows;
  }

  /** The dimensions of one row of the data top (the dataset's dimensions after the first). */
  int[] sampleDims() {
    return sampleDims.clone();
  }

  /**
   * Rows {@code [from, to)} of {@code path} as examples (data values times {@code scale}; label -1
   * when {@code labelTop} is null), appended to {@code out}. On a non-local file system the file is
   * first copied to a local temporary file, deleted afterwards.
   */
  static void read(
      StoragePath path,
      String dataTop,
      String labelTop,
      int from,
      int to,
      float scale,
      List<Example> out) {
    if (from >= to) {
      return;
    }
    Path local = localFile(path);
    Path copy = local == null ? copyToTemp(path) : null;
    try (HdfFile hdf = new HdfFile(local != null ? local : copy)) {
      Dataset data = dataset(hdf, path, dataTop);
      Dataset label = labelTop == null ? null : dataset(hdf, path, labelTop);
      int[] dims = data.getDimensions();
      if (to > dims[0]) {
        throw new IllegalArgumentException(
            "HDF5 file "
                + path
                + " has "
                + dims[0]
                + " rows, fewer than the "
                + to
                + " it had when the list was opened; it changed since");
      }
      int perRow = Arrays.stream(dims).skip(1).reduce(1, Math::multiplyExact);
      int block = Math.max(1, BLOCK_VALUES / Math.max(1, perRow));
      for (int a = from; a < to; a += block) {
        int b = Math.min(to, a + block);
        float[] values = rows(data, a, b, scale);
        float[] labels = label == null ? null : rows(label, a, b, 1f);
        for (int r = 0; r < b - a; r++) {
          float[] features = Arrays.copyOfRange(values, r * perRow, (r + 1) * perRow);
          out.add(new Example(features, labels == null ? -1 : labels[r]));
        }
      }
    } catch (HdfException e) {
      throw notHdf5(path, e);
    } finally {
      if (copy != null) {
        deleteQuietly(copy);
      }
    }
  }

  /** Rows {@code [a, b)} of {@code ds} as floats, in row-major order, times {@code scale}. */
  private static float[] rows(Dataset ds, int a, int b, float scale) {
    int[] dims = ds.getDimensions();
    long[] offset = new long[dims.length];
    offset[0] = a;
    int[] slice = dims.clone();
    slice[0] = b - a;
    float[] out = new float[Arrays.stream(slice).reduce(1, Math::multiplyExact)];
    int n = flatten(ds.getData(offset, slice), out, 0, scale);
    if (n != out.length) {
      throw new IllegalStateException(
          "Read "
              + n
              + " values of dataset "
              + ds.getPath()
              + " where "
              + out.length
              + " were due");
    }
    return out;
  }

  /** Writes the numbers of jhdf's nested array {@code arr} into {@code out} from {@code pos}. */
  private static int flatten(Object arr, float[] out, int pos, float scale) {
    if (arr instanceof Object[] nested && !(arr instanceof BigInteger[])) {
      for (Object o : nested) {
        pos = flatten(o, out, pos, scale);
      }
      return pos;
    }
    ElementReader element = reader(arr);
    int n = Array.getLength(arr);
    for (int i = 0; i < n; i++) {
      out[pos++] = element.at(i) * scale;
    }
    return pos;
  }

  /** Element {@code i} of one innermost array, converted to float as Java's arithmetic would. */
  private interface ElementReader {
    float at(int i);
  }

  /** The reader of a flat array of any element type jhdf returns for the numeric types. */
  private static ElementReader reader(Object arr) {
    if (arr instanceof float[] f) {
      return i -> f[i];
    } else if (arr instanceof double[] d) {
      return i -> (float) d[i];
    } else if (arr instanceof byte[] x) {
      return i -> x[i];
    } else if (arr instanceof short[] x) {
      return i -> x[i];
    } else if (arr instanceof int[] x) {
      return i -> x[i];
    } else if (arr instanceof long[] x) {
      return i -> x[i];
    } else if (arr instanceof BigInteger[] x) {
      return i -> x[i].floatValue();
    }
    throw new IllegalStateException("jhdf returned a " + arr.getClass() + " for a slice");
  }

  /** Dataset {@code name} of the file's root group, checked: rows, a numeric type. */
  private static Dataset dataset(HdfFile hdf, StoragePath path, String name) {
    Map<String, Node> children = hdf.getChildren();
    Node node = children.get(name);
    if (!(node instanceof Dataset ds)) {
      List<String> have = new ArrayList<>();
      for (Node c : children.values()) {
        have.add(c.getName() + (c instanceof Dataset ? "" : " (" + c.getType() + ")"));
      }
      throw new IllegalArgumentException(
          "HDF5 file "
              + path
              + " has no dataset '"
              + name
              + "' (it has: "
              + (have.isEmpty() ? "nothing" : String.join(", ", have))
              + "); the layer's tops name the datasets it reads");
    }
    DataType type = ds.getDataType();
    if (!(type instanceof FloatingPoint) && !(type instanceof FixedPoint)) {
      throw new IllegalArgumentException(
          "HDF5 file "
              + path
              + ": dataset '"
              + name
              + "' holds "
              + type.getClass().getSimpleName()
              + " values; Caffe's HDF5Data reads floating-point and integer datasets only");
    }
    if (ds.isScalar() || ds.isEmpty() || ds.getDimensionsAsLong()[0] == 0) {
      throw new IllegalArgumentException(
          "HDF5 file "
              + path
              + ": dataset '"
              + name
              + "' of shape "
              + Arrays.toString(ds.getDimensionsAsLong())
              + " has no rows; a top needs a first dimension N >= 1");
    }
    return ds;
  }

  private static IllegalArgumentException notHdf5(StoragePath path, HdfException e) {
    return new IllegalArgumentException("Cannot read HDF5 file " + path + ": " + e.getMessage(), e);
  }

  /** The header reader: the local file, or a channel over the Hadoop stream. */
  private static HdfFile openHeader(StoragePath path) {
    Path local = localFile(path);
    if (local != null) {
      return new HdfFile(local);
    }
    return new HdfFile(new HadoopByteChannel(path), path.toUri());
  }

  /** The local path of {@code path}, or null when it is on another file system. */
  private static Path localFile(StoragePath path) {
    return "file".equals(path.toUri().getScheme()) ? Path.of(path.toUri()) : null;
  }

  private static Path copyToTemp(StoragePath path) {
    try {
      Path tmp = Files.createTempFile("sparknet-hdf5-", ".h5");
      try (InputStream in = path.open()) {
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException | RuntimeException e) {
        deleteQuietly(tmp);
        throw e;
      }
      return tmp;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot copy " + path + " to a local temporary file", e);
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      p.toFile().deleteOnExit();
    }
  }
}
