package org.sparknet.caffe.internal;

import java.util.List;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * Caffe's layer filter ({@code Net::FilterNet} and {@code Net::StateMeetsRule}): which layers of a
 * net a {@link NetState} keeps. A layer with {@code include} rules is kept when any of them is met;
 * one with {@code exclude} rules is dropped when any of them is met; one with neither is kept.
 */
public final class StateRules {
  private StateRules() {}

  /**
   * Whether {@code state} keeps {@code layer}.
   *
   * @param where names the layer in errors
   * @throws IllegalArgumentException when the layer has both include and exclude rules (Caffe
   *     CHECKs this and aborts)
   */
  public static boolean included(Message layer, NetState state, String where) {
    List<Field> inc = layer.all("include");
    List<Field> exc = layer.all("exclude");
    if (!inc.isEmpty() && !exc.isEmpty()) {
      throw new IllegalArgumentException(
          where
              + " has both include and exclude rules; Caffe takes either include rules or exclude"
              + " rules, not both: keep one kind");
    }
    for (Field f : exc) {
      if (meets(f.message(), state, where)) {
        return false;
      }
    }
    for (Field f : inc) {
      if (meets(f.message(), state, where)) {
        return true;
      }
    }
    return inc.isEmpty();
  }

  /**
   * Caffe's {@code StateMeetsRule}: the phase matches (when the rule sets one), the state's level
   * lies within min_level and max_level (when set), every {@code stage} of the rule is among the
   * state's stages and no {@code not_stage} is.
   */
  static boolean meets(Message rule, NetState state, String where) {
    if (rule.has("phase")
        && NetState.phaseOf(rule.value("phase", null), where + ", rule") != state.phase()) {
      return false;
    }
    if (rule.has("min_level")
        && state.level() < NetState.intOf(rule.value("min_level", null), where + ", min_level")) {
      return false;
    }
    if (rule.has("max_level")
        && state.level() > NetState.intOf(rule.value("max_level", null), where + ", max_level")) {
      return false;
    }
    for (String s : rule.values("stage")) {
      if (!state.stages().contains(s)) {
        return false;
      }
    }
    for (String s : rule.values("not_stage")) {
      if (state.stages().contains(s)) {
        return false;
      }
    }
    return true;
  }
}
