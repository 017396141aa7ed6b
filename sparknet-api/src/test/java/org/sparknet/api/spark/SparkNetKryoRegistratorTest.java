package org.sparknet.api.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.Test;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.internal.wire.PartitionResult;
import org.sparknet.api.internal.wire.PartitionSolverState;
import org.sparknet.api.internal.wire.RoundTotals;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.api.internal.wire.WorkerReport;
import org.sparknet.api.predict.OutputSums;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;
import org.sparknet.ndarray.Storage;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Spark's own KryoSerializer (no SparkContext) with this registrator and {@code
 * spark.kryo.registrationRequired=true}: what SparkNet ships must be registered.
 */
class SparkNetKryoRegistratorTest {

  static SerializerInstance kryo() {
    SparkConf conf =
        new SparkConf(false)
            .set("spark.kryo.registrationRequired", "true")
            .set("spark.kryo.registrator", SparkNetKryoRegistrator.class.getName());
    return new KryoSerializer(conf).newInstance();
  }

  static <T> ClassTag<T> tag(Class<T> c) {
    return ClassTag$.MODULE$.apply(c);
  }

  static WeightCollection weights() {
    Random rnd = new Random(4);
    float[] w = new float[500 * 20];
    for (int i = 0; i < w.length; i++) {
      w[i] = (float) rnd.nextGaussian();
    }
    w[7] = Float.NaN;
    w[8] = -0f;
    return new WeightCollection()
        .put(
            "conv1",
            List.of(
                new Tensor(Shape.of(20, 1, 5, 5), java.util.Arrays.copyOf(w, 500)),
                new Tensor(Shape.of(20), new float[20])))
        .put("ip1", List.of(new Tensor(Shape.of(500, 19), java.util.Arrays.copyOf(w, 9500))))
        .put("empty", List.of());
  }

  @Test
  void weightCollectionRoundTripsExactlyAndCompactly() {
    SerializerInstance ser = kryo();
    WeightCollection w = weights();
    ByteBuffer bytes = ser.serialize(w, tag(WeightCollection.class));
    int size = bytes.remaining();
    WeightCollection back = ser.deserialize(bytes, tag(WeightCollection.class));

    assertEquals(w.layerNames(), back.layerNames());
    assertNull(w.structureDifference(back));
    for (String layer : w.layerNames()) {
      for (int i = 0; i < w.get(layer).size(); i++) {
        float[] a = w.get(layer).get(i).data();
        float[] b = back.get(layer).get(i).data();
        for (int j = 0; j < a.length; j++) {
          assertEquals(Float.floatToRawIntBits(a[j]), Float.floatToRawIntBits(b[j]), layer + j);
        }
      }
    }
    // raw floats plus names and shapes: under 64 bytes of overhead for 3 layers
    long payload = 4 * w.numFloats();
    assertTrue(
        size >= payload && size < payload + 64,
        "Kryo form is " + size + " bytes for " + payload + " bytes of floats");
  }

  @Test
  void solverStatesRoundTripAlsoInArraysAndPartitionResults() {
    SerializerInstance ser = kryo();
    SolverState st = new SolverState(1234567890123L, weights());
    SolverState[] arr = {st, null};
    SolverState[] back =
        ser.deserialize(ser.serialize(arr, tag(SolverState[].class)), tag(SolverState[].class));
    assertEquals(2, back.length);
    assertNull(back[1]);
    assertEquals(st.iteration(), back[0].iteration());
    assertEquals(st.history().layerNames(), back[0].history().layerNames());
    WeightLayout layout = WeightLayout.of(st.history());
    assertNull(layout.structureDifference(back[0].history()));
    assertTrue(
        java.util.Arrays.equals( // NaN included
            layout.flatten(st.history()), layout.flatten(back[0].history())));
    PartitionSolverState none =
        ser.deserialize(
            ser.serialize(new PartitionSolverState(3, null), tag(PartitionSolverState.class)),
            tag(PartitionSolverState.class));
    assertEquals(3, none.partition());
    assertNull(none.state());
  }

