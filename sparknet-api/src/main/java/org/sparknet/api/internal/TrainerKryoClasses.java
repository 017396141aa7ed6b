package org.sparknet.api.internal;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.Example;

/**
 * The trainer's wire classes and their Kryo serializers, registered by {@link
 * SparkNetKryoRegistrator}. They have hand-written serializers: records cannot be filled field by
 * field, and a flat {@code float[]} written in one call is the cheapest form of the weights.
 */
final class TrainerKryoClasses {
  private TrainerKryoClasses() {}

  /** The trainer's wire classes: examples, shards, round results, partial sums. */
  static void register(Kryo kryo) {
    kryo.register(float[].class);
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
    kryo.register(WorkerRound.TestResult.class, new TestResultSerializer());
    kryo.register(WorkerRound.TestResult[].class);
    kryo.register(WeightSum.class);
    kryo.register(WeightSum[].class);
    kryo.register(SolverState.class, new SolverStateSerializer());
    kryo.register(SolverState[].class);
    kryo.register(WorkerRound.StateResult.class, new StateResultSerializer());
    kryo.register(WorkerRound.StateResult[].class);
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

  static final class StateResultSerializer extends Serializer<WorkerRound.StateResult> {
    @Override
    public void write(Kryo kryo, Output out, WorkerRound.StateResult r) {
      out.writeInt(r.partition());
      kryo.writeObjectOrNull(out, r.state(), SolverState.class);
    }

    @Override
    public WorkerRound.StateResult read(Kryo kryo, Input in, Class<WorkerRound.StateResult> type) {
      int partition = in.readInt();
      return new WorkerRound.StateResult(partition, kryo.readObjectOrNull(in, SolverState.class));
    }
  }

  static final class ExampleSerializer extends Serializer<Example> {
    @Override
    public void write(Kryo kryo, Output out, Example e) {
      out.writeInt(e.features().length, true);
      out.writeFloats(e.features());
      out.writeFloat(e.label());
    }

    @Override
    public Example read(Kryo kryo, Input in, Class<Example> type) {
      int n = in.readInt(true);
      float[] f = in.readFloats(n);
      return new Example(f, in.readFloat());
    }
  }

  static final class DataShardSerializer extends Serializer<DataShard> {
    @Override
    public void write(Kryo kryo, Output out, DataShard s) {
      out.writeInt(s.partition());
      out.writeInt(s.featureSize(), true);
      out.writeInt(s.count(), true);
      out.writeFloats(s.features());
      out.writeFloats(s.labels());
    }

    @Override
    public DataShard read(Kryo kryo, Input in, Class<DataShard> type) {
      int partition = in.readInt();
      int size = in.readInt(true);
      int count = in.readInt(true);
      float[] f = in.readFloats(size * count);
      float[] l = in.readFloats(count);
      return new DataShard(partition, size, f, l);
    }
  }

  static final class PartitionResultSerializer extends Serializer<PartitionResult> {
    @Override
    public void write(Kryo kryo, Output out, PartitionResult r) {
      out.writeInt(r.partition);
      out.writeLong(r.examples);
      out.writeLong(r.steps);
      out.writeDouble(r.lossSum);
      out.writeInt(r.values == null ? -1 : r.values.length);
      if (r.values != null) {
        out.writeFloats(r.values);
      }
      out.writeDouble(r.weight);
      out.writeString(r.divergence);
      out.writeLong(r.setupMillis);
      out.writeLong(r.computeMillis);
      out.writeLong(r.extractMillis);
      out.writeBoolean(r.solverRestarted);
    }

    @Override
    public PartitionResult read(Kryo kryo, Input in, Class<PartitionResult> type) {
      int partition = in.readInt();
      long examples = in.readLong();
      long steps = in.readLong();
      double lossSum = in.readDouble();
      int n = in.readInt();
      float[] values = n < 0 ? null : in.readFloats(n);
      return new PartitionResult(
          partition,
          examples,
          steps,
          lossSum,
          values,
          in.readDouble(),
          in.readString(),
          in.readLong(),
          in.readLong(),
          in.readLong(),
          in.readBoolean());
    }
  }

  static final class TestResultSerializer extends Serializer<WorkerRound.TestResult> {
    @Override
    public void write(Kryo kryo, Output out, WorkerRound.TestResult r) {
      out.writeInt(r.names().length, true);
      for (int i = 0; i < r.names().length; i++) {
        out.writeString(r.names()[i]);
        out.writeDouble(r.sums()[i]);
      }
      out.writeLong(r.examples());
    }

    @Override
    public WorkerRound.TestResult read(Kryo kryo, Input in, Class<WorkerRound.TestResult> type) {
      int n = in.readInt(true);
      String[] names = new String[n];
      double[] sums = new double[n];
      for (int i = 0; i < n; i++) {
        names[i] = in.readString();
        sums[i] = in.readDouble();
      }
      return new WorkerRound.TestResult(names, sums, in.readLong());
    }
  }
}
