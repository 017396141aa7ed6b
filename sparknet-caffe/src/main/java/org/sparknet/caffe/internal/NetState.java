package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.sparknet.api.Phase;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * Caffe's NetState: the phase, level and stages that decide which layers a net keeps ({@link
 * StateRules}). A train net's state is TRAIN merged with the net's own {@code state} and the
 * solver's {@code train_state}; a test net's is TEST merged with its net's {@code state} and its
 * {@code test_state}, as Caffe's Solver does.
 *
 * @param phase the phase the layers are filtered for
 * @param level the state's level (Caffe's default 0)
 * @param stages the stages, in the order they were merged
 */
public record NetState(Phase phase, int level, List<String> stages) {
  public NetState {
    Objects.requireNonNull(phase, "phase");
    stages = List.copyOf(stages);
  }

  /** The state of a net of {@code phase}, level 0 and no stages. */
  public static NetState of(Phase phase) {
    return new NetState(phase, 0, List.of());
  }

  /**
   * Caffe's {@code NetState::MergeFrom}: the phase and level of {@code state} replace these when
   * set, its stages are appended. A null message changes nothing.
   *
   * @param where names the message in errors ("solver definition, test_state #1")
   */
  public NetState merge(Message state, String where) {
    if (state == null) {
      return this;
    }
    Phase p = state.has("phase") ? phaseOf(state.value("phase", null), where) : phase;
    int l =
        state.has("level") ? intOf(state.value("level", null), where + ", field 'level'") : level;
    List<String> s = new ArrayList<>(stages);
    s.addAll(state.values("stage"));
    return new NetState(p, l, s);
  }

  /** This state as a NetState message, for a net's {@code state} field. */
  public Message toMessage() {
    Message m = new Message();
    m.add(Field.scalar("phase", phase.name()));
    m.add(Field.scalar("level", Integer.toString(level)));
    for (String s : stages) {
      m.add(Field.string("stage", s));
    }
    return m;
  }

  /** "phase TEST, level 0, stages [test-on-test]", for messages. */
  public String describe() {
    return "phase " + phase + ", level " + level + ", stages " + stages;
  }

  /** Caffe's Phase enum, by name or number (TRAIN = 0, TEST = 1). */
  static Phase phaseOf(String token, String where) {
    switch (token) {
      case "TRAIN", "0":
        return Phase.TRAIN;
      case "TEST", "1":
        return Phase.TEST;
      default:
        throw new IllegalArgumentException(
            where + ", field 'phase': '" + token + "' is not a phase; use TRAIN or TEST");
    }
  }

  static int intOf(String token, String where) {
    try {
      return Integer.parseInt(token);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(where + ": '" + token + "' is not an integer", e);
    }
  }
}
