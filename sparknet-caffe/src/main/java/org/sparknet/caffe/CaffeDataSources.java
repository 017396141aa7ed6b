package org.sparknet.caffe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
   * @param phase TRAIN, TEST, or null when the layer is in both phases
   * @param stages the stages its include rule names, in order
   * @param settings the layer's format settings ({@code root_folder}, {@code new_height}, ...), by
   *     the names the format takes
   */
  public record LayerData(
      String layer,
      String type,
      String format,
      String source,
      String phase,
      List<String> stages,
      Map<String, String> settings) {
    public LayerData {
      stages = List.copyOf(stages);
      settings = Map.copyOf(settings);
    }

    /** "net.prototxt, layer 'mnist' (Data)" for messages. */
    public String describe(String netSource) {
      return netSource + ", layer '" + layer + "' (" + type + ")";
    }
  }

  /**
   * Every data layer of the net ({@code netText}, or the solver's {@code net_param} when null) that
   * reads files, in the order the net declares them.
   *
   * @throws IllegalArgumentException naming the file and layer of a data layer that names no
   *     source, or of a type SparkNet cannot read from its own files (MemoryData, WindowData)
   */
  public static List<LayerData> of(String solverText, String netText, String netSource) {
    Message net;
    if (netText != null) {
      net = TextFormat.parse(netText, netSource);
    } else {
      Message solver = TextFormat.parse(solverText, netSource);
      net = solver.child("net_param");
      if (net == null) {
        net = solver.child("train_net_param");
      }
      if (net == null) {
        return List.of();
      }
    }
    List<LayerData> out = new ArrayList<>();
    for (Field f : net.all("layer")) {
      LayerData d = layerData(f.message(), netSource);
      if (d != null) {
        out.add(d);
      }
    }
    return out;
  }

  /** The first layer of {@code layers} in {@code phase} (a layer of both phases counts). */
  public static LayerData first(List<LayerData> layers, String phase) {
    for (LayerData d : layers) {
      if (d.phase() == null || d.phase().equals(phase)) {
        return d;
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
    Message inc = layer.child("include");
    String phase = inc == null ? null : inc.value("phase", null);
    List<String> stages = inc == null ? List.of() : inc.values("stage");
    return new LayerData(name, type, format, source, phase, stages, settings);
  }
}
