package org.sparknet.apps.cli;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.DataFormats;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.SampleHints;
import org.sparknet.api.model.ModelStore;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.caffe.OnnxExport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** A Caffe net and its weights as an ONNX model, for serving outside Spark and Caffe. */
@Command(
    name = "export",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Export a Caffe net and its trained weights to an ONNX model (opset 13) for ONNX Runtime"
          + " and other ONNX runtimes. The net's TEST phase is exported: its input is the data"
          + " blob as the layers see it (after transform_param) with a symbolic batch, loss and"
          + " accuracy layers are dropped, and a SoftmaxWithLoss adds a Softmax output 'prob'"
          + " beside the scores. A layer ONNX export does not support is an error naming it."
    })
public final class ExportCommand implements Callable<Integer> {
  @Option(
      names = "--net",
      required = true,
      paramLabel = "FILE",
      description = "Caffe net prototxt (train_val or deploy); a Hadoop URI or path.")
  String net;

  @Option(
      names = "--weights",
      required = true,
      paramLabel = "FILE",
      description = "Trained weights (.caffemodel, as train or caffe train write them).")
  String weights;

  @Option(
      names = "--onnx",
      required = true,
      paramLabel = "FILE",
      description = "ONNX model to write (must not exist).")
  String onnx;

  @Option(
      names = "--sample-shape",
      paramLabel = "C,H,W",
      split = ",",
      hideParamSyntax = true,
      description = "Shape of one example, for nets with Data layers (which do not declare it).")
  List<Integer> sampleShape;

  @Option(
      names = "--sample",
      paramLabel = "URI",
      description =
          "Data whose first example gives the shape instead of --sample-shape (an LMDB or"
              + " LevelDB of Datums, IDX, CIFAR, ...; --sample-format says which).")
  String sample;

  @Option(
      names = "--sample-format",
      defaultValue = "lmdb",
      paramLabel = "FORMAT",
      description = "The format of --sample (default ${DEFAULT-VALUE}; the names --format takes).")
  String sampleFormat;

  @Override
  public Integer call() throws Exception {
    StoragePath netFile = NetOptions.existing(net, "--net");
    StoragePath weightsFile = NetOptions.existing(weights, "--weights");
    StoragePath out = TrainCommand.outputOption(onnx, "--onnx");
    if (out.exists()) {
      throw new IllegalArgumentException("--onnx " + out + " already exists; choose a new file");
    }
    out.checkWritable(false, "--onnx"); // before the net is read and converted
    if (sample != null && sampleShape != null) {
      throw new IllegalArgumentException("Give --sample or --sample-shape, not both");
    }
    if (sampleShape != null) {
      SampleShapes.check(sampleShape, "3,227,227");
    }
    List<Integer> shape = sample == null ? sampleShape : sampleShapeOf(sample, sampleFormat);
    NetDefinition def = OnnxExport.definition(CaffeFiles.netText(netFile), shape);
    WeightCollection w =
        new ModelStore(weightsFile.settings().conf()).readLayers(def, weightsFile.toString());
    // The whole net is converted and checked before a file is opened: a failed export leaves none.
    OnnxExport model = OnnxExport.of(def, w);
    StoragePath.writeByRename(out.fileSystem(), out.hadoopPath(), model::writeTo);
    System.out.printf(
        "Exported %s with %s to %s%n  inputs:  %s%n  outputs: %s%n",
        netFile,
        weightsFile,
        out,
        String.join(", ", model.inputs()),
        String.join(", ", model.outputs()));
    return SparkNetCli.EXIT_OK;
  }

  /** The shape of one example of {@code uri}, read as the format {@code format} reads it. */
  private static List<Integer> sampleShapeOf(String uri, String format) {
    DataRequest r = new DataRequest(uri, "--sample", null, null, false, Map.of());
    return DataFormats.named(format).open(r).sampleShape(SampleHints.NONE);
  }
}
