package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bytedeco.caffe.BlobProto;
import org.bytedeco.caffe.FloatBlobSharedVector;
import org.bytedeco.caffe.FloatLayerSharedVector;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.caffe.LayerParameter;
import org.bytedeco.caffe.NetParameter;
import org.sparknet.ndarray.Shape;

/**
 * A net's trained layers as Caffe's {@code .caffemodel} holds them (a binary NetParameter), both
 * ways: written with Caffe's {@code ToProto}, and copied in with Caffe's {@code
 * CopyTrainedLayersFrom} after a check in Java that every learnable layer of the net is in the file
 * with the same number and shapes of blobs (Caffe's own copy would abort the JVM on a mismatch).
 * Callers set the thread's Caffe device and a pointer scope.
 */
public final class TrainedLayers {
  private TrainedLayers() {}

  /** The trained layers of {@code net} as the bytes of a .caffemodel. */
  public static byte[] toBytes(FloatNet net) {
    NetParameter np = new NetParameter();
    net.ToProto(np, false);
    return CaffeRuntime.bytes(np);
  }

  /**
   * Copies the layers of {@code file} into {@code net} (V1 files upgraded as Caffe does, {@link
   * LegacyWeights}); layers the net does not have are ignored, as Caffe does.
   *
   * @throws IllegalArgumentException naming {@code source} and every mismatch; nothing changed
   */
  public static void copy(
      NetParameter file, String source, FloatNet net, LearnableParams params, String netName) {
    NetParameter model = LegacyWeights.upgrade(file, source);
    Map<String, List<Shape>> expected = blobShapes(net);
    List<String> problems = new ArrayList<>();
    Set<String> found = new LinkedHashSet<>();
    for (int i = 0; i < model.layer_size(); i++) {
      LayerParameter lp = model.layer(i);
      String name = lp.has_name() ? lp.name().getString() : "";
      List<Shape> want = expected.get(name);
      if (want != null) {
        found.add(name);
        problems.addAll(problems(lp, name, want));
      }
    }
    Set<String> missing = new LinkedHashSet<>();
    for (LearnableParams.Param p : params.list()) {
      if (!found.contains(p.layer())) {
        missing.add(p.layer());
      }
    }
    if (!missing.isEmpty()) {
      problems.add("learnable layers missing from the file: " + List.copyOf(missing));
    }
    BlobShapes.rejectMismatch("Weights file " + source, netName, problems);
    net.CopyTrainedLayersFrom(model);
  }

  /** The shapes of every layer's blobs, by layer name. */
  private static Map<String, List<Shape>> blobShapes(FloatNet net) {
    Map<String, List<Shape>> expected = new LinkedHashMap<>();
    FloatLayerSharedVector layers = net.layers();
    for (long i = 0; i < layers.size(); i++) {
      FloatBlobSharedVector blobs = layers.get(i).blobs();
      List<Shape> shapes = new ArrayList<>();
      for (long j = 0; j < blobs.size(); j++) {
        shapes.add(BlobShapes.of(blobs.get(j)));
      }
      expected.put(net.layer_names().get(i).getString(), shapes);
    }
    return expected;
  }

  private static List<String> problems(LayerParameter lp, String name, List<Shape> want) {
    if (lp.blobs_size() != want.size()) {
      return List.of(
          "layer '" + name + "' has " + lp.blobs_size() + " blobs, the net has " + want.size());
    }
    List<String> problems = new ArrayList<>();
    for (int j = 0; j < want.size(); j++) {
      BlobProto bp = lp.blobs(j);
      Shape got = BlobShapes.of(bp);
      if (!BlobShapes.fits(bp, want.get(j))) {
        problems.add(
            "layer '"
                + name
                + "' blob "
                + j
                + " has shape "
                + got
                + ", the net has "
                + want.get(j));
      } else if (bp.data_size() != got.size()) {
        problems.add("layer '" + name + "' blob " + j + " " + BlobShapes.sizeProblem(bp, got));
      }
    }
    return problems;
  }
}
