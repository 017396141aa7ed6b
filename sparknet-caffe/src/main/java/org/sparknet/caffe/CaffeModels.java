package org.sparknet.caffe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.caffe.SolverState;
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
    checkTarget(file, overwrite, "Weights file");
    write(net.toCaffeModel(), file, "weights file");
  }

  /**
   * Writes the solver state of {@code net} (iteration, history) as Caffe's binary SolverState, the
   * format of {@code caffe train}'s {@code .solverstate} files, without a {@code learned_net}
   * reference (save the weights with {@link #save}). Fails if the file exists unless {@code
   * overwrite}; written to a temporary name first and then moved in place.
   */
  public static void saveSolverState(CaffeNet net, Path file, boolean overwrite) {
    Objects.requireNonNull(net, "net");
    Objects.requireNonNull(file, "file");
    checkTarget(file, overwrite, "Solver state file");
    write(net.toSolverStateProto(null), file, "solver state file");
  }

  /**
   * Writes a snapshot as {@code caffe train} does: the weights to {@code caffemodel} and the solver
   * state to {@code solverstate}, whose {@code learned_net} names {@code caffemodel} as given (so a
   * relative name is relative to the directory Caffe runs in), so that {@code caffe train
   * --snapshot=FILE.solverstate} resumes from both. Fails if either file exists.
   */
  public static void saveSnapshot(CaffeNet net, Path caffemodel, Path solverstate) {
    checkTarget(caffemodel, false, "Weights file");
    checkTarget(solverstate, false, "Solver state file");
    Snapshot files = snapshot(net, caffemodel.toString());
    write(files.caffemodel(), caffemodel, "weights file");
    write(files.solverstate(), solverstate, "solver state file");
  }

  /** The two files of a snapshot as bytes, for a caller that writes them to its own storage. */
  public record Snapshot(byte[] caffemodel, byte[] solverstate) {}

  /**
   * The bytes of {@link #saveSnapshot}'s two files: the state's {@code learned_net} names {@code
   * caffemodelName} as given.
   */
  public static Snapshot snapshot(CaffeNet net, String caffemodelName) {
    Objects.requireNonNull(net, "net");
    return new Snapshot(net.toCaffeModel(), net.toSolverStateProto(caffemodelName));
  }

  /**
   * Restores a {@code .solverstate} (Caffe's binary SolverState, from {@link #saveSolverState} or
   * {@code caffe train}) into {@code net} after checking that its history blobs match the net's
   * solver in number, shapes and sizes; a file that does not match throws {@link
   * IllegalArgumentException} and changes nothing. Its {@code learned_net} reference, if any, is
   * not followed: load the weights with {@link #load}.
   */
  public static void loadSolverState(CaffeNet net, Path file) {
    readInto(
        net,
        file,
        SolverState::new,
        "Solver state file",
        "a binary Caffe SolverState (.solverstate)",
        (st, name) -> net.restoreSolverState(st, name));
  }

  /**
   * Parses {@code file} into a new proto that lives in a pointer scope (freed on return) and hands
   * it, with the file's name, to {@code apply}.
   */
  private static <M extends org.bytedeco.caffe.Message> void readInto(
      CaffeNet net,
      Path file,
      Supplier<M> proto,
      String what,
      String is,
      BiConsumer<M, String> apply) {
    Objects.requireNonNull(net, "net");
    try (PointerScope scope = new PointerScope()) {
      M m = proto.get();
      read(file, what, m, is);
      apply.accept(m, file.toString());
    }
  }

  /** Parses a binary proto file into {@code target}; throws naming the file when it cannot. */
  private static void read(Path file, String what, org.bytedeco.caffe.Message target, String is) {
    Objects.requireNonNull(file, "file");
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new IllegalArgumentException(what + " " + file + " does not exist or is unreadable");
    }
    CaffeRuntime.load();
    if (!caffe.ReadProtoFromBinaryFile(file.toString(), target)) {
      throw new IllegalArgumentException(what + " " + file + " is not " + is);
    }
  }

  private static void checkTarget(Path file, boolean overwrite, String what) {
    if (Files.exists(file) && !overwrite) {
      throw new IllegalArgumentException(
          what + " " + file + " already exists; pass overwrite=true to replace it");
    }
    Path dir = file.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new IllegalArgumentException(
          "Cannot write " + file + ": directory " + dir + " does not exist");
    }
  }

  private static void write(byte[] bytes, Path file, String what) {
    Path dir = file.toAbsolutePath().getParent();
    try {
      Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
      try {
        Files.write(tmp, bytes);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + what + " " + file, e);
    }
  }

  /**
   * Loads {@code file} into {@code net}, after checking that every learnable layer of the net is in
   * the file with blobs of the same shapes (layers the net does not have are ignored, as Caffe
   * does). A file that does not match throws {@link IllegalArgumentException} and changes nothing.
   */
  public static void load(CaffeNet net, Path file) {
    readInto(
        net,
        file,
        NetParameter::new,
        "Weights file",
        "a binary Caffe NetParameter (.caffemodel)",
        (np, name) -> net.copyTrainedLayersFrom(np, name));
  }
}
