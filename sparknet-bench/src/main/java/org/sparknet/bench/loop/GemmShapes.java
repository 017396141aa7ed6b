package org.sparknet.bench.loop;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatLayer;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.caffe.LayerParameter;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.NetDefinition;
import org.sparknet.caffe.PlainCaffeSolver;

/**
 * The matrix products Caffe's CPU code runs for one training step of a net, read from the layer
 * shapes of the built net. Convolution (im2col, per image and group): forward C[M=out/g, N=HoWo] =
 * W[M, K=in/g*kh*kw] x col[K, N]; backward weights dW[M, K] += dTop[M, N] x col^T; backward data
 * dCol[K, N] = W^T x dTop. Inner product (per batch): forward top[M=batch, N=out] = x[batch, K=in]
 * x W^T; backward weights dW[out, in] += dTop^T x x (K = batch); backward data dx[batch, in] = dTop
 * x W (K = out). A layer whose bottom is a net input gets no backward-data product (Caffe skips
 * it). Pooling, ReLU, LRN, softmax and the bias terms are not counted: FLOPs here are GEMM FLOPs.
 */
public final class GemmShapes {
  private GemmShapes() {}

  /** CBLAS transpose flags. */
  public static final int NO_TRANS = 111;

  public static final int TRANS = 112;

  /**
   * One product, {@code calls} times per image (per-image convolutions) or per batch divided by the
   * batch ({@code perBatch}).
   */
  public record Gemm(
      String layer,
      String pass,
      int transA,
      int transB,
      int m,
      int n,
      int k,
      int callsPerStep,
      int batch) {
    public double flops() {
      return 2.0 * m * n * k;
    }

    /** FLOPs of this product per training image. */
    public double flopsPerImage() {
      return flops() * callsPerStep / batch;
    }

    public String shape() {
      return m + "×" + n + "×" + k;
    }
  }

  /** The products of one training step of {@code def}'s TRAIN net. */
  public static List<Gemm> of(NetDefinition def) {
    List<Gemm> out = new ArrayList<>();
    try (PointerScope scope = new PointerScope()) {
      try (PlainCaffeSolver solver = PlainCaffeSolver.create(def)) {
        FloatNet net = solver.net();
        Set<String> inputs = new HashSet<>();
        for (int i = 0; i < net.layers().size(); i++) {
          FloatLayer layer = net.layers().get(i);
          String type = layer.type().getString();
          LayerParameter lp = layer.layer_param();
          String name = lp.name().getString();
          if (type.equals("Input")) {
            for (int t = 0; t < lp.top_size(); t++) {
              inputs.add(lp.top(t).getString());
            }
            continue;
          }
          if (!type.equals("Convolution") && !type.equals("InnerProduct")) {
            continue;
          }
          FloatBlob bottom = net.blob_by_name(lp.bottom(0).getString());
          FloatBlob top = net.blob_by_name(lp.top(0).getString());
          FloatBlob w = layer.blobs().get(0);
          boolean backData = !inputs.contains(lp.bottom(0).getString());
          int batch = bottom.shape(0);
          if (type.equals("Convolution")) {
            int g = Math.max(1, lp.convolution_param().group());
            int m = w.shape(0) / g;
            int k = w.count() / w.shape(0);
            int n = top.count() / (top.shape(0) * top.shape(1));
            int calls = batch * g;
            out.add(new Gemm(name, "forward", NO_TRANS, NO_TRANS, m, n, k, calls, batch));
            out.add(new Gemm(name, "backward weights", NO_TRANS, TRANS, m, k, n, calls, batch));
            if (backData) {
              out.add(new Gemm(name, "backward data", TRANS, NO_TRANS, k, n, m, calls, batch));
            }
          } else {
            int outputs = w.shape(0);
            int in = w.count() / outputs;
            out.add(new Gemm(name, "forward", NO_TRANS, TRANS, batch, outputs, in, 1, batch));
            out.add(
                new Gemm(name, "backward weights", TRANS, NO_TRANS, outputs, in, batch, 1, batch));
            if (backData) {
              out.add(
                  new Gemm(
                      name, "backward data", NO_TRANS, NO_TRANS, batch, in, outputs, 1, batch));
            }
          }
        }
      }
    }
    return out;
  }

  public static double flopsPerImage(List<Gemm> gemms) {
    return gemms.stream().mapToDouble(Gemm::flopsPerImage).sum();
  }
}
