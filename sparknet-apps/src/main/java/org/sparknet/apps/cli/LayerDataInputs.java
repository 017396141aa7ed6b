package org.sparknet.apps.cli;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.sparknet.api.data.DataFormats;
import org.sparknet.api.data.DataRequest;
import org.sparknet.caffe.CaffeDataSources;
import org.sparknet.caffe.CaffeDataSources.LayerData;

/**
 * The data a net's own data layers name, opened when {@code --train} (or {@code --test}) is not
 * given, as {@code caffe train} reads it: the first data layer of the phase, its {@code source}
 * from the working directory, its backend or layer type choosing the format.
 */
final class LayerDataInputs {
  private final List<LayerData> layers;
  private final String netSource;
  private final DataOptions options;

  private LayerDataInputs(List<LayerData> layers, String netSource, DataOptions options) {
    this.layers = layers;
    this.netSource = netSource;
    this.options = options;
  }

  static LayerDataInputs of(CaffeFiles files, DataOptions options) {
    return new LayerDataInputs(
        CaffeDataSources.of(files.solverText(), files.netText(), files.netSource()),
        files.netSource(),
        options);
  }

  /** The TRAIN phase's data; an error when the net has no data layer that names it. */
  DataInput train() {
    LayerData d = CaffeDataSources.first(layers, "TRAIN");
    if (d == null) {
      throw new IllegalArgumentException(
          "train needs --train URI: "
              + netSource
              + " has no data layer (Data, ImageData, HDF5Data) whose source names the training"
              + " data");
    }
    return open(d);
  }

  /** The TEST phase's data, or null when no data layer names it. */
  DataInput test() {
    LayerData d = CaffeDataSources.first(layers, "TEST");
    return d == null ? null : open(d);
  }

  private DataInput open(LayerData d) {
    Map<String, String> settings = new HashMap<>(options.settings());
    settings.putAll(d.settings());
    DataRequest r =
        new DataRequest(d.source(), d.describe(netSource) + " source", null, null, true, settings);
    return DataInput.open(DataFormats.named(d.format()), r);
  }
}
