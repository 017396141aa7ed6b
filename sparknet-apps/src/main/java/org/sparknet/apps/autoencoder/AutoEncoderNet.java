package org.sparknet.apps.autoencoder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.Shape;
import org.sparknet.rbm.RbmNet;

/**
 * The unrolled deep auto-encoder as a Caffe net. For sizes {@code [784, 1000, 500, 250, 2]}:
 * encoder InnerProduct layers {@code enc1..enc4} (784-1000-500-250-2, sigmoid after each but the
 * last, whose linear output is blob {@value #CODE}), decoder layers {@code dec4..dec1}
 * (2-250-500-1000-784, sigmoid after each but the last, whose output are the logits), blob {@value
 * #RECONSTRUCTION} = sigmoid(logits), and a {@code SigmoidCrossEntropyLoss} of the logits against
 * the input (summed over pixels, divided by the batch) as the training loss. Input: blob {@code
 * "data"} [batch, 784], pixels in [0, 1].
 */
public final class AutoEncoderNet {
  public static final String CODE = "code";
  public static final String RECONSTRUCTION = "reconstruction";

  private AutoEncoderNet() {}

  static void checkSizes(int[] sizes) {
    if (sizes.length < 2) {
      throw new IllegalArgumentException(
          "An auto-encoder needs at least 2 layer sizes (input and code) but got "
              + Arrays.toString(sizes));
    }
    for (int s : sizes) {
      if (s < 1) {
        throw new IllegalArgumentException(
            "Layer sizes must be >= 1 but are " + Arrays.toString(sizes));
      }
    }
  }

  /** The net text for layer sizes {@code sizes} (input first, code last) and a batch. */
  public static String netText(int[] sizes, int batch) {
    checkSizes(sizes);
    int layers = sizes.length - 1;
    StringBuilder b = new StringBuilder();
    b.append("name: \"deep_autoencoder\"\n");
    b.append(
        String.format(
            Locale.ROOT,
            "layer { name: \"data\" type: \"Input\" top: \"data\""
                + " input_param { shape { dim: %d dim: %d } } }%n",
            batch,
            sizes[0]));
    String bottom = "data";
    for (int i = 1; i <= layers; i++) {
      String top = i == layers ? CODE : "h" + i;
      ip(b, "enc" + i, bottom, top, sizes[i]);
      if (i < layers) {
        sigmoid(b, "enc" + i + "_sigmoid", top, top);
      }
      bottom = top;
    }
    for (int i = layers; i >= 1; i--) {
      String top = i == 1 ? "logits" : "r" + (i - 1);
      ip(b, "dec" + i, bottom, top, sizes[i - 1]);
      if (i > 1) {
        sigmoid(b, "dec" + i + "_sigmoid", top, top);
      }
      bottom = top;
    }
    sigmoid(b, "reconstruction", "logits", RECONSTRUCTION);
    b.append(
        "layer { name: \"loss\" type: \"SigmoidCrossEntropyLoss\" bottom: \"logits\""
            + " bottom: \"data\" top: \"loss\" loss_param { normalization: BATCH_SIZE } }\n");
    return b.toString();
  }

  private static void ip(StringBuilder b, String name, String bottom, String top, int out) {
    b.append(
        String.format(
            Locale.ROOT,
            "layer { name: \"%s\" type: \"InnerProduct\" bottom: \"%s\" top: \"%s\""
                + " inner_product_param { num_output: %d weight_filler { type: \"gaussian\""
                + " std: 0.01 } bias_filler { type: \"constant\" value: 0 } } }%n",
            name,
            bottom,
            top,
            out));
  }

  private static void sigmoid(StringBuilder b, String name, String bottom, String top) {
    b.append(
        String.format(
            Locale.ROOT,
            "layer { name: \"%s\" type: \"Sigmoid\" bottom: \"%s\" top: \"%s\" }%n",
            name,
            bottom,
            top));
  }

  /** Adam with a fixed rate: the fine-tuning solver. */
  public static String solverText(double baseLr, long seed) {
    return String.format(
        Locale.ROOT,
        "type: \"Adam\"%nbase_lr: %s%nmomentum: 0.9%nmomentum2: 0.999%ndelta: 1e-8%n"
            + "lr_policy: \"fixed\"%nrandom_seed: %d%n",
        Double.toString(baseLr),
        seed);
  }

  public static NetDefinition definition(int[] sizes, int batch, double baseLr, long seed) {
    return new NetDefinition(
        "caffe", solverText(baseLr, seed), netText(sizes, batch), null, seed, "cpu");
  }

  /**
   * The auto-encoder's weights from the RBMs of the stack, bottom first (each with the rbm engine's
   * layer: W [visible, hidden], visible bias, hidden bias): encoder layer i gets W_i^T and the
   * hidden bias, decoder layer i gets W_i and the visible bias. In net order.
   *
   * @throws IllegalArgumentException when the RBMs' sizes do not chain
   */
  public static WeightCollection unroll(List<WeightCollection> rbms) {
    List<float[][]> layers = new ArrayList<>();
    int[] vis = new int[rbms.size()];
    int[] hid = new int[rbms.size()];
    for (int i = 0; i < rbms.size(); i++) {
      List<WeightCollection.Tensor> t = rbms.get(i).get(RbmNet.LAYER);
      Shape s = t.get(0).shape();
      vis[i] = s.dim(0);
      hid[i] = s.dim(1);
      if (i > 0 && vis[i] != hid[i - 1]) {
        throw new IllegalArgumentException(
            "RBM "
                + (i + 1)
                + " has "
                + vis[i]
                + " visible units but RBM "
                + i
                + " has "
                + hid[i - 1]
                + " hidden units; the stack does not chain");
      }
      layers.add(new float[][] {t.get(0).data(), t.get(1).data(), t.get(2).data()});
    }
    WeightCollection out = new WeightCollection();
    for (int i = 0; i < rbms.size(); i++) {
      float[] w = layers.get(i)[0];
      float[] wt = new float[w.length];
      for (int r = 0; r < vis[i]; r++) {
        for (int c = 0; c < hid[i]; c++) {
          wt[c * vis[i] + r] = w[r * hid[i] + c];
        }
      }
      out.put(
          "enc" + (i + 1),
          List.of(
              new WeightCollection.Tensor(Shape.of(hid[i], vis[i]), wt),
              new WeightCollection.Tensor(Shape.of(hid[i]), layers.get(i)[2].clone())));
    }
    for (int i = rbms.size() - 1; i >= 0; i--) {
      out.put(
          "dec" + (i + 1),
          List.of(
              new WeightCollection.Tensor(Shape.of(vis[i], hid[i]), layers.get(i)[0].clone()),
              new WeightCollection.Tensor(Shape.of(vis[i]), layers.get(i)[1].clone())));
    }
    return out;
  }
}