  @Test
  void tensorShapeAndArraysRoundTripOnTheirOwn() {
    SerializerInstance ser = kryo();
    Tensor t = new Tensor(Shape.of(2, 3), new float[] {1, 2, 3, 4, 5, 6});
    Tensor back = ser.deserialize(ser.serialize(t, tag(Tensor.class)), tag(Tensor.class));
    assertEquals(t.shape(), back.shape());
    NDAssert.assertAllClose(t.data(), back.data(), Tolerance.EXACT);
    assertEquals(
        Shape.of(4, 0, 2),
        ser.deserialize(ser.serialize(Shape.of(4, 0, 2), tag(Shape.class)), tag(Shape.class)));
    float[] f = {1.5f, -2f};
    NDAssert.assertAllClose(
        f,
        ser.deserialize(ser.serialize(f, tag(float[].class)), tag(float[].class)),
        Tolerance.EXACT);
    int[] ints = {3, 1, 4};
    assertEquals(
        List.of(3, 1, 4),
        java.util.Arrays.stream(
                ser.deserialize(ser.serialize(ints, tag(int[].class)), tag(int[].class)))
            .boxed()
            .toList());
  }

  @Test
  void ndArrayRoundTripMakesANewOwningArray() {
    SerializerInstance ser = kryo();
    long blocks = Storage.liveOwnedBlocks();
    try (NDArray a = NDArray.create(new float[] {1, 2, 3, 4, 5, 6}, 3, 2)) {
      ByteBuffer bytes = ser.serialize(a.slice(1, 1), tag(NDArray.class));
      try (NDArray back = ser.deserialize(bytes, tag(NDArray.class))) {
        assertTrue(back.isOwner());
        assertEquals(blocks + 2, Storage.liveOwnedBlocks());
        NDAssert.assertAllClose(new float[] {2, 4, 6}, back, Tolerance.EXACT);
      }
    }
  }

  @Test
  void roundResultsTotalsAndTestSumsRoundTrip() {
    SerializerInstance ser = kryo();
    float[] w = {1f, Float.NaN, -3.5f};
    WorkerReport report =
        new WorkerReport(
            2,
            128,
            50,
            17.25,
            new WorkerReport.WorkerTimings(3, 900, 4),
            true,
            null,
            "gpu:1",
            0x7A3B_11C0_5E9D_0042L);
    PartitionResult r = new PartitionResult(report, w, 128);
    PartitionResult back =
        ser.deserialize(ser.serialize(r, tag(PartitionResult.class)), tag(PartitionResult.class));
    assertEquals(report, back.report());
    assertTrue(java.util.Arrays.equals(w, back.values()));
    assertEquals(128.0, back.weight());
    PartitionResult idle =
        ser.deserialize(
            ser.serialize(PartitionResult.idle(5), tag(PartitionResult.class)),
            tag(PartitionResult.class));
    assertEquals(PartitionResult.idle(5).report(), idle.report());
    assertNull(idle.values());

    float[] x = {2f, 4f, 8f};
    RoundTotals totals = new RoundTotals(Compression.NONE).add(new PartitionResult(report, x, 128));
    RoundTotals totalsBack =
        ser.deserialize(ser.serialize(totals, tag(RoundTotals.class)), tag(RoundTotals.class));
    NDAssert.assertAllClose(x, totalsBack.sum().mean(), Tolerance.EXACT);
    assertEquals(List.of(2), totalsBack.restartedPartitions());
    assertEquals(128, totalsBack.examplesOf(2));

    OutputSums sums = new OutputSums().addBatch(java.util.Map.of("accuracy", 0.5f), 10);
    OutputSums sumsBack =
        ser.deserialize(ser.serialize(sums, tag(OutputSums.class)), tag(OutputSums.class));
    assertEquals(sums.sums(), sumsBack.sums());
    assertEquals(10, sumsBack.examples());
  }

  /** Proves the configuration is strict: an unregistered class is refused. */
  record Unregistered(int x) {}

  @Test
  void unregisteredClassesAreRefused() {
    SerializerInstance ser = kryo();
    Exception e =
        assertThrows(
            Exception.class, () -> ser.serialize(new Unregistered(1), tag(Unregistered.class)));
    assertTrue(String.valueOf(e.getMessage()).contains("Class is not registered"), e.getMessage());
  }
}
