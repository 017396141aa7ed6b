package org.sparknet.api;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.api.storage.FormatHeader;
import org.sparknet.ndarray.Shape;

/**
 * SparkNet's engine-neutral weights file: magic "SNWC", version 1, the number of layers, then per
 * layer its name (modified UTF-8), the number of arrays and each array's rank, dimensions and
 * big-endian floats. Used by engines that have no weights file format of their own.
 */
public final class WeightsFile {
  private static final FormatHeader HEADER =
      new FormatHeader(0x534e5743, 1, "weights file"); // "SNWC"

  private WeightsFile() {}

  public static byte[] encode(WeightCollection weights) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      HEADER.write(out);
      out.writeInt(weights.numLayers());
      for (String layer : weights.layerNames()) {
        List<Tensor> ts = weights.get(layer);
        out.writeUTF(layer);
        out.writeInt(ts.size());
        for (Tensor t : ts) {
          out.writeInt(t.shape().rank());
          for (int d = 0; d < t.shape().rank(); d++) {
            out.writeInt(t.shape().dim(d));
          }
          for (float v : t.data()) {
            out.writeFloat(v);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  /**
   * @throws IllegalArgumentException naming {@code source} when the bytes are not this format
   */
  public static WeightCollection decode(byte[] bytes, String source) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      String mismatch = HEADER.mismatch(in, source);
      if (mismatch != null) {
        throw new IllegalArgumentException(mismatch);
      }
      int layers = in.readInt();
      WeightCollection w = new WeightCollection();
      for (int l = 0; l < layers; l++) {
        String name = in.readUTF();
        int n = in.readInt();
        List<Tensor> ts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          int rank = in.readInt();
          if (rank < 0 || rank > 32) {
            throw new IllegalArgumentException(
                source + " is corrupt: layer '" + name + "' array " + i + " has rank " + rank);
          }
          int[] dims = new int[rank];
          long size = 1;
          for (int d = 0; d < rank; d++) {
            dims[d] = in.readInt();
            size *= dims[d];
          }
          if (size < 0 || size > bytes.length / Float.BYTES) {
            throw new IllegalArgumentException(
                source
                    + " is corrupt: layer '"
                    + name
                    + "' array "
                    + i
                    + " claims "
                    + size
                    + " floats");
          }
          float[] data = new float[(int) size];
          for (int j = 0; j < data.length; j++) {
            data[j] = in.readFloat();
          }
          ts.add(new Tensor(Shape.of(dims), data));
        }
        w.put(name, ts);
      }
      return w;
    } catch (EOFException e) {
      throw new IllegalArgumentException(source + " is truncated", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
