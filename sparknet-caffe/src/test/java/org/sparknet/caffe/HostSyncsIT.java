package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.NDArray;

/**
 * What {@code CaffeNet.train} reads back to the host (on a GPU, each read is a wait for the
 * device), counted by {@code HostReads}, and what the divergence checks still promise at that cost.
 * On the CPU a step reads blob values back once (its {@code StepProbe}: every forward output and
 * weight blob summed into one value, and the loss), and a call once more, for the weights of its
 * last update. Blobs are searched one by one only when the sum is not finite.
 *
 * <p>Mutations: with CheckedStep also searching the weights after every update, as it did before
 * StepProbe ({@code divergence.firstNonFiniteWeights(net, reads)} after ApplyUpdate), LeNet's
 * train(10) read 91 times ("train(10): a read a step, one for the weights ==> expected: <11> but
 * was: <91>"). With the forward outputs left out of the probe (the loss and the weights checked,
 * not the activations), the NaN-before-max-pooling net trained on: "train's loss 0.0, null ==>
 * expected: <true> but was: <false>", a finite loss over a NaN activation, its backward pass run
 * over max pooling's argmax of -1 (glibc's heap checks did not catch that write in this run).
 */
class HostSyncsIT {
  @Test
  void aLeNetStepReadsBlobValuesBackOnce() {
    try (CaffeNet net = CaffeNet.create(Zoo.lenet().withSeed(1), false)) {
      BatchFeeder feeder = randomDigits(2);
      long before = net.hostReads();
      assertTrue(Float.isFinite(net.train(10, feeder)));
      assertEquals(11, net.hostReads() - before, "train(10): a read a step, one for the weights");
      before = net.hostReads();
      assertTrue(Float.isFinite(net.train(1, feeder)));
      assertEquals(2, net.hostReads() - before, "train(1)");
      before = net.hostReads();
      net.train(0, feeder);
      assertEquals(0, net.hostReads() - before, "train(0)");
    }
  }

  /**
   * Each forward pass is checked before its own backward pass. Mutation: with the second pass of an
   * {@code iter_size: 2} step left unchecked, "expected: <11> but was: <6>".
   */
  @Test
  void eachForwardPassOfAStepIsReadOnce() {
    NetDefinition def = TinyNets.definition(TinyNets.SOLVER + "iter_size: 2\n").withSeed(4);
    try (CaffeNet net = CaffeNet.create(def, false)) {
      assertTrue(Float.isFinite(net.train(5, TinyNets.quadrants(6))));
      assertEquals(11, net.hostReads(), "iter_size 2: two forward passes a step, then the weights");
    }
  }

  /**
   * Weight decay that overflows the first update of the conv layer's weights (|w| > 0.34).
   * Mutation: without CaffeNet.train's final {@code step.finish}, train(1) returned "train's loss
   * 1.5273017" with the conv weights infinite.
   */
  private static final String OVERFLOWING_DECAY =
      "base_lr: 10\nlr_policy: \"fixed\"\nweight_decay: 1e38\n";

  @Test
  void nonFiniteWeightsAreNamedAfterTheCallsLastUpdateAndBeforeTheNextBackwardPass() {
    NetDefinition def = TinyNets.definition(OVERFLOWING_DECAY).withSeed(5);
    String named = "weights of layer 'conv' after the update of iteration 0";
    // The update is the call's last: read when the call finishes.
    try (CaffeNet net = CaffeNet.create(def, false)) {
      float trained = net.train(1, TinyNets.quadrants(3));
      assertTrue(Float.isNaN(trained), "train's loss " + trained);
      assertEquals(named, net.lastDivergence());
      assertEquals(1, net.iteration());
    }
    // It is not: read with the outputs of the next forward pass, which then stops there.
    try (CaffeNet net = CaffeNet.create(def, false)) {
      float trained = net.train(3, TinyNets.quadrants(3));
      assertTrue(Float.isNaN(trained), "train's loss " + trained);
      assertEquals(named, net.lastDivergence());
      assertEquals(1, net.iteration(), "no second update");
    }
  }

