package org.sparknet.api.averaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The 16-bit codecs against their stated bounds: every 16-bit value survives a round trip bit for
 * bit; any float rounds to the nearest representable value, ties to even, checked against a
 * reference computed exactly in double ({@code rint(v / ulp) * ulp}); relative error at most 2^-11
 * (FP16, normal range) and 2^-8 (BF16); FP16's subnormals, overflow to infinity and NaN. Mutations
 * seen red: FP16's exponent rebias off by one (0x400 came back as 0x800), subnormals truncated
 * instead of rounded (5.49e-8 gave -0 instead of -2^-24), BF16 without its NaN case (a NaN with a
 * low payload became infinity), a case-sensitive parse.
 */
class CompressionTest {
  private static final Compression FP16 = Compression.FP16;
  private static final Compression BF16 = Compression.BF16;

  private static float roundTrip(Compression c, float v) {
    return c.decode(c.encode(v));
  }

  /** The nearest value with {@code mantissa} bits and least exponent {@code minExp}, or inf. */
  private static double reference(float v, int mantissa, int minExp, double max) {
    double a = Math.abs((double) v);
    int e = Math.max(Math.getExponent(v), minExp);
    double ulp = Math.scalb(1.0, e - mantissa);
    double r = Math.rint(a / ulp) * ulp; // a / ulp and the product are exact in double
    if (r > max) {
      r = Double.POSITIVE_INFINITY;
    }
    return Math.copySign(r, v);
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"FP16", "BF16"})
  void everySixteenBitValueSurvivesARoundTrip(Compression c) {
    for (int h = 0; h < 1 << 16; h++) {
      float v = c.decode((short) h);
      short back = c.encode(v);
      if (Float.isNaN(v)) {
        assertTrue(Float.isNaN(c.decode(back)), "NaN " + Integer.toHexString(h));
      } else {
        assertEquals((short) h, back, "value " + v + " from 0x" + Integer.toHexString(h));
      }
    }
  }

  @Test
  void fp16RoundsToNearestEvenWithinItsStatedBounds() {
    SplittableRandom r = new SplittableRandom(16);
    for (int i = 0; i < 300_000; i++) {
      // every binade from 2^-30 to 2^17: subnormals, normals and overflow
      float v =
          (float)
              ((r.nextBoolean() ? 1 : -1) * r.nextDouble(1, 2) * Math.pow(2, r.nextInt(-30, 18)));
      double ref = reference(v, 10, -14, 65504);
      float got = roundTrip(FP16, v);
      assertEquals((float) ref, got, 0f, "fp16(" + v + ")");
      float a = Math.abs(v);
      if (a >= 0x1p-14f && a <= 65504f) {
        assertTrue(Math.abs(got - v) <= 0x1p-11 * a, "relative error of " + v);
      } else if (a < 0x1p-14f) {
        assertTrue(Math.abs(got - v) <= 0x1p-25, "absolute error of subnormal " + v);
      }
    }
  }

  @Test
  void fp16TiesEdgesOverflowAndNaN() {
    assertEquals(1f, roundTrip(FP16, 1f + 0x1p-11f), "a tie rounds to the even neighbour");
    assertEquals(1f + 0x1p-9f, roundTrip(FP16, 1f + 0x1p-10f + 0x1p-11f), "this tie rounds up");
    assertEquals(65504f, roundTrip(FP16, 65504f));
    assertEquals(65504f, roundTrip(FP16, 65519.99f));
    assertEquals(Float.POSITIVE_INFINITY, roundTrip(FP16, 65520f), "half way to 2^16");
    assertEquals(Float.NEGATIVE_INFINITY, roundTrip(FP16, -1e10f));
    assertEquals(0x1p-24f, roundTrip(FP16, 0x1p-24f), "the least subnormal");
    assertEquals(0f, roundTrip(FP16, 0x1p-25f), "a tie with zero rounds to zero (even)");
    assertEquals(0x1p-24f, roundTrip(FP16, 0x1.000002p-25f));
    assertEquals(Float.floatToIntBits(-0f), Float.floatToIntBits(roundTrip(FP16, -0x1p-27f)));
    assertEquals(0x1p-14f, roundTrip(FP16, 0x1.ffcp-15f + 0x1p-26f), "up into the normals");
    assertTrue(Float.isNaN(roundTrip(FP16, Float.NaN)));
    assertTrue(Float.isNaN(roundTrip(FP16, Float.intBitsToFloat(0x7f800001))), "low payload");
    assertEquals(Float.POSITIVE_INFINITY, roundTrip(FP16, Float.POSITIVE_INFINITY));
  }

  @Test
  void bf16RoundsToNearestEvenWithinItsStatedBounds() {
    SplittableRandom r = new SplittableRandom(8);
    double max = (2 - 0x1p-7) * 0x1p127;
    for (int i = 0; i < 300_000; i++) {
      float v = Float.intBitsToFloat(r.nextInt()); // every float, subnormals included
      if (Float.isNaN(v) || Float.isInfinite(v)) {
        continue;
      }
      float got = roundTrip(BF16, v);
      assertEquals((float) reference(v, 7, -126, max), got, 0f, "bf16(" + v + ")");
      if (Math.abs(v) >= Float.MIN_NORMAL && !Float.isInfinite(got)) {
        assertTrue(Math.abs(got - v) <= 0x1p-8 * Math.abs(v), "relative error of " + v);
      }
    }
    assertEquals(Float.POSITIVE_INFINITY, roundTrip(BF16, Float.MAX_VALUE));
    assertEquals((float) max, roundTrip(BF16, (float) max));
    assertTrue(Float.isNaN(roundTrip(BF16, Float.intBitsToFloat(0x7f800001))), "low payload");
    assertEquals(Float.floatToIntBits(-0f), Float.floatToIntBits(roundTrip(BF16, -0f)));
  }

  @Test
  void offsetsAreEncodedFromTheCentreAndTheirLargestMagnitudeReported() {
    float[] w = {1.5f, -2f, 3f, 0f};
    float[] c = {1f, -1f, 3f, 0.25f};
    short[] out = new short[4];
    assertEquals(1f, FP16.encodeOffsets(w, c, out, 0, 4));
    assertEquals(0.5f, FP16.decode(out[0]));
    assertEquals(-1f, FP16.decode(out[1]));
    assertEquals(0f, FP16.decode(out[2]));
    assertEquals(-0.25f, FP16.decode(out[3]));
    w[2] = Float.NaN;
    assertTrue(Float.isNaN(BF16.encodeOffsets(w, c, out, 0, 4)));
  }

  @Test
  void namesParseAndNoneHasNoSixteenBitForm() {
    assertEquals(BF16, Compression.parse("BF16", "--compress"));
    assertEquals(Compression.NONE, Compression.parse(" none ", "--compress"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Compression.parse("int8", "--compress"));
    assertEquals("--compress must be none, fp16 or bf16 but was 'int8'", e.getMessage());
    assertThrows(IllegalStateException.class, () -> Compression.NONE.encode(1f));
    assertEquals(2, FP16.bytesPerValue());
    assertEquals(4, Compression.NONE.bytesPerValue());
  }
}
