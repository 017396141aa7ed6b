package org.sparknet.caffe;

import java.util.List;
import java.util.Objects;
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
    Message net = TextFormat.parse(text, source);
    NetUpgrade.Result r = NetUpgrade.of(net, source);
    if (!r.upgraded()) {
      return new Upgraded(text, source, List.of());
    }
    // check the file as written, so that a typo is reported where it is
    ProtoSchema.checkNet(net, source);
    return new Upgraded(TextFormat.print(r.net()), source, r.notes());
  }

  /**
   * {@code text}, a SolverParameter, in the current format, with the nets it embeds ({@code
   * net_param}, {@code train_net_param}, {@code test_net_param}) upgraded too.
   *
   * @throws IllegalArgumentException as {@link #upgradeNet} does
   */
  public static Upgraded upgradeSolver(String text, String source) {
    Message solver = TextFormat.parse(text, source);
    NetUpgrade.Result r = SolverUpgrade.of(solver, source);
    if (!r.upgraded()) {
      return new Upgraded(text, source, List.of());
    }
    ProtoSchema.checkSolver(solver, source);
    return new Upgraded(TextFormat.print(r.net()), source, r.notes());
  }
}
