package org.sparknet.caffe.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.Loader;

/**
 * SparkNet's CUDA natives as the GPU jar carries them (built from src/main/native/cuda at package
 * time): CUDA 11.8's runtime, the forwarding libraries, the JNI probe and the lists of forwarded
 * functions. The dynamic loader needs files, so they are copied once into JavaCPP's cache folder,
 * under a name made of their digest: executors of one machine share the copy, a new build gets a
 * new one, and a half-written file is never seen (each is written aside, then moved into place).
 */
final class CudaNativeFiles {
  /** Where the GPU jar holds them. */
  static final String RESOURCES = "org/sparknet/caffe/cuda/" + Loader.getPlatform() + "/";

  static final String PROBE = "libsparknet_cuda.so";
  static final List<String> FILES =
      List.of(
          CudaLibraries.CUDART,
          "libcublas.so.11",
          "libcudnn.so.8",
          PROBE,
          "cublas11.functions",
          "cudnn8.functions");

  private CudaNativeFiles() {}

  /** Whether this class path carries them (the GPU jar does, the CPU jar does not). */
  static boolean present() {
    return CudaNativeFiles.class.getClassLoader().getResource(RESOURCES + PROBE) != null;
  }

  /** The folder holding the files, copied out of the class path if not yet there. */
  static Path extract() {
    Map<String, byte[]> contents = new LinkedHashMap<>();
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("This JVM has no SHA-256", e);
    }
    for (String name : FILES) {
      byte[] bytes = read(name);
      contents.put(name, bytes);
      sha.update(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      sha.update(bytes);
    }
    String digest = HexFormat.of().formatHex(sha.digest()).substring(0, 16);
    Path folder;
    try {
      folder = Loader.getCacheDir().toPath().resolve("sparknet-cuda-" + digest);
      Files.createDirectories(folder);
      for (Map.Entry<String, byte[]> e : contents.entrySet()) {
        Path target = folder.resolve(e.getKey());
        if (!Files.exists(target) || Files.size(target) != e.getValue().length) {
          Path aside = Files.createTempFile(folder, e.getKey(), ".part");
          Files.write(aside, e.getValue());
          move(aside, target);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot copy SparkNet's CUDA natives into JavaCPP's cache folder (set"
              + " org.bytedeco.javacpp.cachedir to a writable folder)",
          e);
    }
    return folder;
  }

  private static void move(Path aside, Path target) throws IOException {
    try {
      Files.move(
          aside, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(aside, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static byte[] read(String name) {
    try (InputStream in =
        CudaNativeFiles.class.getClassLoader().getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new IllegalStateException("The GPU build lacks " + RESOURCES + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + RESOURCES + name + " from the class path", e);
    }
  }
}
