package org.sparknet.caffe;

import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import org.sparknet.caffe.internal.NetUpgrade;
import org.sparknet.caffe.internal.ProtoSchema;
import org.sparknet.caffe.internal.SolverUpgrade;
import org.sparknet.caffe.internal.TextFormat;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * Caffe net and solver texts in Caffe's older formats (V0 and V1 layers, enum layer types, {@code
 * blobs_lr}, net-level {@code input_dim}, {@code solver_type}, ...) upgraded to the current one, as
 * Caffe upgrades every file it reads. {@link org.sparknet.api.NetDefinition}s upgrade themselves
 * when a net is built; call this to see the upgraded text, or to tell the user once per file.
 */
public final class CaffeDefinitions {
  private CaffeDefinitions() {}

  /**
   * The outcome of an upgrade.
   *
   * @param text the text in the current format; the given text unchanged when it was current
   * @param source where the text came from, as given
   * @param notes what was upgraded ("V1 layers", "net_param: net-level inputs"); empty when the
   *     text was current
   */
  public record Upgraded(String text, String source, List<String> notes) {
    public Upgraded {
      Objects.requireNonNull(text, "text");
      notes = List.copyOf(notes);
    }

    public boolean upgraded() {
      return !notes.isEmpty();
    }

    /**
     * One line for the user, e.g. "net deploy.prototxt is in an older Caffe format (V1 layers,
     * net-level inputs); upgraded on load as Caffe does".
     */
    public String notice() {
      return source
          + " is in an older Caffe format ("
          + String.join(", ", notes)
          + "); upgraded on load as Caffe does";
    }
  }

  /**
   * {@code text}, a NetParameter, in the current format.
   *
   * @throws IllegalArgumentException naming {@code source}, the line and the field, for text that
   *     does not parse, is not a NetParameter, or cannot be upgraded (an unknown V1 layer type,
   *     input_dim not 4 per input, a V1 field with no current equivalent)
   */
  public static Upgraded upgradeNet(String text, String source) {
    return upgrade(text, source, NetUpgrade::of, ProtoSchema::checkNet);
  }

  /**
   * {@code text}, a SolverParameter, in the current format, with the nets it embeds ({@code
   * net_param}, {@code train_net_param}, {@code test_net_param}) upgraded too.
   *
   * @throws IllegalArgumentException as {@link #upgradeNet} does
   */
  public static Upgraded upgradeSolver(String text, String source) {
    return upgrade(text, source, SolverUpgrade::of, ProtoSchema::checkSolver);
  }

  /**
   * {@code text} parsed, upgraded by {@code upgrade} and, where it changed, checked as written by
   * {@code check} (so that a typo is reported where it is) and printed again.
   */
  private static Upgraded upgrade(
      String text,
      String source,
      BiFunction<Message, String, NetUpgrade.Result> upgrade,
      BiConsumer<Message, String> check) {
    Message parsed = TextFormat.parse(text, source);
    NetUpgrade.Result r = upgrade.apply(parsed, source);
    if (!r.upgraded()) {
      return new Upgraded(text, source, List.of());
    }
    check.accept(parsed, source);
    return new Upgraded(TextFormat.print(r.net()), source, r.notes());
  }
}
