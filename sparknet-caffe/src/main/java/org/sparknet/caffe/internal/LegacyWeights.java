package org.sparknet.caffe.internal;

import org.bytedeco.caffe.BlobProto;
import org.bytedeco.caffe.LayerParameter;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.caffe.V1LayerParameter;

/**
 * The weights of a {@code .caffemodel} written in Caffe's V1 or V0 layer format ({@code layers},
 * field 2) as current {@code layer}s with the same names and blobs, which is all that copying
 * trained layers by name reads of Caffe's own upgrade ({@code ReadNetParamsFromBinaryFileOrDie}
 * upgrades a weights file as it reads it). The blobs keep their legacy 4-D fields; {@link
 * BlobShapes#fits} matches them to the net's shapes as Caffe's copy does.
 */
public final class LegacyWeights {
  private LegacyWeights() {}

  /**
   * {@code model} when it is current, else a new NetParameter (in the caller's pointer scope) with
   * one layer per V1 layer: its name and blobs, or, for a V0 net, its V0 layer's.
   *
   * @throws IllegalArgumentException naming {@code source} when the file has layers in both formats
   *     (Caffe aborts on such a file)
   */
  public static NetParameter upgrade(NetParameter model, String source) {
    if (model.layers_size() == 0) {
      return model;
    }
    if (model.layer_size() > 0) {
      throw new IllegalArgumentException(
          "Weights file "
              + source
              + " has layers in both the V1 (layers) and the current (layer) format; Caffe"
              + " refuses to read such a file");
    }
    boolean v0 = false;
    for (int i = 0; i < model.layers_size(); i++) {
      v0 |= model.layers(i).has_layer();
    }
    NetParameter out = new NetParameter();
    // set_name of an absent name crashes the JVM (the getter hands back a null pointer): copy names
    // only where the file has them, as Strings
    if (model.has_name()) {
      out.set_name(model.name().getString());
    }
    for (int i = 0; i < model.layers_size(); i++) {
      V1LayerParameter v1 = model.layers(i);
      LayerParameter lp = out.add_layer();
      // Caffe's V0 upgrade rebuilds every layer from its V0 part, dropping what lies beside it
      if (v0) {
        if (v1.layer().has_name()) {
          lp.set_name(v1.layer().name().getString());
        }
        for (int j = 0; j < v1.layer().blobs_size(); j++) {
          copyBlob(v1.layer().blobs(j), lp);
        }
      } else {
        if (v1.has_name()) {
          lp.set_name(v1.name().getString());
        }
        for (int j = 0; j < v1.blobs_size(); j++) {
          copyBlob(v1.blobs(j), lp);
        }
      }
    }
    return out;
  }

  private static void copyBlob(BlobProto from, LayerParameter to) {
    to.add_blobs().CopyFrom(from);
  }
}
