package org.sparknet.caffe.internal;

import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bytedeco.caffe.BlobProto;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.Phase;

/**
 * Caffe's DataTransformer for data fed from the JVM, for inputs whose {@code transform_param}
 * crops, mirrors or subtracts a mean file (scale and mean_value alone are applied in place by the
 * net). The feeder writes whole examples into a staging array owned here; {@link #apply} then
 * copies each example into the blob as Caffe does: a random crop in TRAIN and the centre crop in
 * TEST, a random left-right flip when {@code mirror} is set (in either phase, as in Caffe), {@code
 * x - mean} then {@code * scale}. Random choices come from a generator seeded with the net's seed,
 * so runs repeat.
 *
 * <p>Owns its staging memory and frees it in {@link #close()}.
 */
public final class InputTransforms implements AutoCloseable {
  // by the plan's InputBlob itself: test nets may each have an input of the same name
  private final Map<InputBlob, FloatPointer> staging = new IdentityHashMap<>();
  private final Map<Path, float[]> meanImages = new HashMap<>();
  private final Random random;
  private boolean closed;

  /** Loads and checks every mean file the plan's inputs name. */
  public InputTransforms(NetPlan plan, long seed) {
    this.random = new Random(seed ^ 0x5DEECE66DL);
    List<List<InputBlob>> all = new ArrayList<>();
    all.add(plan.trainInputs());
    plan.testNets().forEach(t -> all.add(t.inputs()));
    for (List<InputBlob> ins : all) {
      for (InputBlob in : ins) {
        if (in.transform().meanFile() != null
            && !meanImages.containsKey(in.transform().meanFile())) {
          meanImages.put(in.transform().meanFile(), readMean(in));
        }
      }
    }
  }

  /** Restarts the generator of crops and flips from {@code seed}. */
  public void reseed(long seed) {
    random.setSeed(seed ^ 0x5DEECE66DL);
  }

  /** Floats of one fed example: the product of {@code feedShape} after the batch dim. */
  private static int exampleSize(int[] shape) {
    int n = 1;
    for (int i = 1; i < shape.length; i++) {
      n *= shape[i];
    }
    return n;
  }

  private static float[] readMean(InputBlob in) {
    Path file = in.transform().meanFile();
    int expected = exampleSize(in.feedShape());
    CaffeRuntime.load();
    try (PointerScope scope = new PointerScope()) {
      BlobProto proto = new BlobProto();
      // the file exists and is readable (NetPlan checked); a parse failure returns false
      if (!caffe.ReadProtoFromBinaryFile(file.toString(), proto)) {
        throw new IllegalArgumentException(
            meanFileOf(in) + " is not a binary Caffe BlobProto (.binaryproto)");
      }
      int n = proto.data_size();
      if (n != expected) {
        throw new IllegalArgumentException(
            meanFileOf(in)
                + " holds "
                + n
                + " floats but an example has "
                + expected
                + " (shape "
                + java.util.Arrays.toString(
                    java.util.Arrays.copyOfRange(in.feedShape(), 1, in.feedShape().length))
                + "); Caffe needs a mean image of the uncropped example's size");
      }
      float[] mean = new float[n];
      for (int i = 0; i < n; i++) {
        mean[i] = proto.data(i);
      }
      return mean;
    }
  }

  /** "Mean file F of input 'I' (layer 'L')", for messages. */
  private static String meanFileOf(InputBlob in) {
    return "Mean file "
        + in.transform().meanFile()
        + " of input '"
        + in.name()
        + "' (layer '"
        + in.layer()
        + "')";
  }

  /** The staging memory of one input (allocated on first use, reused for every batch). */
  public FloatPointer staging(Phase phase, InputBlob in) {
    if (closed) {
      throw new IllegalStateException("InputTransforms closed");
    }
    FloatPointer p = staging.get(in);
    if (p == null) {
      long count = (long) in.feedShape()[0] * exampleSize(in.feedShape());
      p = new FloatPointer(count);
      // feeding runs inside the caller's PointerScope; this memory lives until close(). Detaching
      // drops the scope's reference, so take one of our own first (released by close()).
      p.retainReference();
      PointerScope scope = PointerScope.getInnerScope();
      if (scope != null) {
        scope.detach(p);
      }
      staging.put(in, p);
    }
    return p;
  }

  /** Copies the staged batch into the blob with Caffe's crop, mirror, mean and scale. */
  public void apply(Phase phase, InputBlob in, FloatPointer staged, FloatBuffer blob) {
    int[] feed = in.feedShape();
    int[] out = in.shape();
    int batch = feed[0];
    int channels = feed.length > 1 ? feed[1] : 1;
    int height = feed.length > 2 ? feed[2] : 1;
    int width = feed.length > 3 ? feed[3] : 1;
    for (int i = 4; i < feed.length; i++) {
      width *= feed[i]; // rank > 4 without a crop: treat the trailing dims as one row
    }
    int crop = in.transform().cropSize();
    int outH = crop > 0 ? crop : height;
    int outW = crop > 0 ? crop : width;
    int example = channels * height * width;
    int outExample = exampleSize(out);
    float[] meanImage =
        in.transform().meanFile() == null ? null : meanImages.get(in.transform().meanFile());
    float[] meanValues = in.transform().mean();
    float scale = in.transform().scale();
    FloatBuffer src = staged.position(0).capacity((long) batch * example).asBuffer();
    for (int n = 0; n < batch; n++) {
      int hOff = 0;
      int wOff = 0;
      if (crop > 0) {
        if (phase == Phase.TRAIN) {
          hOff = random.nextInt(height - crop + 1);
          wOff = random.nextInt(width - crop + 1);
        } else {
          hOff = (height - crop) / 2;
          wOff = (width - crop) / 2;
        }
      }
      boolean flip = in.transform().mirror() && random.nextBoolean();
      int srcBase = n * example;
      int dstBase = n * outExample;
      for (int c = 0; c < channels; c++) {
        float mv = meanValues == null ? 0f : meanValues[meanValues.length == 1 ? 0 : c];
        for (int h = 0; h < outH; h++) {
          int srcRow = (c * height + hOff + h) * width + wOff;
          int dstRow = dstBase + (c * outH + h) * outW;
          for (int w = 0; w < outW; w++) {
            int dataIndex = srcRow + w;
            float v = src.get(srcBase + dataIndex);
            v -= meanImage != null ? meanImage[dataIndex] : mv;
            blob.put(dstRow + (flip ? outW - 1 - w : w), v * scale);
          }
        }
      }
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (FloatPointer p : staging.values()) {
      p.close();
    }
    staging.clear();
  }
}
