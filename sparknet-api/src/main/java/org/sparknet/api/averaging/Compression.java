package org.sparknet.api.averaging;

import java.util.Locale;

/**
 * How a worker sends its weights back after a round: as 32-bit floats ({@link #NONE}), or as its
 * offset from the round's centre in 16 bits ({@link #FP16}, {@link #BF16}), which halves what each
 * worker sends. The driver decodes the offsets and averages in 32 bits ({@link Averager}).
 *
 * <p>Both 16-bit formats round to nearest, ties to even, as IEEE 754 conversions do; a value the
 * format holds exactly survives {@link #encode}/{@link #decode} unchanged, and the sign of zero is
 * kept.
 *
 * <ul>
 *   <li>{@link #FP16}: IEEE binary16 (1 sign, 5 exponent, 10 mantissa bits). Normal range 2^-14
 *       (6.1e-5) to 65504 with relative error at most 2^-11; below 2^-14 subnormals with absolute
 *       error at most 2^-25, and magnitudes under 2^-25 become (signed) zero; from 65520 on the
 *       result is infinity (the trainer then reports the round as diverged). NaN stays NaN.
 *   <li>{@link #BF16}: bfloat16, the upper half of a float (1 sign, 8 exponent, 7 mantissa bits):
 *       float's range, relative error at most 2^-8 for normal floats, subnormal floats to the
 *       nearest multiple of 2^-133; a float within half a unit of Float.MAX_VALUE's bf16 neighbour
 *       rounds to infinity. NaN stays NaN (made quiet).
 * </ul>
 */
public enum Compression {
  /** 32-bit floats: the workers' weights as they are. */
  NONE,
  /** IEEE half precision. */
  FP16,
  /** bfloat16. */
  BF16;

  /** The largest finite FP16 value; larger offsets do not survive {@link #FP16}. */
  public static final float FP16_MAX = 65504f;

  /** Floats per block of {@link #encode(float[], float[], short[], int, int)}: fits in L1. */
  private static final int BLOCK = 2048;

  /** The name the CLI and the Spark ML param use: "none", "fp16", "bf16". */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses "none", "fp16" or "bf16" (any case).
   *
   * @param what names the option in the error, e.g. "--compress"
   */
  public static Compression parse(String name, String what) {
    for (Compression c : values()) {
      if (c.cliName().equalsIgnoreCase(name == null ? "" : name.strip())) {
        return c;
      }
    }
    throw new IllegalArgumentException(what + " must be none, fp16 or bf16 but was '" + name + "'");
  }

  /** Bytes one value takes on the wire. */
  public int bytesPerValue() {
    return this == NONE ? 4 : 2;
  }

  /** {@code v} in this format, as the 16 bits of a short. */
  public short encode(float v) {
    return switch (this) {
      case FP16 -> toFp16(v);
      case BF16 -> toBf16(v);
      case NONE -> throw new IllegalStateException("Compression NONE has no 16-bit form");
    };
  }

  /** The float a 16-bit value of this format stands for (exact). */
  public float decode(short h) {
    return switch (this) {
      case FP16 -> fromFp16(h);
      case BF16 -> fromBf16(h);
      case NONE -> throw new IllegalStateException("Compression NONE has no 16-bit form");
    };
  }

  /**
   * {@code out[i] = encode(values[i] - centre[i])} for {@code i} in {@code [from, to)}: a worker's
   * offset from the round's centre. Returns the largest magnitude of the offsets before rounding
   * (NaN when one is NaN), which tells the caller whether the worker's weights stayed finite.
   */
  public float encodeOffsets(float[] values, float[] centre, short[] out, int from, int to) {
    if (this == NONE) {
      throw new IllegalStateException("Compression NONE has no 16-bit form");
    }
    boolean half = this == FP16;
    float max = 0f;
    for (int lo = from; lo < to; lo += BLOCK) {
      int hi = Math.min(to, lo + BLOCK);
      for (int i = lo; i < hi; i++) {
        float d = values[i] - centre[i];
        max = Math.max(max, Math.abs(d));
        out[i] = half ? toFp16(d) : toBf16(d);
      }
    }
    return max;
  }

  /**
   * Every 16-bit value's float, indexed by its bits (256 KB, built on first use): decoding by table
   * is a load where the bit arithmetic is a dozen dependent operations that C2 does not vectorise.
   */
  float[] decodeTable() {
    return switch (this) {
      case FP16 -> Tables.HALF;
      case BF16 -> Tables.BRAIN;
      case NONE -> throw new IllegalStateException("Compression NONE has no 16-bit form");
    };
  }

  /** The decode tables, built when first used (holder idiom). */
  private static final class Tables {
    static final float[] HALF = table(Compression.FP16);
    static final float[] BRAIN = table(Compression.BF16);

    private static float[] table(Compression c) {
      float[] t = new float[1 << 16];
      for (int h = 0; h < t.length; h++) {
        t[h] = c.decode((short) h);
      }
      return t;
    }
  }

  private static float fromBf16(short h) {
    return Float.intBitsToFloat((h & 0xffff) << 16);
  }

  private static short toBf16(float v) {
    int bits = Float.floatToRawIntBits(v);
    if ((bits & 0x7fffffff) > 0x7f800000) {
      return (short) ((bits >>> 16) | 0x0040); // NaN: keep sign and top payload, make it quiet
    }
    // Round to nearest even on the 16 bits dropped; a carry moves into the exponent, and the
    // largest floats round up to infinity, as they should.
    return (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
  }

  private static short toFp16(float v) {
    int bits = Float.floatToRawIntBits(v);
    int sign = (bits >>> 16) & 0x8000;
    int abs = bits & 0x7fffffff;
    if (abs >= 0x38800000) { // >= 2^-14: a normal half, infinity or NaN
      if (abs >= 0x7f800000) {
        return (short) (sign | 0x7c00 | (abs > 0x7f800000 ? 0x0200 | (abs >>> 13) & 0x3ff : 0));
      }
      if (abs >= 0x477ff000) { // 65520 and up: half way to 2^16 or beyond rounds to infinity
        return (short) (sign | 0x7c00);
      }
      int r = abs - 0x38000000; // rebias the exponent from 127 to 15
      r += 0x0fff + ((r >>> 13) & 1); // round to nearest even on the 13 bits dropped
      return (short) (sign | (r >>> 13));
    }
    // Below 2^-14: a subnormal half, m * 2^-24 with m = round(|v| * 2^24). Adding 0.5f puts |v| in
    // the binade whose unit is 2^-24, so the hardware's rounding of the sum rounds m to even.
    int m = Float.floatToRawIntBits(Float.intBitsToFloat(abs) + 0.5f) - 0x3f000000;
    return (short) (sign | m);
  }

  private static float fromFp16(short h) {
    int bits = h & 0xffff;
    int sign = (bits & 0x8000) << 16;
    int em = bits & 0x7fff;
    if (em >= 0x7c00) {
      return Float.intBitsToFloat(sign | 0x7f800000 | (em & 0x3ff) << 13);
    }
    if (em >= 0x0400) {
      return Float.intBitsToFloat(sign | (em + 0x1c000) << 13); // exponent + 112
    }
    float v = em * 0x1p-24f; // a subnormal half or zero: exact in float
    return sign == 0 ? v : -v;
  }
}
