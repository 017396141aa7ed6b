package org.sparknet.caffe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.caffe.internal.CaffeRuntime;

/**
 * Caffe-compatible weight files: a .caffemodel is Caffe's NetParameter in binary protobuf, as
 * {@code caffe train} writes it, so files go both ways between SparkNet and Caffe tools.
 */
public final class CaffeModels {
  private CaffeModels() {}

  /**
   * Writes the trained layers of {@code net} to {@code file}. Fails if the file exists unless
   * {@code overwrite}; the file is written to a temporary name first and then moved in place.
   */
  public static void save(CaffeNet net, Path file, boolean overwrite) {
    Objects.requireNonNull(net, "net");
    Objects.requireNonNull(file, "file");
    if (Files.exists(file) && !overwrite) {
      throw new IllegalArgumentException(
          "Weights file " + file + " already exists; pass overwrite=true to replace it");
    }
    Path dir = file.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new IllegalArgumentException(
          "Cannot write " + file + ": directory " + dir + " does not exist");
    }
    byte[] bytes = net.toCaffeModel();
    try {
      Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
      try {
        Files.write(tmp, bytes);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write weights file " + file, e);
    }
  }

  /**
   * Loads {@code file} into {@code net}, after checking that every learnable layer of the net is in
   * the file with blobs of the same shapes (layers the net does not have are ignored, as Caffe
   * does). A file that does not match throws {@link IllegalArgumentException} and changes nothing.
   */
  public static void load(CaffeNet net, Path file) {
    Objects.requireNonNull(net, "net");
    Objects.requireNonNull(file, "file");
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new IllegalArgumentException(
          "Weights file " + file + " does not exist or is unreadable");
    }
    CaffeRuntime.load();
    try (PointerScope scope = new PointerScope()) {
      NetParameter np = new NetParameter();
      if (!caffe.ReadProtoFromBinaryFile(file.toString(), np)) {
        throw new IllegalArgumentException(
            "Weights file " + file + " is not a binary Caffe NetParameter (.caffemodel)");
      }
      net.copyTrainedLayersFrom(np, file.toString());
    }
  }
}
