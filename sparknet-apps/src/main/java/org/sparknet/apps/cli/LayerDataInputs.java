package org.sparknet.apps.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.sparknet.api.data.DataFormats;
import org.sparknet.api.data.DataRequest;
import org.sparknet.caffe.CaffeDataSources;
import org.sparknet.caffe.CaffeDataSources.LayerData;

/**
 * The data a net's own data layers name, opened when {@code --train} (or {@code --test}) is not
 * given, as {@code caffe train} reads it: for the train net and for each test net the first data
 * layer that its NetState keeps (stages and levels included), its {@code source} from the working
 * directory, its backend or layer type choosing the format.
 */
final class LayerDataInputs {
  private final CaffeDataSources.NetData nets;
  private final String netSource;
  private final DataOptions options;

  private LayerDataInputs(CaffeDataSources.NetData nets, String netSource, DataOptions options) {
    this.nets = nets;
    this.netSource = netSource;
    this.options = options;
  }

  static LayerDataInputs of(CaffeFiles files, DataOptions options) {
    return new LayerDataInputs(
        CaffeDataSources.of(files.solverText(), files.netText(), files.netSource()),
        files.netSource(),
        options);
  }

  /** The train net's data; an error when the net has no data layer that names it. */
  DataInput train() {
    if (nets.train() == null) {
      throw new IllegalArgumentException(
          "train needs --train URI: "
              + netSource
              + " has no data layer (Data, ImageData, HDF5Data) in its TRAIN phase whose source"
              + " names the training data");
    }
    return open(nets.train());
  }

  /**
   * One data set per test net, in the test nets' order; empty when no test net has a data layer
   * (the run then tests nothing), an error when only some have.
   */
  List<DataInput> tests() {
    List<LayerData> tests = nets.tests();
    if (tests.stream().allMatch(Objects::isNull)) {
      return List.of();
    }
    List<DataInput> out = new ArrayList<>();
    for (int k = 0; k < tests.size(); k++) {
      if (tests.get(k) == null) {
        throw new IllegalArgumentException(
            "Test net #"
                + k
                + " of "
                + netSource
                + " has no data layer whose source names its data; give --test URI for every"
                + " test net, or a data layer to each");
      }
      out.add(open(tests.get(k)));
    }
    return out;
  }

  private DataInput open(LayerData d) {
    Map<String, String> settings = new HashMap<>(options.settings());
    settings.putAll(d.settings());
    DataRequest r =
        new DataRequest(d.source(), d.describe(netSource) + " source", null, null, true, settings);
    return DataInput.open(DataFormats.named(d.format()), r);
  }
}
