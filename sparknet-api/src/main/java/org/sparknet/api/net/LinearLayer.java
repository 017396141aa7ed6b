package org.sparknet.api.net;

import java.util.List;
import org.sparknet.api.Phase;

/**
 * A fully connected layer, Caffe's {@code InnerProduct}: flattens everything after the batch axis;
 * {@code inputs * numOutput} weights plus {@code numOutput} biases.
 */
public final class LinearLayer extends WeightedLayer<LinearLayer> {
  private LinearLayer(String name) {
    super(name, "InnerProduct");
  }

  public static LinearLayer named(String name) {
    return new LinearLayer(name);
  }

  @Override
  List<List<Integer>> infer(List<List<Integer>> inputs, List<String> names, Phase phase) {
    return List.of(shape(inputs.get(0).get(0), numOutput));
  }

  @Override
  long parameterCount(List<List<Integer>> inputs) {
    return product(inputs.get(0), 1) * numOutput + biasCount();
  }

  @Override
  String paramBlock() {
    return "inner_product_param";
  }
}
