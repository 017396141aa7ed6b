package org.sparknet.api.train;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.Net;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.device.TaskDevices;
import org.sparknet.api.model.ModelStore;

/**
 * The weights a trainer starts from: the driver net's own initial weights, with the layers of the
 * config's initial weights file copied in by layer name (fine-tuning from a model zoo file).
 */
final class InitialWeights {
  private static final Logger LOG = LoggerFactory.getLogger(InitialWeights.class);

  private InitialWeights() {}

  /**
   * @throws IllegalArgumentException naming the file when it cannot be read, or the layer whose
   *     arrays do not fit the net
   */
  static WeightCollection of(JavaSparkContext sc, TrainerConfig cfg, Net driverNet) {
    WeightCollection own = driverNet.getWeights();
    if (cfg.initialWeights().isEmpty()) {
      return own;
    }
    String uri = cfg.initialWeights().get();
    WeightCollection file =
        new ModelStore(sc.hadoopConfiguration())
            .readLayers(TaskDevices.forDriver(cfg.netDefinition()), uri);
    WeightCollection start = own.copyByLayerName(file, uri);
    List<String> copied = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    for (String layer : own.layerNames()) {
      (file.contains(layer) ? copied : kept).add(layer);
    }
    LOG.info(
        "Initial weights from {}: layers {} copied, layers {} keep the net's initial weights",
        uri,
        copied,
        kept);
    return start;
  }
}
