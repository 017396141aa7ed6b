package org.sparknet.caffe.internal;

import java.util.List;
import org.bytedeco.caffe.FloatLayer;
import org.bytedeco.caffe.FloatLayerRegistry;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * The bottom and top counts that Caffe CHECKs when it sets a layer up (aborting the JVM), asked of
 * each layer's own class before the net is built.
 */
final class LayerArity {
  private LayerArity() {}

  static void check(Message net, String source) {
    NetParameter np = new NetParameter();
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.readText(TextFormat.print(net), np, source);
      List<Field> layers = net.all("layer");
      for (int i = 0; i < np.layer_size(); i++) {
        Message lm = layers.get(i).message();
        int nb = lm.all("bottom").size();
        int nt = lm.all("top").size();
        FloatLayer layer = FloatLayerRegistry.CreateLayer(np.layer(i));
        String what = NetPlan.describe(lm, i, source);
        arity(
            what,
            "bottom",
            nb,
            layer.ExactNumBottomBlobs(),
            layer.MinBottomBlobs(),
            layer.MaxBottomBlobs());
        if (!layer.AutoTopBlobs() || nt > 0) {
          arity(
              what, "top", nt, layer.ExactNumTopBlobs(), layer.MinTopBlobs(), layer.MaxTopBlobs());
        }
        if (layer.EqualNumBottomTopBlobs() && nb != nt) {
          throw new IllegalArgumentException(
              what
                  + " needs as many tops as bottoms but has "
                  + nb
                  + " bottoms and "
                  + nt
                  + " tops");
        }
      }
    } finally {
      np.close();
    }
  }

  private static void arity(String what, String kind, int n, int exact, int min, int max) {
    String need = null;
    if (exact >= 0 && n != exact) {
      need = "exactly " + exact;
    } else if (min >= 0 && n < min) {
      need = "at least " + min;
    } else if (max >= 0 && n > max) {
      need = "at most " + max;
    }
    if (need != null) {
      throw new IllegalArgumentException(
          what + " needs " + need + " " + kind + " blob(s) but has " + n);
    }
  }
}
