package org.sparknet.caffe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sparknet.caffe.internal.StatedNets;
import org.sparknet.caffe.internal.StatedNets.StatedNet;
import org.sparknet.caffe.internal.TextFormat;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * The data that a net's own data layers read, as {@code caffe train} finds it: a {@code Data}
 * layer's {@code data_param.source} and {@code backend} (LEVELDB unless told, as in caffe.proto),
 * an {@code ImageData} layer's list file and {@code image_data_param}, an {@code HDF5Data} layer's
 * list of .h5 files. Caffe opens a relative {@code source} from the working directory, and so does
 * SparkNet (on Hadoop's default file system, which is local unless {@code fs.defaultFS} says
 * otherwise).
 */
public final class CaffeDataSources {
  private CaffeDataSources() {}

  /**
   * One data layer's data.
   *
   * @param layer the layer's name
   * @param type its type (Data, ImageData, HDF5Data)
   * @param format the SparkNet data format that reads it: lmdb, leveldb, imagelist or hdf5
   * @param source the location as the layer writes it
   * @param settings the layer's format settings ({@code root_folder}, {@code new_height}, ...), by
   *     the names the format takes
   */
  public record LayerData(
      String layer, String type, String format, String source, Map<String, String> settings) {
    public LayerData {
      settings = Map.copyOf(settings);
    }

    /** "net.prototxt, layer 'mnist' (Data)" for messages. */
    public String describe(String netSource) {
      return netSource + ", layer '" + layer + "' (" + type + ")";
    }
  }

  /**
   * The data each net of a solver reads: the first data layer that the train net keeps, and for
   * every test net (in Caffe's order, each with its test_state) the first that it keeps; null where
   * a net keeps none.
   *
   * @param train the train net's data, or null
   * @param tests one entry per test net
   */
  public record NetData(LayerData train, List<LayerData> tests) {
    public NetData {
      tests = java.util.Collections.unmodifiableList(new ArrayList<>(tests));
    }
  }

  /**
   * The data layers that the nets of the solver ({@code solverText}, its net {@code netText}, or
   * its embedded net when that is null) keep, with Caffe's NetState rules.
   *
   * @throws IllegalArgumentException naming the file and layer of a kept data layer that names no
   *     source, or of a type SparkNet cannot read from its own files (MemoryData, WindowData)
   */
  public static NetData of(String solverText, String netText, String netSource) {
    Message solver = TextFormat.parse(solverText, netSource);
    Message net = netText != null ? TextFormat.parse(netText, netSource) : embedded(solver);
    if (net == null) {
      return new NetData(null, List.of());
    }
    LayerData train = first(StatedNets.train(solver, net, netSource), netSource);
    List<LayerData> tests = new ArrayList<>();
    for (StatedNet t : StatedNets.tests(solver, net, netSource, netText != null)) {
      tests.add(first(t, netSource));
    }
    return new NetData(train, tests);
  }

  private static Message embedded(Message solver) {
    Message net = solver.child("net_param");
    return net != null ? net : solver.child("train_net_param");
  }

  /** The first data layer {@code net} keeps, or null. */
  private static LayerData first(StatedNet net, String netSource) {
    for (Field f : net.net().all("layer")) {
      if (net.keeps(f.message())) {
        LayerData d = layerData(f.message(), netSource);
        if (d != null) {
          return d;
        }
      }
    }
    return null;
  }

  private static LayerData layerData(Message layer, String netSource) {
    String type = layer.value("type", "");
    String name = layer.value("name", "?");
    String where = netSource + ", layer '" + name + "' (" + type + ")";
    Map<String, String> settings = new LinkedHashMap<>();
    String format;
    Message param;
    switch (type) {
      case "Data" -> {
        param = layer.child("data_param");
        String backend = param == null ? "LEVELDB" : param.value("backend", "LEVELDB");
        format = backend.equals("LMDB") ? "lmdb" : "leveldb";
      }
      case "ImageData" -> {
        param = layer.child("image_data_param");
        format = "imagelist";
        if (param != null) {
          for (String s : List.of("root_folder", "new_height", "new_width", "is_color")) {
            String v = param.value(s, null);
            if (v != null) {
              settings.put(s.replace('_', '-'), v);
            }
          }
        }
      }
      case "HDF5Data" -> {
        param = layer.child("hdf5_data_param");
        format = "hdf5";
      }
      case "MemoryData", "WindowData" ->
          throw new IllegalArgumentException(
              where
                  + ": SparkNet cannot read a "
                  + type
                  + " layer's data itself; give the data with --train/--test in a --format"
                  + " SparkNet reads");
      default -> {
        return null;
      }
    }
    String source = param == null ? null : param.value("source", null);
    if (source == null || source.isEmpty()) {
      throw new IllegalArgumentException(
          where + ": the layer names no source; set it, or give the data with --train/--test");
    }
    return new LayerData(name, type, format, source, settings);
  }
}
