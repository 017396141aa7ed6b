package org.sparknet.apps.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.sparknet.apps.data.MeanImage;
import org.sparknet.caffe.internal.NetPlan;
import org.sparknet.caffe.internal.TextFormat;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * The image transforms of a net's data layers, split between the loader and the net. Caffe's {@code
 * transform_param} fields {@code crop_size} and {@code mirror} stay in the net, where CaffeNet
 * applies them to every batch as Caffe's DataTransformer does (a random crop and flip in TRAIN,
 * drawn anew each time, a centre crop in TEST); {@code --crop} and {@code --mirror} replace them
 * there. {@code mean_file} is read and subtracted by the loader from the uncropped images (the same
 * arithmetic as Caffe, which subtracts before cropping), unless per-channel {@code mean_value}s are
 * given on the command line; {@code scale} and {@code mean_value} stay in the net. The result is a
 * net text that sparknet-caffe accepts, fed uncropped examples.
 *
 * @param files the rewritten solver and net
 * @param cropSize the crop of the data layers (0 for none)
 * @param inputShape C,H,W of the first Input layer's first top, or null when there is none
 * @param mean the data layers' mean_file, read, or null
 */
record NetTransforms(CaffeFiles files, int cropSize, List<Integer> inputShape, MeanImage mean) {

  /**
   * Reads the data layers of {@code files} and rewrites them. {@code crop}, {@code mirror}, {@code
   * meanValues} and {@code batchSize} override what the net says when non-null. A relative
   * mean_file is looked for in {@code baseDirs} in order (the solver's and the net's directories,
   * then the current one).
   */
  static NetTransforms of(
      CaffeFiles files,
      Integer crop,
      Boolean mirror,
      List<Float> meanValues,
      Integer batchSize,
      List<Path> baseDirs) {
    boolean embedded = files.netText() == null;
    Message root =
        TextFormat.parse(embedded ? files.solverText() : files.netText(), files.netSource());
    Message net = embedded ? embeddedNet(root) : root;
    if (net == null) {
      return new NetTransforms(files, crop == null ? 0 : crop, null, null);
    }
    Integer netCrop = null;
    int dataLayers = 0;
    List<Integer> inputShape = null;
    MeanImage mean = null;
    String meanSource = null;
    for (Field lf : net.all("layer")) {
      Message layer = lf.message();
      String type = layer.value("type", "");
      String name = layer.value("name", "?");
      String where = files.netSource() + ", layer '" + name + "' (" + type + ")";
      if (type.equals("Input") && inputShape == null) {
        Message ip = layer.child("input_param");
        Message shape = ip == null ? null : ip.child("shape");
        if (shape != null) {
          List<Integer> dims = new ArrayList<>();
          for (String d : shape.values("dim")) {
            dims.add(Integer.parseInt(d));
          }
          if (dims.size() == 4) {
            inputShape = dims.subList(1, 4);
          }
        }
      }
      if (!NetPlan.DATA_LAYER_TYPES.contains(type)) {
        continue;
      }
      dataLayers++;
      if (batchSize != null) {
        for (Field pf : layer.fields()) {
          if (pf.isMessage() && pf.name().endsWith("data_param")) {
            pf.message().set("batch_size", Integer.toString(batchSize));
          }
        }
      }
      Message t = layer.child("transform_param");
      if (t == null) {
        if (meanValues != null || crop != null || mirror != null) {
          t = new Message();
          layer.add(Field.message("transform_param", t));
        } else {
          continue;
        }
      }
      int c = Integer.parseInt(t.value("crop_size", "0"));
      if (netCrop != null && c != netCrop) {
        throw new IllegalArgumentException(
            where
                + ": transform_param.crop_size "
                + c
                + " differs from another data layer's "
                + netCrop
                + "; SparkNet feeds both phases one input shape");
      }
      netCrop = c;
      String meanFile = t.value("mean_file", null);
      if (meanFile != null && meanValues == null) {
        if (meanSource != null && !meanSource.equals(meanFile)) {
          throw new IllegalArgumentException(
              where
                  + ": transform_param.mean_file \""
                  + meanFile
                  + "\" differs from another data layer's \""
                  + meanSource
                  + "\"; SparkNet subtracts one mean image in both phases");
        }
        if (mean == null) {
          mean = MeanImage.read(locate(meanFile, baseDirs, where));
          meanSource = meanFile;
        }
      }
      t.remove("mean_file");
      if (crop != null) {
        t.remove("crop_size");
        if (crop > 0) {
          t.add(Field.scalar("crop_size", Integer.toString(crop)));
        }
      }
      if (mirror != null) {
        // --mirror true flips training images; --mirror false turns flips off in both phases
        t.remove("mirror");
        if (mirror && !"TEST".equals(phase(layer))) {
          t.add(Field.scalar("mirror", "true"));
        }
      }
      if (meanValues != null) {
        t.remove("mean_value");
        for (float v : meanValues) {
          t.add(Field.scalar("mean_value", Float.toString(v)));
        }
      }
      if (t.fields().isEmpty()) {
        layer.remove("transform_param");
      }
    }
    if (dataLayers == 0 && (meanValues != null || batchSize != null)) {
      throw new IllegalArgumentException(
          files.netSource()
              + " has no data layer (Data, ImageData, ...) whose transform_param or batch_size"
              + " --mean-value or --batch-size could replace; set them in its Input layers and"
              + " the data instead");
    }
    int cropSize = crop != null ? crop : netCrop == null ? 0 : netCrop;
    String text = TextFormat.print(root);
    CaffeFiles rewritten =
        embedded
            ? new CaffeFiles(text, null, files.netSource())
            : new CaffeFiles(files.solverText(), text, files.netSource());
    return new NetTransforms(rewritten, cropSize, inputShape, mean);
  }

  private static Path locate(String meanFile, List<Path> baseDirs, String where) {
    Path named = Path.of(meanFile);
    List<Path> tried = new ArrayList<>();
    if (named.isAbsolute()) {
      tried.add(named);
    } else {
      for (Path dir : baseDirs) {
        Path p = dir.resolve(named).toAbsolutePath().normalize();
        if (!tried.contains(p)) {
          tried.add(p);
        }
      }
    }
    for (Path p : tried) {
      if (Files.isRegularFile(p)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        where
            + ": transform_param.mean_file \""
            + meanFile
            + "\" is at none of "
            + tried
            + "; put it there, or pass --mean-value V[,V...] to subtract per-channel means"
            + " instead");
  }

  private static Message embeddedNet(Message solver) {
    Message m = solver.child("net_param");
    return m != null ? m : solver.child("train_net_param");
  }

  private static String phase(Message layer) {
    Message inc = layer.child("include");
    return inc == null ? null : inc.value("phase", null);
  }
}
