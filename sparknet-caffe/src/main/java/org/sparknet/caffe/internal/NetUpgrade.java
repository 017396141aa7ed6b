package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.List;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * A net in one of Caffe's older formats as the current one, upgraded in the steps and order of
 * Caffe's {@code UpgradeNetAsNeeded}, which Caffe runs on every net it reads: V0 layers to V1
 * ({@link V0Layers}), V1 data layers' transformation fields into {@code transform_param}, V1 layers
 * to V2 ({@link V1Layers}), net-level {@code input}/{@code input_dim}/{@code input_shape} to an
 * {@code Input} layer placed first, and the learning rates of BatchNorm's three statistics blobs to
 * zero. Where Caffe would log an error and go on with a partial net, or abort, this throws {@link
 * IllegalArgumentException} naming the source, line and field.
 */
public final class NetUpgrade {
  /**
   * @param net the upgraded net (the given message itself when nothing was upgraded)
   * @param notes what was upgraded, for one line to the user; empty for a current net
   */
  public record Result(Message net, List<String> notes) {
    public Result {
      notes = List.copyOf(notes);
    }

    public boolean upgraded() {
      return !notes.isEmpty();
    }
  }

  private NetUpgrade() {}

  /** {@code net} upgraded; {@code net} itself is not changed. */
  public static Result of(Message net, String source) {
    List<String> notes = new ArrayList<>();
    Message out = net.copy();
    if (out.has("layers") && out.has("layer")) {
      throw new IllegalArgumentException(
          source
              + ", "
              + out.first("layers").where()
              + ": the net has both V1 'layers' and V2 'layer' blocks; Caffe refuses to upgrade"
              + " such a net: write every layer in one format");
    }
    if (isV0(out)) {
      out = v0ToV1(out, source);
      notes.add("V0 layers");
    }
    boolean moved = false;
    for (Field f : out.all("layers")) {
      moved |= V1Layers.moveTransformFields(f.message());
    }
    if (moved) {
      notes.add("V1 data transformation fields");
    }
    if (out.has("layers")) {
      out = v1ToV2(out, source);
      notes.add("V1 layers");
    }
    if (out.has("input") || out.has("input_dim") || out.has("input_shape")) {
      out = NetInputs.toInputLayer(out, source);
      notes.add("net-level inputs");
    }
    if (zeroBatchNormRates(out)) {
      notes.add("BatchNorm parameters");
    }
    return notes.isEmpty() ? new Result(net, notes) : new Result(out, notes);
  }

  private static boolean isV0(Message net) {
    for (Field f : net.all("layers")) {
      if (f.message().has("layer")) {
        return true;
      }
    }
    return false;
  }

  /** Caffe's UpgradeV0Net: keeps the name, inputs and force_backward, upgrades the layers. */
  private static Message v0ToV1(Message net, String source) {
    Message out = new Message();
    List<Field> layers = new ArrayList<>();
    for (Field f : net.fields()) {
      switch (f.name()) {
        case "name", "input", "input_dim", "force_backward" -> out.add(f);
        case "layers" -> layers.add(f);
        default ->
            throw new IllegalArgumentException(
                source
                    + ", "
                    + f.where()
                    + ": field '"
                    + f.name()
                    + "' is not part of a V0 net (Caffe's upgrade drops it); remove it");
      }
    }
    for (Message layer : V0Layers.toV1(layers, net.values("input"), source)) {
      out.add(Field.message("layers", layer));
    }
    return out;
  }

  /** Caffe's UpgradeV1Net: every 'layers' block as a 'layer' block, in place. */
  private static Message v1ToV2(Message net, String source) {
    Message out = new Message();
    int index = 0;
    for (Field f : net.fields()) {
      if (f.name().equals("layers")) {
        String what = source + ", V1 layer '" + f.message().value("name", "#" + index) + "'";
        out.add(Field.message("layer", V1Layers.toV2(f.message(), what)));
        index++;
      } else {
        out.add(f);
      }
    }
    return out;
  }

  /**
   * Caffe's UpgradeNetBatchNorm: a BatchNorm layer that declares three param blocks (the old
   * definition) gets lr_mult 0 and decay_mult 0 in each. A triple that already has lr_mult 0 in
   * each is left as written: Caffe would add decay_mult 0, which changes nothing when the rate is
   * zero, and current files written that way are then not reported as upgraded.
   */
  private static boolean zeroBatchNormRates(Message net) {
    boolean changed = false;
    for (Field f : net.all("layer")) {
      Message layer = f.message();
      List<Field> params = layer.all("param");
      if (!layer.value("type", "").equals("BatchNorm") || params.size() != 3) {
        continue;
      }
      boolean learnable = false;
      for (Field p : params) {
        String lr = p.message().value("lr_mult", null);
        learnable |= lr == null || !isZero(lr);
      }
      if (learnable) {
        for (Field p : params) {
          p.message().remove("lr_mult").remove("decay_mult");
          p.message().add(Field.scalar("lr_mult", "0")).add(Field.scalar("decay_mult", "0"));
        }
        changed = true;
      }
    }
    return changed;
  }

  private static boolean isZero(String number) {
    try {
      return Double.parseDouble(number) == 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
