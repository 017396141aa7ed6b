package org.sparknet.bench.loop;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.SerializerInstance;
import org.sparknet.api.averaging.Averager;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.spark.SparkNetKryoRegistrator;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * The pieces of a round's weight traffic timed one by one on flat arrays of an AlexNet-sized net's
 * size, in this JVM, against {@code System.arraycopy} of the same array: serialisation (Java,
 * Kryo's own {@code float[]} serializer, SparkNet's bulk one), allocation, averaging (the former
 * one-thread double sum and {@link Averager}'s parallel float rule) and the 16-bit codecs. Each
 * figure is the median of {@code reps} timings after one untimed run.
 */
final class WeightComponents {
  private static final ClassTag<float[]> FLOATS = ClassTag$.MODULE$.apply(float[].class);

  /** One timed piece: what it is, how it is done, milliseconds (median). */
  record Row(String piece, String how, double millis) {}

  private final int floats;
  private final int reps;
  private final float[] a;
  private final float[] b;
  private final List<Row> rows = new ArrayList<>();

  WeightComponents(int floats, int reps) {
    this.floats = floats;
    this.reps = reps;
    this.a = gaussian(floats, 1);
    this.b = a.clone();
    SplittableRandom r = new SplittableRandom(2);
    for (int i = 0; i < floats; i++) {
      b[i] += (float) (1e-3 * r.nextGaussian()); // a second worker: close to the first
    }
  }

  static float[] gaussian(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = (float) (0.01 * r.nextGaussian());
    }
    return x;
  }

  /** Times every piece; returns the rows, the copy baseline first. */
  List<Row> measure() {
    float[] dst = new float[floats];
    time(
        "copy",
        "`System.arraycopy`, heap to heap (the baseline)",
        () -> {
          System.arraycopy(a, 0, dst, 0, floats);
          return dst;
        });
    time("allocate", "`new float[n]` (the JVM zeroes it)", () -> new float[floats]);
    serialisation("Java serialisation", new JavaSerializer(new SparkConf()).newInstance());
    serialisation("Kryo, its own `float[]` serializer", kryo(false));
    serialisation("Kryo, SparkNet's `BulkArrays`", kryo(true));
    time(
        "average 2",
        "`Averager.Sum`: double, one thread (the driver's former rule)",
        () -> new Averager.Sum().add(a, 3).add(b, 5).mean());
    time(
        "average 2",
        "`Averager.weightedMean`: float, parallel chunks",
        () -> Averager.weightedMean(List.of(a, b), new double[] {3, 5}));
    for (Compression c : List.of(Compression.FP16, Compression.BF16)) {
      short[] p0 = new short[floats];
      short[] p1 = new short[floats];
      time(
          "encode 16-bit",
          c.cliName() + " offsets from the centre, one worker",
          () -> {
            c.encodeOffsets(b, a, p0, 0, floats);
            return p0;
          });
      c.encodeOffsets(a, b, p1, 0, floats);
      time(
          "average 2 in 16 bits",
          c.cliName() + ": centre + weighted mean of decoded offsets, parallel",
          () -> Averager.offset(a, List.of(p0, p1), c, new double[] {0.375, 0.625}));
    }
    return rows;
  }

  private void serialisation(String how, SerializerInstance ser) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(floats * 4 + 1024);
    time(
        "serialise",
        how,
        () -> {
          out.reset();
          SerializationStream s = ser.serializeStream(out);
          s.writeObject(a, FLOATS);
          s.close();
          return out;
        });
    byte[] bytes = out.toByteArray();
    time(
        "deserialise",
        how,
        () -> ser.deserializeStream(new ByteArrayInputStream(bytes)).readObject(FLOATS));
  }

  /**
   * Bytes per second at which {@code floats} floats are serialised and deserialised once each with
   * SparkNet's Kryo setup (the S of {@link CostModel}): the median of {@code reps} timings.
   */
  static double serialisationBytesPerSecond(int floats, int reps) {
    WeightComponents w = new WeightComponents(floats, reps);
    w.serialisation("S", kryo(true));
    double seconds = (w.rows.get(0).millis() + w.rows.get(1).millis()) / 1000;
    return floats * 4.0 / seconds;
  }

  private static SerializerInstance kryo(boolean bulk) {
    SparkConf conf = new SparkConf().set("spark.kryo.registrationRequired", "false");
    if (bulk) {
      conf.set("spark.kryo.registrator", SparkNetKryoRegistrator.class.getName());
    }
    return new KryoSerializer(conf).newInstance();
  }

  private void time(String piece, String how, Supplier<Object> work) {
    work.get(); // untimed: compiles, touches the pages
    List<Double> ms = new ArrayList<>();
    for (int r = 0; r < reps; r++) {
      long t0 = System.nanoTime();
      Object keep = work.get();
      ms.add((System.nanoTime() - t0) / 1e6);
      if (keep == null) {
        throw new IllegalStateException(piece + " returned nothing");
      }
    }
    rows.add(new Row(piece, how, Spread.of(ms).median()));
  }
}
