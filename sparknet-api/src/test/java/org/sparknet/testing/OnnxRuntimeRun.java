package org.sparknet.testing;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An ONNX model loaded in ONNX Runtime's Java API (the CPU provider), for tests of the ONNX export:
 * runs it on one float input and returns every output with its shape.
 */
public final class OnnxRuntimeRun implements AutoCloseable {
  /** One output: its shape as ONNX Runtime reports it, and its values. */
  public record Output(long[] shape, float[] values) {}

  private final OrtEnvironment env = OrtEnvironment.getEnvironment();
  private final OrtSession session;

  private OnnxRuntimeRun(byte[] bytes, Path file) throws OrtException {
    OrtSession.SessionOptions options = new OrtSession.SessionOptions();
    session =
        bytes != null
            ? env.createSession(bytes, options)
            : env.createSession(file.toString(), options);
  }

  public static OnnxRuntimeRun of(byte[] model) throws OrtException {
    return new OnnxRuntimeRun(model, null);
  }

  public static OnnxRuntimeRun of(Path model) throws OrtException {
    return new OnnxRuntimeRun(null, model);
  }

  public List<String> inputNames() {
    return new ArrayList<>(session.getInputNames());
  }

  public List<String> outputNames() {
    return new ArrayList<>(session.getOutputNames());
  }

  /** The declared shape of input {@code name}; -1 for a symbolic dimension. */
  public long[] inputShape(String name) throws OrtException {
    NodeInfo info = session.getInputInfo().get(name);
    return ((TensorInfo) info.getInfo()).getShape();
  }

  /** Runs the model with {@code data} of {@code shape} as input {@code input}. */
  public Map<String, Output> run(String input, float[] data, long... shape) throws OrtException {
    Map<String, Output> out = new LinkedHashMap<>();
    try (OnnxTensor t = OnnxTensor.createTensor(env, FloatBuffer.wrap(data), shape);
        OrtSession.Result r = session.run(Map.of(input, t))) {
      for (Map.Entry<String, ai.onnxruntime.OnnxValue> e : r) {
        OnnxTensor v = (OnnxTensor) e.getValue();
        FloatBuffer b = v.getFloatBuffer();
        float[] values = new float[b.remaining()];
        b.get(values);
        out.put(e.getKey(), new Output(v.getInfo().getShape(), values));
      }
    }
    return out;
  }

  @Override
  public void close() throws OrtException {
    session.close();
  }
}
