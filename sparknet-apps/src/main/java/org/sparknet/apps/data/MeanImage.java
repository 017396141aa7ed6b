package org.sparknet.apps.data;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.sparknet.api.storage.StoragePath;

/**
 * A Caffe mean image ({@code transform_param.mean_file}, a binary {@code BlobProto} such as {@code
 * mean.binaryproto} from Caffe's {@code compute_image_mean}), read in Java: the protobuf wire
 * format of the few fields a mean uses (num, channels, height, width or shape; data), so a corrupt
 * file gives an error naming it instead of a Caffe abort. The loaders subtract it from each image
 * before cropping, as Caffe's DataTransformer does.
 *
 * @param channels C
 * @param height H
 * @param width W
 * @param data C x H x W values
 */
public record MeanImage(int channels, int height, int width, float[] data) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Reads {@code file}; the blob must have one image (num 1) of C x H x W values. */
  public static MeanImage read(Path file) {
    return read(StoragePath.of(file));
  }

  /** {@link #read(Path)} for a file on any Hadoop file system. */
  public static MeanImage read(StoragePath file) {
    if (!file.isFile()) {
      throw new IllegalArgumentException("Mean file " + file + " does not exist");
    }
    byte[] bytes;
    try {
      bytes = file.readAllBytes();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Mean file: " + e.getMessage(), e);
    }
    try {
      return parse(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN), file.toString());
    } catch (RuntimeException e) {
      if (e instanceof IllegalArgumentException && e.getMessage().startsWith("Mean file")) {
        throw e;
      }
      throw new IllegalArgumentException(
          "Mean file " + file + " is not a Caffe BlobProto (binaryproto): " + e, e);
    }
  }

  private static MeanImage parse(ByteBuffer b, String file) {
    long[] legacy = {1, 0, 0, 0}; // num, channels, height, width
    List<Long> shape = new ArrayList<>();
    float[] data = new float[16];
    int n = 0;
    while (b.hasRemaining()) {
      long key = varint(b);
      int field = (int) (key >>> 3);
      int wire = (int) (key & 7);
      if (field >= 1 && field <= 4 && wire == 0) {
        legacy[field - 1] = varint(b);
      } else if (field == 5 && wire == 2) {
        int len = (int) varint(b);
        int count = len / 4;
        if (n + count > data.length) {
          data = java.util.Arrays.copyOf(data, Math.max(n + count, data.length * 2));
        }
        for (int i = 0; i < count; i++) {
          data[n++] = b.getFloat();
        }
      } else if (field == 5 && wire == 5) {
        if (n == data.length) {
          data = java.util.Arrays.copyOf(data, data.length * 2);
        }
        data[n++] = b.getFloat();
      } else if (field == 7 && wire == 2) {
        int len = (int) varint(b);
        ByteBuffer s = b.slice(b.position(), len).order(ByteOrder.LITTLE_ENDIAN);
        b.position(b.position() + len);
        while (s.hasRemaining()) {
          long k = varint(s);
          if ((k >>> 3) == 1 && (k & 7) == 2) {
            int l = (int) varint(s);
            int end = s.position() + l;
            while (s.position() < end) {
              shape.add(varint(s));
            }
          } else if ((k >>> 3) == 1 && (k & 7) == 0) {
            shape.add(varint(s));
          } else {
            skip(s, (int) (k & 7));
          }
        }
      } else {
        skip(b, wire);
      }
    }
    long[] dims;
    if (!shape.isEmpty()) {
      if (shape.size() == 3) {
        shape.add(0, 1L);
      }
      if (shape.size() != 4) {
        throw new IllegalArgumentException(
            "Mean file " + file + " has shape " + shape + "; expected [1, C, H, W]");
      }
      dims = shape.stream().mapToLong(Long::longValue).toArray();
    } else {
      dims = legacy;
    }
    long count = dims[1] * dims[2] * dims[3];
    if (dims[0] != 1 || count <= 0 || count != n) {
      throw new IllegalArgumentException(
          "Mean file "
              + file
              + " declares "
              + dims[0]
              + " x "
              + dims[1]
              + " x "
              + dims[2]
              + " x "
              + dims[3]
              + " but holds "
              + n
              + " values; expected one C x H x W image");
    }
    return new MeanImage(
        (int) dims[1], (int) dims[2], (int) dims[3], java.util.Arrays.copyOf(data, n));
  }

  private static long varint(ByteBuffer b) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte x = b.get();
      v |= (long) (x & 0x7f) << shift;
      if ((x & 0x80) == 0) {
        return v;
      }
    }
    throw new IllegalArgumentException("malformed varint");
  }

  private static void skip(ByteBuffer b, int wire) {
    switch (wire) {
      case 0 -> varint(b);
      case 1 -> b.position(b.position() + 8);
      case 2 -> {
        int len = (int) varint(b);
        b.position(b.position() + len);
      }
      case 5 -> b.position(b.position() + 4);
      default -> throw new IllegalArgumentException("unsupported wire type " + wire);
    }
  }

  /** Throws unless this mean fits images of {@code c x h x w}; {@code what} names them. */
  public void check(int c, int h, int w, String what) {
    if (channels != c || height != h || width != w) {
      throw new IllegalArgumentException(
          "The mean image is "
              + channels
              + "x"
              + height
              + "x"
              + width
              + " but "
              + what
              + " are "
              + c
              + "x"
              + h
              + "x"
              + w
              + " before cropping; resize to the mean's size (--image-size), or pass --mean-value"
              + " instead");
    }
  }

  /** {@code image - mean}, element by element, in place; returns {@code image}. */
  public float[] subtractFrom(float[] image) {
    for (int i = 0; i < image.length; i++) {
      image[i] -= data[i];
    }
    return image;
  }
}
