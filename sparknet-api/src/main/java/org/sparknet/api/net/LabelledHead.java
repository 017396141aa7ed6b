package org.sparknet.api.net;

import java.util.List;
import org.sparknet.api.Phase;

/**
 * A head that compares a prediction with the net's labels and outputs a scalar (a loss, an
 * accuracy): it reads the previous layer's top and the label by default, and needs one label per
 * prediction.
 */
abstract class LabelledHead<S extends LabelledHead<S>> extends LayerSpec<S> {
  LabelledHead(String name, String type, Phase defaultPhase) {
    super(name, type, defaultPhase);
  }

  @Override
  final DefaultBottoms defaultBottoms() {
    return DefaultBottoms.PREVIOUS_AND_LABEL;
  }

  @Override
  final boolean isHead() {
    return true;
  }

  @Override
  final int bottomCount() {
    return 2;
  }

  @Override
  final List<List<Integer>> infer(List<List<Integer>> inputs, List<String> names, Phase phase) {
    checkClasses(classes(inputs));
    return List.of(List.of());
  }

  /** Checks the layer's own fields against the prediction's class count. */
  void checkClasses(int classes) {}

  /**
   * The class count (axis 1 of the prediction), after checking that there is one label per
   * prediction: Caffe CHECKs {@code outer * inner == label count}.
   */
  private int classes(List<List<Integer>> inputs) {
    List<Integer> pred = inputs.get(0);
    List<Integer> label = inputs.get(1);
    if (pred.size() < 2) {
      throw fail("the prediction needs a class axis ([N, classes, ...]) but has shape " + pred);
    }
    long predictions = pred.get(0) * product(pred, 2);
    long labels = product(label, 0);
    if (predictions != labels) {
      throw fail(
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
}
