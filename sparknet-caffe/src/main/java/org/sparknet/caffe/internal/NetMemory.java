package org.sparknet.caffe.internal;

import java.util.List;
import java.util.Locale;
import org.bytedeco.caffe.FloatBlobSharedVector;
import org.bytedeco.caffe.FloatBlobVector;
import org.bytedeco.caffe.FloatNet;
import org.sparknet.api.Phase;

/**
 * The GPU memory a net will ask for, predicted from its blob shapes after Caffe built it and before
 * its first pass: building a net allocates its blobs lazily and only its weights on the host, while
 * the first pass on a GPU allocates everything there through Caffe's SyncedMemory, whose failed
 * {@code cudaMalloc} is a CHECK that aborts the JVM. A net that cannot fit is refused here with its
 * name, batch size and the bytes it would ask for.
 *
 * <p>Counted: the training net's activations and their gradients, its weights and their gradients,
 * the solver's history (one copy of the weights, two for Adam and AdaDelta), and the test net's
 * activations. Not counted: layers' private buffers (im2col, cuDNN workspaces, which cuDNN layers
 * shrink when memory is short) and the CUDA context itself, so a net right at the limit can still
 * fail in Caffe.
 *
 * @param net the net's name
 * @param batch the training batch size (the first axis of the first training input)
 * @param bytes the predicted bytes
 * @param device the device, "gpu:N" or "cpu"
 */
public record NetMemory(String net, int batch, long bytes, String device) {
  /** The estimate of the last net checked in this JVM (the dry run's child reports it). */
  private static volatile NetMemory last;

  /**
   * Predicts what {@code train} and the {@code tests}, built from {@code plan}, ask of the device
   * ({@code deviceId} -1 for the CPU, where the same blobs take host memory).
   */
  public static NetMemory of(NetPlan plan, FloatNet train, List<FloatNet> tests, int deviceId) {
    long activations = 0;
    FloatBlobSharedVector blobs = train.blobs();
    for (long i = 0; i < blobs.size(); i++) {
      activations += blobs.get(i).count();
    }
    long weights = 0;
    FloatBlobVector params = train.learnable_params();
    for (long i = 0; i < params.size(); i++) {
      weights += params.get(i).count();
    }
    long testActivations = 0;
    for (FloatNet test : tests) {
      FloatBlobSharedVector testBlobs = test.blobs();
      for (long i = 0; i < testBlobs.size(); i++) {
        testActivations += testBlobs.get(i).count();
      }
    }
    int histories = List.of("Adam", "AdaDelta").contains(plan.solverType()) ? 2 : 1;
    long floats = 2 * activations + (2 + histories) * weights + testActivations;
    List<InputBlob> inputs = plan.inputs(Phase.TRAIN);
    int batch = inputs.isEmpty() ? 0 : inputs.get(0).shape()[0];
    return new NetMemory(
        plan.netName(), batch, floats * Float.BYTES, deviceId < 0 ? "cpu" : "gpu:" + deviceId);
  }

  /**
   * Refuses a net that will not fit in what {@code device} has free.
   *
   * @throws IllegalArgumentException naming the net, the batch size and the bytes asked for
   */
  public void check(long freeBytes) {
    last = this;
    if (freeBytes >= 0 && bytes > freeBytes) {
      throw new IllegalArgumentException(
          "GPU out of memory: net '"
              + net
              + "' at batch size "
              + batch
              + " asks for "
              + describe(bytes)
              + " on "
              + device
              + " (activations, weights, gradients, solver history) but "
              + describe(freeBytes)
              + " are free; lower the batch size (--batch-size), or use a GPU with more memory");
    }
  }

  /** The estimate of the last net checked in this JVM, or null. */
  public static NetMemory last() {
    return last;
  }

  /** Bytes as messages show them: "23,143,616 bytes (0.02 GiB)". */
  public static String describe(long bytes) {
    return String.format(Locale.ROOT, "%,d bytes (%.2f GiB)", bytes, bytes / (double) (1L << 30));
  }
}
