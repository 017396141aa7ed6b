package org.sparknet.rbm;

/**
 * Exact quantities of a tiny binary RBM by enumerating every state, in double: the data and model
 * terms of the log-likelihood gradient and the mean log-likelihood of a dataset. Parameters: W
 * [visible, hidden] row-major, visible bias, hidden bias.
 */
final class ExactRbm {
  final int v;
  final int h;
  final double[] w;
  final double[] bv;
  final double[] bh;

  ExactRbm(float[] w, float[] bv, float[] bh) {
    this.v = bv.length;
    this.h = bh.length;
    this.w = toDouble(w);
    this.bv = toDouble(bv);
    this.bh = toDouble(bh);
  }

  private static double[] toDouble(float[] a) {
    double[] d = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      d[i] = a[i];
    }
    return d;
  }

  /** The gradient terms: W [v*h], visible bias [v], hidden bias [h]. */
  record Terms(double[] w, double[] visible, double[] hidden) {}

  private static int bit(int state, int i) {
    return (state >> i) & 1;
  }

  /** Data term: mean over rows x of x_i p(h_j = 1 | x), x_i, p(h_j = 1 | x). */
  Terms dataTerm(float[][] data) {
    double[] tw = new double[v * h];
    double[] tv = new double[v];
    double[] th = new double[h];
    for (float[] x : data) {
      for (int j = 0; j < h; j++) {
        double a = bh[j];
        for (int i = 0; i < v; i++) {
          a += x[i] * w[i * h + j];
        }
        double p = 1 / (1 + Math.exp(-a));
        th[j] += p / data.length;
        for (int i = 0; i < v; i++) {
          tw[i * h + j] += x[i] * p / data.length;
        }
      }
      for (int i = 0; i < v; i++) {
        tv[i] += x[i] / (double) data.length;
      }
    }
    return new Terms(tw, tv, th);
  }

  private double negEnergy(int vs, int hs) {
    double s = 0;
    for (int i = 0; i < v; i++) {
      if (bit(vs, i) == 1) {
        s += bv[i];
        for (int j = 0; j < h; j++) {
          if (bit(hs, j) == 1) {
            s += w[i * h + j];
          }
        }
      }
    }
    for (int j = 0; j < h; j++) {
      s += bh[j] * bit(hs, j);
    }
    return s;
  }

  /** Model term: expectations of v_i h_j, v_i, h_j under p(v, h), over all 2^(v+h) states. */
  Terms modelTerm() {
    double[] tw = new double[v * h];
    double[] tv = new double[v];
    double[] th = new double[h];
    double z = 0;
    for (int vs = 0; vs < (1 << v); vs++) {
      for (int hs = 0; hs < (1 << h); hs++) {
        double p = Math.exp(negEnergy(vs, hs));
        z += p;
        for (int i = 0; i < v; i++) {
          tv[i] += p * bit(vs, i);
          for (int j = 0; j < h; j++) {
            tw[i * h + j] += p * bit(vs, i) * bit(hs, j);
          }
        }
        for (int j = 0; j < h; j++) {
          th[j] += p * bit(hs, j);
        }
      }
    }
    for (double[] a : new double[][] {tw, tv, th}) {
      for (int i = 0; i < a.length; i++) {
        a[i] /= z;
      }
    }
    return new Terms(tw, tv, th);
  }

  /** Free energy F(x) = -bv.x - sum_j softplus(bh_j + (x W)_j). */
  double freeEnergy(float[] x) {
    double f = 0;
    for (int i = 0; i < v; i++) {
      f -= bv[i] * x[i];
    }
    for (int j = 0; j < h; j++) {
      double a = bh[j];
      for (int i = 0; i < v; i++) {
        a += x[i] * w[i * h + j];
      }
      f -= a > 0 ? a + Math.log1p(Math.exp(-a)) : Math.log1p(Math.exp(a));
    }
    return f;
  }

  /** Mean log p(x) over the rows: -F(x) - log Z, Z summed over all 2^v visible states. */
  double meanLogLikelihood(float[][] data) {
    double[] fs = new double[1 << v];
    double min = Double.POSITIVE_INFINITY;
    for (int vs = 0; vs < fs.length; vs++) {
      float[] x = new float[v];
      for (int i = 0; i < v; i++) {
        x[i] = bit(vs, i);
      }
      fs[vs] = freeEnergy(x);
      min = Math.min(min, fs[vs]);
    }
    double z = 0;
    for (double f : fs) {
      z += Math.exp(-(f - min));
    }
    double logZ = Math.log(z) - min;
    double s = 0;
    for (float[] x : data) {
      s += -freeEnergy(x) - logZ;
    }
    return s / data.length;
  }
}
