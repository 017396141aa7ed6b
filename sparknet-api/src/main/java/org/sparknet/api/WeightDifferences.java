package org.sparknet.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.sparknet.api.WeightCollection.Tensor;

/**
 * How two {@link WeightCollection}s differ, in words: the structure (layers, their order, the
 * number and shapes of their arrays) and the values within a tolerance. Apart from the collection
 * so that the collection holds the weights and their arithmetic, and this class the wording of
 * every difference that messages and tests show.
 */
final class WeightDifferences {
  private WeightDifferences() {}

  /**
   * Describes how the structure of {@code theirLayers} differs from {@code myLayers}, every
   * difference listed, or null if it does not.
   */
  static String ofStructure(
      Map<String, List<Tensor>> myLayers, Map<String, List<Tensor>> theirLayers) {
    List<String> problems = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (String k : myLayers.keySet()) {
      if (!theirLayers.containsKey(k)) {
        missing.add(k);
      }
    }
    List<String> extra = new ArrayList<>();
    for (String k : theirLayers.keySet()) {
      if (!myLayers.containsKey(k)) {
        extra.add(k);
      }
    }
    if (!missing.isEmpty()) {
      problems.add("missing layers " + missing);
    }
    if (!extra.isEmpty()) {
      problems.add("unexpected layers " + extra);
    }
    for (Map.Entry<String, List<Tensor>> e : myLayers.entrySet()) {
      List<Tensor> theirs = theirLayers.get(e.getKey());
      if (theirs == null) {
        continue;
      }
      List<Tensor> mine = e.getValue();
      if (mine.size() != theirs.size()) {
        problems.add(
            "layer '" + e.getKey() + "' has " + theirs.size() + " arrays, expected " + mine.size());
        continue;
      }
      for (int i = 0; i < mine.size(); i++) {
        if (!mine.get(i).shape().equals(theirs.get(i).shape())) {
          problems.add(
              "layer '"
                  + e.getKey()
                  + "' array "
                  + i
                  + " has shape "
                  + theirs.get(i).shape()
                  + ", expected "
                  + mine.get(i).shape());
        }
      }
    }
    if (problems.isEmpty()
        && !List.copyOf(myLayers.keySet()).equals(List.copyOf(theirLayers.keySet()))) {
      problems.add(
          "layer order differs: expected "
              + myLayers.keySet()
              + " but found "
              + theirLayers.keySet());
    }
    if (problems.isEmpty()) {
      return null;
    }
    return "Weight collections differ: "
        + String.join("; ", problems)
        + " (expected layers "
        + myLayers.keySet()
        + ", found "
        + theirLayers.keySet()
        + ")";
  }

  /**
   * Null when both have the same structure and every pair of values satisfies {@code |a - b| <=
   * atol + rtol * |b|} (b from {@code theirLayers}); otherwise a description of the first
   * difference.
   */
  static String ofValues(
      Map<String, List<Tensor>> myLayers,
      Map<String, List<Tensor>> theirLayers,
      double rtol,
      double atol) {
    String structural = ofStructure(myLayers, theirLayers);
    if (structural != null) {
      return structural;
    }
    for (Map.Entry<String, List<Tensor>> e : myLayers.entrySet()) {
      List<Tensor> mine = e.getValue();
      List<Tensor> theirs = theirLayers.get(e.getKey());
      for (int i = 0; i < mine.size(); i++) {
        float[] a = mine.get(i).data();
        float[] b = theirs.get(i).data();
        for (int j = 0; j < a.length; j++) {
          double d = Math.abs((double) a[j] - b[j]);
          if (!(d <= atol + rtol * Math.abs(b[j]))) {
            return "layer '"
                + e.getKey()
                + "' array "
                + i
                + " index "
                + j
                + ": this has "
                + a[j]
                + ", the other has "
                + b[j]
                + " (rtol "
                + rtol
                + ", atol "
                + atol
                + ")";
          }
        }
      }
    }
    return null;
  }
}
