package org.sparknet.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.sparknet.ndarray.Shape;

/**
 * How two weight collections differ, in words: the structure (layers, their order, the number and
 * shapes of their arrays) and the values within a tolerance. Apart from the collection so that the
 * collection holds the weights and their arithmetic, and this class the wording of every difference
 * that messages and tests show. It sees layer names mapped to the arrays' shapes or values, not the
 * collection, which uses it.
 */
final class WeightDifferences {
  private WeightDifferences() {}

  /**
   * Describes how the structure of {@code theirLayers} differs from {@code myLayers}, every
   * difference listed, or null if it does not.
   */
  static String ofStructure(
      Map<String, List<Shape>> myLayers, Map<String, List<Shape>> theirLayers) {
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
    for (Map.Entry<String, List<Shape>> e : myLayers.entrySet()) {
      List<Shape> theirs = theirLayers.get(e.getKey());
      if (theirs == null) {
        continue;
      }
      List<Shape> mine = e.getValue();
      if (mine.size() != theirs.size()) {
        problems.add(
            "layer '" + e.getKey() + "' has " + theirs.size() + " arrays, expected " + mine.size());
        continue;
      }
      for (int i = 0; i < mine.size(); i++) {
        if (!mine.get(i).equals(theirs.get(i))) {
          problems.add(
              "layer '"
                  + e.getKey()
                  + "' array "
                  + i
                  + " has shape "
                  + theirs.get(i)
                  + ", expected "
                  + mine.get(i));
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
   * Null when every pair of values satisfies {@code |a - b| <= atol + rtol * |b|} (b from {@code
   * theirLayers}); otherwise a description of the first difference. Both have the same structure
   * ({@link #ofStructure} found no difference).
   */
  static String ofValues(
      Map<String, List<float[]>> myLayers,
      Map<String, List<float[]>> theirLayers,
      double rtol,
      double atol) {
    for (Map.Entry<String, List<float[]>> e : myLayers.entrySet()) {
      List<float[]> mine = e.getValue();
      List<float[]> theirs = theirLayers.get(e.getKey());
      for (int i = 0; i < mine.size(); i++) {
        float[] a = mine.get(i);
        float[] b = theirs.get(i);
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