  /**
   * NaN before max pooling, with a finite loss: log(100 - |conv|) is NaN for inputs of 10^4, each
   * pooling window of NaN leaves -FLT_MAX (argmax -1), which the Power layer scales to about -3e8
   * and the softmax loss turns into a finite loss. Checking the loss alone would run the backward
   * pass over argmax -1 (a write before the log blob's gradient).
   */
  private static final String NAN_UNDER_A_FINITE_LOSS =
      "name: \"nanpool\"\n"
          + "layer { name: \"in\" type: \"Input\" top: \"data\" top: \"label\"\n"
          + "  input_param { shape { dim: 8 dim: 1 dim: 8 dim: 8 } shape { dim: 8 } } }\n"
          + "layer { name: \"conv\" type: \"Convolution\" bottom: \"data\" top: \"conv\"\n"
          + "  convolution_param { num_output: 4 kernel_size: 3\n"
          + "    weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" } } }\n"
          + "layer { name: \"abs\" type: \"AbsVal\" bottom: \"conv\" top: \"abs\" }\n"
          + "layer { name: \"log\" type: \"Log\" bottom: \"abs\" top: \"log\"\n"
          + "  log_param { scale: -1 shift: 100 } }\n"
          + "layer { name: \"pool\" type: \"Pooling\" bottom: \"log\" top: \"pool\"\n"
          + "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
          + "layer { name: \"tiny\" type: \"Power\" bottom: \"pool\" top: \"tiny\"\n"
          + "  power_param { scale: 1e-30 } }\n"
          + "layer { name: \"ip\" type: \"InnerProduct\" bottom: \"tiny\" top: \"ip\"\n"
          + "  inner_product_param { num_output: 4\n"
          + "    weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" } } }\n"
          + "layer { name: \"loss\" type: \"SoftmaxWithLoss\" bottom: \"ip\" bottom: \"label\""
          + " top: \"loss\" }\n";

  @Test
  void aNanActivationUnderAFiniteLossStopsBeforeTheBackwardPass() {
    NetDefinition def = NetDefinition.caffe(TinyNets.SOLVER, NAN_UNDER_A_FINITE_LOSS, null);
    BatchFeeder huge =
        in -> {
          in.get("data").fill(1e4f);
          in.get("label").fill(1f);
        };
    try (CaffeNet net = CaffeNet.create(def.withSeed(7), false)) {
      WeightCollection start = net.getWeights();
      float loss;
      try (NDArray l = net.forward(huge, List.of("loss")).get("loss")) {
        loss = l.getFlat(0);
      }
      assertTrue(Float.isFinite(loss), "the loss alone looks fine: " + loss);
      float trained = net.train(1, huge);
      assertTrue(Float.isNaN(trained), "train's loss " + trained + ", " + net.lastDivergence());
      assertEquals(
          "output 'log' of layer 'log' in the forward pass of iteration 0"
              + " (no backward pass or update ran)",
          net.lastDivergence());
      assertEquals(0, net.iteration());
      for (String layer : start.layerNames()) {
        for (int k = 0; k < start.get(layer).size(); k++) {
          assertTrue(
              Arrays.equals(
                  start.get(layer).get(k).data(), net.getWeights().get(layer).get(k).data()),
              layer + " changed");
        }
      }
    }
  }

  /** Pixels 0..255 (LeNet's transform scales them by 1/256) and labels 0..9, from {@code seed}. */
  private static BatchFeeder randomDigits(long seed) {
    Random rnd = new Random(seed);
    return (Map<String, NDArray> in) -> {
      NDArray data = in.get("data");
      for (long i = 0; i < data.size(); i++) {
        data.setFlat(i, rnd.nextInt(256));
      }
      NDArray label = in.get("label");
      for (long i = 0; i < label.size(); i++) {
        label.setFlat(i, rnd.nextInt(10));
      }
    };
  }
}
