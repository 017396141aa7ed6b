package org.sparknet.api.net;

import java.util.List;
import org.sparknet.api.Phase;

/**
 * Softmax over axis 1 of the prediction followed by the multinomial log loss against integer
 * labels: Caffe's {@code SoftmaxWithLoss}. Reads the previous layer's top and the net's label by
 * default; its output is a scalar and does not feed the next layer.
 */
public final class SoftmaxWithLoss extends LayerSpec<SoftmaxWithLoss> {
  private SoftmaxWithLoss(String name) {
    super(name, null);
  }

  public static SoftmaxWithLoss named(String name) {
    return new SoftmaxWithLoss(name);
  }

  @Override
  public String type() {
    return "SoftmaxWithLoss";
  }

  @Override
  DefaultBottoms defaultBottoms() {
    return DefaultBottoms.PREVIOUS_AND_LABEL;
  }

  @Override
  boolean isHead() {
    return true;
  }

  @Override
  boolean isLoss() {
    return true;
  }

  @Override
  int bottomCount() {
    return 2;
  }

  @Override
  List<List<Integer>> infer(List<List<Integer>> inputs, List<String> names, Phase phase) {
    classes(this, inputs);
    return List.of(List.of());
  }

  /**
   * The class count (axis 1 of the prediction), after checking that there is one label per
   * prediction: Caffe CHECKs {@code outer * inner == label count}.
   */
  static int classes(LayerSpec<?> layer, List<List<Integer>> inputs) {
    List<Integer> pred = inputs.get(0);
    List<Integer> label = inputs.get(1);
    if (pred.size() < 2) {
      throw layer.fail(
          "the prediction needs a class axis ([N, classes, ...]) but has shape " + pred);
    }
    long predictions = pred.get(0) * product(pred, 2);
    long labels = product(label, 0);
    if (predictions != labels) {
      throw layer.fail(
          "the prediction "
              + pred
              + " makes "
              + predictions
              + " predictions over "
              + pred.get(1)
              + " classes but the label "
              + label
              + " has "
              + labels
              + " values; put a LinearLayer with one output per class before it");
    }
    return pred.get(1);
  }

  @Override
  void writeParams(PrototxtWriter w) {}
}
