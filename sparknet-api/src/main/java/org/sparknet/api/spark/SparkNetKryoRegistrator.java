package org.sparknet.api.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.serializer.KryoRegistrator;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.api.internal.wire.BulkArrays;
import org.sparknet.api.internal.wire.TrainerKryoClasses;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;
import org.sparknet.ndarray.kryo.NDArraySerializer;
import org.sparknet.ndarray.kryo.ShapeSerializer;

/**
 * Registers with Kryo every SparkNet class that crosses the wire, so that Spark can run with {@code
 * spark.kryo.registrationRequired=true}. Set {@code spark.kryo.registrator} to this class's name.
 * Registration order fixes the class ids: keep appending, never reorder.
 *
 * <p>{@link NDArray} is registered with {@link NDArraySerializer}: a deserialized array is a new
 * owning array over native memory, which the receiver must close.
 */
public final class SparkNetKryoRegistrator implements KryoRegistrator {

  @Override
  public void registerClasses(Kryo kryo) {
    kryo.register(float[].class);
    kryo.register(int[].class);
    kryo.register(long[].class);
    kryo.register(double[].class);
    kryo.register(float[][].class);
    kryo.register(String[].class);
    kryo.register(Shape.class, new ShapeSerializer());
    kryo.register(NDArray.class, new NDArraySerializer());
    kryo.register(Tensor.class, new TensorSerializer());
    kryo.register(Tensor[].class);
    kryo.register(WeightCollection.class, new WeightCollectionSerializer());
    kryo.register(WeightCollection[].class);
    TrainerKryoClasses.register(kryo);
  }

  /** A weight array: its shape, then its floats (their count follows from the shape). */
  public static final class TensorSerializer extends Serializer<Tensor> {
    public TensorSerializer() {
      super(false, false);
    }

    @Override
    public void write(Kryo kryo, Output output, Tensor tensor) {
      writeTensor(output, tensor);
    }

    @Override
    public Tensor read(Kryo kryo, Input input, Class<Tensor> type) {
      return readTensor(input);
    }

    @Override
    public Tensor copy(Kryo kryo, Tensor original) {
      return new Tensor(original.shape(), original.data().clone());
    }
  }

  /**
   * Compact form of a {@link WeightCollection}: the number of layers, then per layer its name, the
   * number of arrays, and each array's shape and raw floats. No class names, no map or list
   * overhead.
   */
  public static final class WeightCollectionSerializer extends Serializer<WeightCollection> {
    public WeightCollectionSerializer() {
      super(false, false);
    }

    @Override
    public void write(Kryo kryo, Output output, WeightCollection weights) {
      List<String> names = weights.layerNames();
      output.writeVarInt(names.size(), true);
      for (String name : names) {
        List<Tensor> ts = weights.get(name);
        output.writeString(name);
        output.writeVarInt(ts.size(), true);
        for (Tensor t : ts) {
          writeTensor(output, t);
        }
      }
    }

    @Override
    public WeightCollection read(Kryo kryo, Input input, Class<WeightCollection> type) {
      int layers = input.readVarInt(true);
      WeightCollection w = new WeightCollection();
      for (int l = 0; l < layers; l++) {
        String name = input.readString();
        if (name == null) {
          throw new KryoException("Corrupt WeightCollection: layer " + l + " has no name");
        }
        int n = input.readVarInt(true);
        List<Tensor> ts = new ArrayList<>(Math.min(n, 64));
        for (int i = 0; i < n; i++) {
          ts.add(readTensor(input));
        }
        try {
          w.put(name, ts);
        } catch (IllegalArgumentException e) {
          throw new KryoException("Corrupt WeightCollection: " + e.getMessage(), e);
        }
      }
      return w;
    }

    @Override
    public WeightCollection copy(Kryo kryo, WeightCollection original) {
      return original.copy();
    }
  }

  static void writeTensor(Output output, Tensor t) {
    ShapeSerializer.writeShape(output, t.shape());
    BulkArrays.writeFloats(output, t.data(), 0, t.data().length);
  }

  static Tensor readTensor(Input input) {
    Shape shape = ShapeSerializer.readShape(input);
    if (shape.size() > Integer.MAX_VALUE - 8) {
      throw new KryoException("Corrupt weight array: shape " + shape + " is too large");
    }
    float[] data = new float[(int) shape.size()];
    BulkArrays.readFloats(input, data, 0, data.length);
    return new Tensor(shape, data);
  }
}
