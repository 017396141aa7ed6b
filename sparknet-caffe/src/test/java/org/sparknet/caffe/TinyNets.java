package org.sparknet.caffe;

import java.util.Map;
import java.util.Random;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.ndarray.NDArray;

/** Small nets and data for fast tests: conv + inner product on 1x6x6 inputs, 4 classes. */
final class TinyNets {
  private TinyNets() {}

  static final String SOLVER = "base_lr: 0.01\nlr_policy: \"fixed\"\nmomentum: 0.9\n";

  static String net(String name, String act) {
    return "name: \""
        + name
        + "\"\n"
        + "layer { name: \"in\" type: \"Input\" top: \"data\" top: \"label\"\n"
        + "  input_param { shape { dim: 8 dim: 1 dim: 6 dim: 6 } shape { dim: 8 } } }\n"
        + "layer { name: \"conv\" type: \"Convolution\" bottom: \"data\" top: \"conv\"\n"
        + "  convolution_param { num_output: 3 kernel_size: 3\n"
        + "    weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" value: 0.1 } } }\n"
        + (act == null
            ? ""
            : "layer { name: \"act\" type: \"" + act + "\" bottom: \"conv\" top: \"conv\" }\n")
        + "layer { name: \"ip\" type: \"InnerProduct\" bottom: \"conv\" top: \"ip\"\n"
        + "  inner_product_param { num_output: 4\n"
        + "    weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" value: 0.1 } } }\n"
        + "layer { name: \"loss\" type: \"SoftmaxWithLoss\" bottom: \"ip\" bottom: \"label\""
        + " top: \"loss\" }\n";
  }

  static NetDefinition definition(String solver) {
    return NetDefinition.caffe(solver, net("tiny", "ReLU"), null);
  }

  static NetDefinition definition() {
    return definition(SOLVER);
  }

  /**
   * A learnable problem: class c lights up quadrant c of the 6x6 image (plus noise); batches are a
   * deterministic function of the step count and the seed.
   */
  static BatchFeeder quadrants(long seed) {
    Random rnd = new Random(seed);
    return (Map<String, NDArray> in) -> {
      NDArray data = in.get("data");
      NDArray label = in.get("label");
      int batch = data.shape().dim(0);
      for (int n = 0; n < batch; n++) {
        int c = rnd.nextInt(4);
        label.setFlat(n, c);
        for (int y = 0; y < 6; y++) {
          for (int x = 0; x < 6; x++) {
            int q = (y / 3) * 2 + x / 3;
            data.set((q == c ? 1f : 0f) + 0.3f * (float) rnd.nextGaussian(), n, 0, y, x);
          }
        }
      }
    };
  }
}
