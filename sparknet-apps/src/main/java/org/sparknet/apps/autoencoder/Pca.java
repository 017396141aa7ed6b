package org.sparknet.apps.autoencoder;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaRDD;
import org.sparknet.api.data.Example;
import org.sparknet.ndarray.NDArray;

/**
 * Principal component analysis, the baseline of the auto-encoder: the mean and the second moments
 * of the training data summed on the executors (X^T X of each block of rows in OpenBLAS, totals in
 * double), the covariance on the driver, and its top components by subspace (block power) iteration
 * in double until they stop moving.
 */
public final class Pca {
  private static final int BLOCK = 256;

  private final int dim;
  private final double[] mean;
  private final double[][] components; // [k][dim], orthonormal

  private Pca(double[] mean, double[][] components) {
    this.dim = mean.length;
    this.mean = mean;
    this.components = components;
  }

  public int numComponents() {
    return components.length;
  }

  /** Fits {@code k} components to the examples' features. */
  public static Pca fit(JavaRDD<Example> data, int k) {
    double[] sums =
        data.mapPartitions(Pca::partitionMoments).reduce(Pca::addInPlace); // [n, sum x, sum xx^T]
    int d = (int) Math.round((-1 + Math.sqrt(1 + 4 * (sums.length - 1))) / 2);
    double n = sums[0];
    if (n < 2) {
      throw new IllegalArgumentException("PCA needs at least 2 examples but got " + (long) n);
    }
    double[] mean = new double[d];
    for (int i = 0; i < d; i++) {
      mean[i] = sums[1 + i] / n;
    }
    double[] cov = new double[d * d];
    for (int i = 0; i < d; i++) {
      for (int j = 0; j < d; j++) {
        cov[i * d + j] = sums[1 + d + i * d + j] / n - mean[i] * mean[j];
      }
    }
    return new Pca(mean, topEigenvectors(cov, d, k));
  }

  private static Iterator<double[]> partitionMoments(Iterator<Example> it) {
    List<float[]> rows = new ArrayList<>();
    double[] out = null;
    int d = -1;
    while (true) {
      boolean more = it.hasNext();
      if (more) {
        float[] f = it.next().features();
        if (d < 0) {
          d = f.length;
          out = new double[1 + d + d * d];
        } else if (f.length != d) {
          throw new IllegalArgumentException(
              "PCA: examples have " + d + " and " + f.length + " features");
        }
        rows.add(f);
      }
      if (!rows.isEmpty() && (rows.size() == BLOCK || !more)) {
        accumulate(rows, d, out);
        rows.clear();
      }
      if (!more) {
        break;
      }
    }
    return List.of(out == null ? new double[0] : out).iterator();
  }

  private static void accumulate(List<float[]> rows, int d, double[] out) {
    float[] block = new float[rows.size() * d];
    for (int r = 0; r < rows.size(); r++) {
      System.arraycopy(rows.get(r), 0, block, r * d, d);
      for (int i = 0; i < d; i++) {
        out[1 + i] += rows.get(r)[i];
      }
    }
    out[0] += rows.size();
    try (NDArray x = NDArray.create(block, rows.size(), d);
        NDArray xtx = NDArray.zeros(d, d)) {
      xtx.gemm(1f, x, true, x, false, 0f);
      float[] m = xtx.toArray();
      for (int i = 0; i < m.length; i++) {
        out[1 + d + i] += m[i];
      }
    }
  }

  private static double[] addInPlace(double[] a, double[] b) {
    if (a.length == 0) {
      return b;
    }
    if (b.length == 0) {
      return a;
    }
    for (int i = 0; i < a.length; i++) {
      a[i] += b[i];
    }
    return a;
  }

  /** The top-k eigenvectors of a symmetric matrix by subspace iteration with Gram-Schmidt. */
  static double[][] topEigenvectors(double[] m, int d, int k) {
    SplittableRandom rnd = new SplittableRandom(1);
    double[][] q = new double[k][d];
    for (double[] v : q) {
      for (int i = 0; i < d; i++) {
        v[i] = rnd.nextGaussian();
      }
    }
    orthonormalize(q);
    for (int iter = 0; iter < 5000; iter++) {
      double[][] z = new double[k][d];
      for (int c = 0; c < k; c++) {
        for (int i = 0; i < d; i++) {
          double s = 0;
          for (int j = 0; j < d; j++) {
            s += m[i * d + j] * q[c][j];
          }
          z[c][i] = s;
        }
      }
      orthonormalize(z);
      double change = 0;
      for (int c = 0; c < k; c++) {
        double dot = 0;
        for (int i = 0; i < d; i++) {
          dot += z[c][i] * q[c][i];
        }
        change = Math.max(change, 1 - Math.abs(dot));
      }
      q = z;
      if (change < 1e-12) {
        break;
      }
    }
    return q;
  }

  private static void orthonormalize(double[][] q) {
    for (int c = 0; c < q.length; c++) {
      for (int p = 0; p < c; p++) {
        double dot = 0;
        for (int i = 0; i < q[c].length; i++) {
          dot += q[c][i] * q[p][i];
        }
        for (int i = 0; i < q[c].length; i++) {
          q[c][i] -= dot * q[p][i];
        }
      }
      double norm = 0;
      for (double x : q[c]) {
        norm += x * x;
      }
      norm = Math.sqrt(norm);
      for (int i = 0; i < q[c].length; i++) {
        q[c][i] /= norm;
      }
    }
  }

  /** Mean squared error per feature of the projection onto the components and back. */
  public double reconstructionError(List<Example> examples) {
    double sse = 0;
    long count = 0;
    double[] centered = new double[dim];
    for (Example e : examples) {
      float[] x = e.features();
      for (int i = 0; i < dim; i++) {
        centered[i] = x[i] - mean[i];
      }
      double[] coeff = new double[components.length];
      for (int c = 0; c < components.length; c++) {
        for (int i = 0; i < dim; i++) {
          coeff[c] += components[c][i] * centered[i];
        }
      }
      for (int i = 0; i < dim; i++) {
        double r = 0;
        for (int c = 0; c < components.length; c++) {
          r += coeff[c] * components[c][i];
        }
        double diff = centered[i] - r;
        sse += diff * diff;
      }
      count += dim;
    }
    return sse / count;
  }
}
