package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.caffe.Caffe;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatBlobVector;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.javacpp.PointerScope;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.caffe.internal.BlobShapes;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Storage;

/**
 * CaffeNet's split step (forward, check, backward, update, ++iter; {@code CheckedStep}) against
 * Caffe's own {@code Solver::Step(1)} on a plain solver of the same definition: the same batches
 * and the same random seed before each step give bit-identical weights and iterations, with
 * momentum, weight decay, the "inv" schedule (which reads the iteration), {@code iter_size: 2}, max
 * pooling and dropout; and with Adam. Mutation: without CheckedStep's ClearParamDiffs (earlier
 * steps' gradients left in), both cases failed at the first weight.
 */
class CheckedStepIT {
  private static final String NET =
      "name: \"checked\"\n"
          + "layer { name: \"in\" type: \"Input\" top: \"data\" top: \"label\"\n"
          + "  input_param { shape { dim: 8 dim: 1 dim: 6 dim: 6 } shape { dim: 8 } } }\n"
          + "layer { name: \"conv\" type: \"Convolution\" bottom: \"data\" top: \"conv\"\n"
          + "  convolution_param { num_output: 3 kernel_size: 3\n"
          + "    weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" value: 0.1 } } }\n"
          + "layer { name: \"pool\" type: \"Pooling\" bottom: \"conv\" top: \"pool\"\n"
          + "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
          + "layer { name: \"drop\" type: \"Dropout\" bottom: \"pool\" top: \"pool\"\n"
          + "  dropout_param { dropout_ratio: 0.5 } }\n"
          + "layer { name: \"ip\" type: \"InnerProduct\" bottom: \"pool\" top: \"ip\"\n"
          + "  inner_product_param { num_output: 4\n"
          + "    weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" value: 0.1 } } }\n"
          + "layer { name: \"loss\" type: \"SoftmaxWithLoss\" bottom: \"ip\" bottom: \"label\""
          + " top: \"loss\" }\n";

  private static final Map<String, String> SOLVERS =
      Map.of(
          "SGD",
          "base_lr: 0.05\nmomentum: 0.9\nweight_decay: 0.0005\nlr_policy: \"inv\"\n"
              + "gamma: 0.1\npower: 0.75\niter_size: 2\n",
          "Adam",
          "type: \"Adam\"\nbase_lr: 0.01\nmomentum: 0.9\nmomentum2: 0.999\nlr_policy: \"fixed\"\n");

  @ParameterizedTest
  @ValueSource(strings = {"SGD", "Adam"})
  void theSplitStepEqualsCaffesOwnStepBitForBit(String type) {
    NetDefinition def = NetDefinition.caffe(SOLVERS.get(type), NET, null).withSeed(5);
    try (CaffeNet net = CaffeNet.create(def, false);
        PlainCaffeSolver plain = PlainCaffeSolver.create(def)) {
      List<Float> start = flat(net);
      assertEquals(start, flat(plain.net()), "same initial weights");
      BatchFeeder a = TinyNets.quadrants(9);
      BatchFeeder b = TinyNets.quadrants(9);
      for (int step = 0; step < 6; step++) {
        Caffe.set_random_seed(100 + step);
        net.train(1, a);
        Caffe.set_random_seed(100 + step);
        feed(plain.net(), b);
        plain.solver().Step(1);
        assertEquals(plain.solver().iter(), net.iteration());
      }
      // With iter_size 2 both run two forward/backward passes on the step's one batch.
      List<Float> after = flat(net);
      assertEquals(flat(plain.net()), after, type + ": weights after 6 steps, bit for bit");
      assertNotEquals(start, after, "the steps moved the weights");
    }
  }

  private static void feed(FloatNet net, BatchFeeder feeder) {
    Map<String, NDArray> in = new LinkedHashMap<>();
    List<Storage> borrowed = new ArrayList<>();
    try (PointerScope scope = new PointerScope()) {
      for (String name : List.of("data", "label")) {
        FloatBlob blob = net.blob_by_name(name);
        Storage s = Storage.borrow(blob.mutable_cpu_data(), blob.count(), name);
        borrowed.add(s);
        in.put(name, NDArray.wrap(s, BlobShapes.of(blob)));
      }
      feeder.fill(in);
    } finally {
      borrowed.forEach(Storage::close);
    }
  }

  private static List<Float> flat(CaffeNet net) {
    List<Float> out = new ArrayList<>();
    net.getWeights()
        .layerNames()
        .forEach(
            l -> {
              for (Tensor t : net.getWeights().get(l)) {
                for (float v : t.data()) {
                  out.add(v);
                }
              }
            });
    return out;
  }

  private static List<Float> flat(FloatNet net) {
    List<Float> out = new ArrayList<>();
    try (PointerScope scope = new PointerScope()) {
      FloatBlobVector params = net.learnable_params();
      for (long i = 0; i < params.size(); i++) {
        FloatBlob b = params.get(i);
        for (int j = 0; j < b.count(); j++) {
          out.add(b.cpu_data().get(j));
        }
      }
    }
    return out;
  }
}
