package org.sparknet.api.spark;

import java.util.List;
import java.util.function.BiFunction;
import org.apache.spark.ml.util.Identifiable;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.device.TaskDevices;
import org.sparknet.api.model.ModelStore;
import org.sparknet.api.storage.StorageSettings;

/** Models made from a net definition and a trained weights file, for inference only. */
final class CaffeZoo {
  private CaffeZoo() {}

  /**
   * A Caffe definition of the net file at {@code netUri} (a deploy net that declares its input
   * shapes), with a solver that inference never steps.
   */
  static NetDefinition deployDefinition(String netUri) {
    return new NetDefinition(
        "caffe",
        DefinitionFiles.INFERENCE_SOLVER,
        DefinitionFiles.text(netUri, "Net"),
        null,
        0L,
        "cpu");
  }

  /**
   * The weights of {@code weightsUri}, which must cover every learnable layer of the net, and no
   * history.
   *
   * @throws IllegalArgumentException naming the file when it is missing or does not fit the net
   */
  static TrainedNet trained(NetDefinition definition, String weightsUri) {
    return new TrainedNet(
        new ModelStore(StorageSettings.current().conf())
            .readWeights(TaskDevices.forDriver(definition), weightsUri),
        List.of());
  }

  /**
   * A model named {@code uidPrefix} plus a random suffix, of {@code definition} with the weights of
   * {@code weightsUri}, its definition params set.
   */
  static <M extends SparkNetParams<M>> M model(
      NetDefinition definition,
      String weightsUri,
      String uidPrefix,
      BiFunction<String, TrainedNet, M> make) {
    M m = make.apply(Identifiable.randomUID(uidPrefix), trained(definition, weightsUri));
    StageSupport.setDefinition(m, definition);
    return m;
  }
}
