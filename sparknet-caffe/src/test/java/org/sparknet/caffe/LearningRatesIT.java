package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.javacpp.PointerScope;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.api.NetDefinition;
import org.sparknet.caffe.internal.LearningRates;

/**
 * {@code LearningRates} (the rate a round's metrics report) against the rate Caffe's own solver
 * applies, for each of Caffe's policies over 12 steps. With no momentum and no weight decay,
 * Caffe's SGD update is rate × gradient, and it leaves the update in the parameter's diff; the
 * gradient is taken by a forward/backward pass on the same input just before the step. Broken on
 * purpose: "step" with the next iteration's rate reported 0.05 where Caffe applied 0.1 at iteration
 * 2; "multistep" one iteration late reported 0.1 where Caffe applied 0.05 at iteration 2.
 */
class LearningRatesIT {
  private static final String NET =
      "name: \"rates\"\n"
          + "layer { name: \"in\" type: \"Input\" top: \"data\" top: \"label\"\n"
          + "  input_param { shape { dim: 8 dim: 5 } shape { dim: 8 } } }\n"
          + "layer { name: \"ip\" type: \"InnerProduct\" bottom: \"data\" top: \"ip\"\n"
          + "  inner_product_param { num_output: 3\n"
          + "    weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" value: 0.1 } } }\n"
          + "layer { name: \"loss\" type: \"SoftmaxWithLoss\" bottom: \"ip\" bottom: \"label\""
          + " top: \"loss\" }\n";

  @ParameterizedTest
  @ValueSource(
      strings = {
        "lr_policy: \"fixed\"",
        "lr_policy: \"step\" gamma: 0.5 stepsize: 3",
        "lr_policy: \"exp\" gamma: 0.9",
        "lr_policy: \"inv\" gamma: 0.1 power: 0.75",
        "lr_policy: \"multistep\" gamma: 0.5 stepvalue: 2 stepvalue: 3 stepvalue: 7",
        "lr_policy: \"poly\" power: 2 max_iter: 20",
        "lr_policy: \"sigmoid\" gamma: -0.5 stepsize: 6"
      })
  void theReportedRateIsTheOneCaffeApplies(String policy) {
    NetDefinition def = NetDefinition.caffe("base_lr: 0.1\n" + policy + "\n", NET, null);
    try (PlainCaffeSolver plain = PlainCaffeSolver.create(def);
        PointerScope scope = new PointerScope()) {
      FloatNet net = plain.net();
      fill(net.blob_by_name("data"), i -> (float) Math.sin(i * 0.7));
      fill(net.blob_by_name("label"), i -> (float) (i % 3));
      FloatBlob w = net.learnable_params().get(0);
      for (int iter = 0; iter < 12; iter++) {
        net.ClearParamDiffs();
        net.ForwardBackward();
        float[] gradient = new float[w.count()];
        w.cpu_diff().get(gradient);
        plain.solver().Step(1);
        float[] update = new float[w.count()];
        w.cpu_diff().get(update);
        int k = largest(gradient);
        assertTrue(Math.abs(gradient[k]) > 1e-3, "a gradient to divide by");
        double caffes = update[k] / gradient[k];
        double ours = LearningRates.at(plain.solver().param(), iter);
        assertEquals(caffes, ours, 1e-5 * Math.abs(ours), policy + " at iteration " + iter);
      }
    }
  }

  private static void fill(FloatBlob blob, java.util.function.IntFunction<Float> value) {
    float[] v = new float[blob.count()];
    for (int i = 0; i < v.length; i++) {
      v[i] = value.apply(i);
    }
    blob.mutable_cpu_data().put(v);
  }

  private static int largest(float[] v) {
    int k = 0;
    for (int i = 1; i < v.length; i++) {
      if (Math.abs(v[i]) > Math.abs(v[k])) {
        k = i;
      }
    }
    return k;
  }
}
