package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.caffe.internal.TextFormat;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.OnnxRuntimeRun;

/**
 * The model-zoo nets exported to ONNX run in ONNX Runtime and give Caffe's outputs on real
 * Fashion-MNIST images, within {@link OnnxCheck#ONNX}.
 */
class OnnxExportIT {
  @TempDir Path dir;

  /**
   * LeNet, trained a few steps so that its weights are not the fillers', saved as a .caffemodel and
   * exported from the files. With floor instead of ceil rounding in pooling the shapes still match
   * (LeNet's pools divide evenly), so this test guards the layers, the weights' layout (with Gemm's
   * transB flipped ONNX Runtime refused to run ip1: 'Gemm: Invalid bias shape for broadcast') and
   * the symbolic batch.
   */
  @Test
  void lenetMatchesCaffeOnFashionMnist() throws Exception {
    NetDefinition def = Zoo.lenet();
    Path prototxt = Files.writeString(dir.resolve("lenet.prototxt"), def.netText());
    Path weights = dir.resolve("lenet.caffemodel");
    Path onnx = dir.resolve("lenet.onnx");
    BatchFeeder feeder = OnnxCheck.fashion(255f); // raw bytes: the Data layers scale by 1/256
    try (CaffeNet net = CaffeNet.create(def, false)) {
      assertTrue(Float.isFinite(net.train(20, feeder)));
      CaffeModels.save(net, weights, false);
      OnnxExport s = OnnxExport.export(prototxt, weights, List.of(1, 28, 28), onnx);
      assertEquals(List.of("data [N, 1, 28, 28]"), s.inputs());
      assertEquals(List.of("ip2 [N, 10]", "prob [N, 10]"), s.outputs());
      try (OnnxRuntimeRun ort = OnnxRuntimeRun.of(onnx)) {
        assertEquals(List.of("data"), ort.inputNames());
        assertEquals(-1L, ort.inputShape("data")[0], "the batch is symbolic");
        double worst = OnnxCheck.compare(net, ort, feeder, List.of("ip2"));
        System.out.println("LeNet: largest |Caffe - ONNX Runtime| of ip2 " + worst);

        Map<String, OnnxCheck.Blob> caffe = OnnxCheck.forward(net, feeder, List.of("data", "ip2"));
        float[] data = caffe.get("data").values();
        // 3 examples: the batch of the export is not the 100 of the TEST net
        float[] three = java.util.Arrays.copyOf(data, 3 * 784);
        Map<String, OnnxRuntimeRun.Output> out = ort.run("data", three, 3, 1, 28, 28);
        float[] scores = java.util.Arrays.copyOf(caffe.get("ip2").values(), 30);
        NDAssert.assertAllClose(scores, out.get("ip2").values(), OnnxCheck.ONNX);
        NDAssert.assertAllClose(
            OnnxCheck.softmax(scores, 10), out.get("prob").values(), OnnxCheck.ONNX);
      }
    }
    IllegalArgumentException again =
        assertThrows(
            IllegalArgumentException.class,
            () -> OnnxExport.export(prototxt, weights, List.of(1, 28, 28), onnx));
    assertTrue(again.getMessage().contains("already exists"), again.getMessage());
  }

  /**
   * CaffeNet (the zoo's AlexNet-sized net: grouped and padded convolutions, LRN, overlapping max
   * pooling, dropout) at its filler weights, on Fashion-MNIST pixels tiled to 3 x 256 x 256, mean
   * subtracted and centre-cropped to 227 by Caffe's TEST transform. With LRN's alpha divided by the
   * window size once more in the export, fc8 gave 'expected -0.335753 but was -0.3377781'.
   */
  @Test
  void caffeNetMatchesCaffeOnRealPixels() throws Exception {
    Path mean =
        MeanFiles.write(
            dir.resolve("mean.binaryproto"), 3, 256, 256, MeanFiles.ramp(3 * 256 * 256, 110f, 0f));
    TextFormat.Message net = TextFormat.parse(Zoo.text("caffenet_train_val.prototxt"), "zoo");
    for (TextFormat.Field layer : net.all("layer")) {
      TextFormat.Message tp = layer.message().child("transform_param");
      if (tp != null) {
        tp.setString("mean_file", mean.toString());
      }
      TextFormat.Message dp = layer.message().child("data_param");
      if (dp != null) {
        dp.set("batch_size", "2");
      }
    }
    NetDefinition def =
        NetDefinition.caffe(
            Zoo.text("caffenet_solver.prototxt"), TextFormat.print(net), List.of(3, 256, 256));
    try (CaffeNet caffe = CaffeNet.create(def, false)) {
      byte[] model = OnnxExport.of(def, caffe.getWeights()).toBytes();
      try (OnnxRuntimeRun ort = OnnxRuntimeRun.of(model)) {
        assertEquals(List.of("fc8", "prob"), ort.outputNames().stream().sorted().toList());
        double worst = OnnxCheck.compare(caffe, ort, OnnxCheck.fashion(255f), List.of("fc8"));
        System.out.println("CaffeNet: largest |Caffe - ONNX Runtime| of fc8 " + worst);
      }
    }
  }
}
