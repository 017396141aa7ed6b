package org.sparknet.api.net;

import java.util.List;
import org.sparknet.api.Phase;

/**
 * A layer that maps each value on its own (an activation, dropout): computed in place by default,
 * its top has its bottom's shape.
 */
abstract class ElementwiseLayer<S extends ElementwiseLayer<S>> extends LayerSpec<S> {
  ElementwiseLayer(String name, String type) {
    super(name, type, null);
  }

  @Override
  final boolean inPlace() {
    return true;
  }

  @Override
  final List<List<Integer>> infer(List<List<Integer>> inputs, List<String> names, Phase phase) {
    return List.of(inputs.get(0));
  }
}
