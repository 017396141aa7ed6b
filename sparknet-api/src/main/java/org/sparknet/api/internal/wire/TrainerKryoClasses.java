package org.sparknet.api.internal.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.LinkedHashMap;
import java.util.Map;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.averaging.Averager;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.Example;
import org.sparknet.api.predict.OutputSums;

/**
 * The trainer's wire classes and their Kryo serializers, registered by {@code
 * org.sparknet.api.spark.SparkNetKryoRegistrator}. Records have hand-written serializers (they
 * cannot be filled field by field), and a flat {@code float[]} (or {@code short[]} when compressed)
 * written in bulk by {@link BulkArrays} is the cheapest form of the weights.
 */
public final class TrainerKryoClasses {
  private TrainerKryoClasses() {}

  /** The trainer's wire classes: examples, shards, round results, partial sums. */
  public static void register(Kryo kryo) {
    // Registering an array class again keeps its id and replaces its serializer.
    kryo.register(float[].class, new BulkArrays.FloatArraySerializer());
    kryo.register(float[][].class);
    kryo.register(double[].class);
    kryo.register(long[].class);
    kryo.register(int[].class);
    kryo.register(String[].class);
    kryo.register(Object[].class);
    kryo.register(Example.class, new ExampleSerializer());
    kryo.register(Example[].class);
    kryo.register(DataShard.class, new DataShardSerializer());
    kryo.register(DataShard[].class);
    kryo.register(PartitionResult.class, new PartitionResultSerializer());
    kryo.register(PartitionResult[].class);
    kryo.register(OutputSums.class, new OutputSumsSerializer());
    kryo.register(OutputSums[].class);
    kryo.register(Averager.Sum.class);
    kryo.register(RoundTotals.class);
    kryo.register(RoundTotals[].class);
    kryo.register(SolverState.class, new SolverStateSerializer());
    kryo.register(SolverState[].class);
    kryo.register(PartitionSolverState.class, new PartitionSolverStateSerializer());
    kryo.register(PartitionSolverState[].class);
    kryo.register(short[].class, new BulkArrays.ShortArraySerializer());
    kryo.register(Compression.class);
  }

  /** The iteration, then the history as a {@link WeightCollection} (its registered serializer). */
  static final class SolverStateSerializer extends Serializer<SolverState> {
    @Override
    public void write(Kryo kryo, Output out, SolverState s) {
      out.writeLong(s.iteration());
      kryo.writeObject(out, s.history());
    }

    @Override
    public SolverState read(Kryo kryo, Input in, Class<SolverState> type) {
      long iteration = in.readLong();
      return new SolverState(iteration, kryo.readObject(in, WeightCollection.class));
    }
  }

  static final class PartitionSolverStateSerializer extends Serializer<PartitionSolverState> {
    @Override
    public void write(Kryo kryo, Output out, PartitionSolverState r) {
      out.writeInt(r.partition());
      kryo.writeObjectOrNull(out, r.state(), SolverState.class);
    }

    @Override
    public PartitionSolverState read(Kryo kryo, Input in, Class<PartitionSolverState> type) {
      int partition = in.readInt();
      return new PartitionSolverState(partition, kryo.readObjectOrNull(in, SolverState.class));
    }
  }

  static final class ExampleSerializer extends Serializer<Example> {
    @Override
    public void write(Kryo kryo, Output out, Example e) {
      out.writeInt(e.features().length, true);
      BulkArrays.writeFloats(out, e.features(), 0, e.features().length);
      out.writeFloat(e.label());
    }

    @Override
    public Example read(Kryo kryo, Input in, Class<Example> type) {
      float[] f = new float[in.readInt(true)];
      BulkArrays.readFloats(in, f, 0, f.length);
      return new Example(f, in.readFloat());
    }
  }

  static final class DataShardSerializer extends Serializer<DataShard> {
    @Override
    public void write(Kryo kryo, Output out, DataShard s) {
      out.writeInt(s.partition());
      out.writeInt(s.featureSize(), true);
      out.writeInt(s.count(), true);
      BulkArrays.writeFloats(out, s.features(), 0, s.features().length);
      BulkArrays.writeFloats(out, s.labels(), 0, s.labels().length);
    }

    @Override
    public DataShard read(Kryo kryo, Input in, Class<DataShard> type) {
      int partition = in.readInt();
      int size = in.readInt(true);
      int count = in.readInt(true);
      float[] f = new float[Math.multiplyExact(size, count)];
      float[] l = new float[count];
      BulkArrays.readFloats(in, f, 0, f.length);
      BulkArrays.readFloats(in, l, 0, l.length);
      return new DataShard(partition, size, f, l);
    }
  }

  static final class PartitionResultSerializer extends Serializer<PartitionResult> {
    @Override
    public void write(Kryo kryo, Output out, PartitionResult r) {
      WorkerReport w = r.report();
      out.writeInt(w.partition());
      out.writeLong(w.examples());
      out.writeLong(w.steps());
      out.writeDouble(w.lossSum());
      out.writeLong(w.timings().setupMillis());
      out.writeLong(w.timings().computeMillis());
      out.writeLong(w.timings().extractMillis());
      out.writeBoolean(w.solverRestarted());
      out.writeString(w.divergence());
      out.writeString(w.device());
      out.writeLong(w.lineage());
      kryo.writeObjectOrNull(out, r.values(), float[].class);
      kryo.writeObjectOrNull(out, r.packed(), short[].class);
      out.writeDouble(r.weight());
    }

    @Override
    public PartitionResult read(Kryo kryo, Input in, Class<PartitionResult> type) {
      int partition = in.readInt();
      long examples = in.readLong();
      long steps = in.readLong();
      double lossSum = in.readDouble();
      WorkerReport.WorkerTimings timings =
          new WorkerReport.WorkerTimings(in.readLong(), in.readLong(), in.readLong());
      boolean restarted = in.readBoolean();
      String divergence = in.readString();
      WorkerReport report =
          new WorkerReport(
              partition,
              examples,
              steps,
              lossSum,
              timings,
              restarted,
              divergence,
              in.readString(),
              in.readLong());
      float[] values = kryo.readObjectOrNull(in, float[].class);
      short[] packed = kryo.readObjectOrNull(in, short[].class);
      return new PartitionResult(report, values, packed, in.readDouble());
    }
  }

  static final class OutputSumsSerializer extends Serializer<OutputSums> {
    @Override
    public void write(Kryo kryo, Output out, OutputSums s) {
      out.writeInt(s.sums().size(), true);
      for (Map.Entry<String, Double> e : s.sums().entrySet()) {
        out.writeString(e.getKey());
        out.writeDouble(e.getValue());
      }
      out.writeLong(s.examples());
    }

    @Override
    public OutputSums read(Kryo kryo, Input in, Class<OutputSums> type) {
      int n = in.readInt(true);
      Map<String, Double> sums = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        sums.put(in.readString(), in.readDouble());
      }
      return OutputSums.of(sums, in.readLong());
    }
  }
}
