package org.sparknet.api.net;

import java.util.List;
import org.sparknet.api.Phase;

/**
 * A layer that maps each value on its own (an activation, dropout): computed in place by default,
 * its top has its bottom's shape. It has at most one setting, a number written as {@code paramBlock
 * { paramField: value }} when set.
 */
abstract class ElementwiseLayer<S extends ElementwiseLayer<S>> extends LayerSpec<S> {
  private final String paramBlock;
  private final String paramField;
  private Double param; // null: Caffe's default

  ElementwiseLayer(String name, String type, String paramBlock, String paramField) {
    super(name, type, null);
    this.paramBlock = paramBlock;
    this.paramField = paramField;
  }

  /** Sets the kind's one number, checked by the caller. */
  @SuppressWarnings("unchecked")
  final S setParam(double value) {
    this.param = value;
    return (S) this;
  }

  @Override
  final void writeParams(PrototxtWriter w) {
    if (param != null) {
      w.open(paramBlock).number(paramField, param).close();
    }
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
