package org.sparknet.api.train;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.sparknet.api.train.RoundMetrics.Timings;

/**
 * A {@link RoundMetrics} as one line of the metrics file ({@link RoundMetrics#toJson()}) and back
 * ({@link RoundMetrics#fromJson}): the file's format apart from the value class. Numbers that are
 * not finite are written as null and read back as NaN; maps are written in key order.
 */
final class RoundMetricsJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RoundMetricsJson() {}

  /** {@code m} as one line of JSON (no newline). */
  static String write(RoundMetrics m) {
    Timings timings = m.timings();
    ObjectNode o = JSON.createObjectNode();
    o.put("round", m.round());
    o.put("timestamp", Instant.ofEpochMilli(m.timestampMillis()).toString());
    o.put("iteration", m.iteration());
    o.put("steps", m.steps());
    o.put("tau", m.tau());
    o.put("examples", m.examples());
    putNumber(o, "epoch", m.epoch());
    putNumber(o, "meanLoss", m.meanLoss());
    putNumber(o, "learningRate", m.learningRate());
    putNumber(o, "imagesPerSecond", m.imagesPerSecond());
    o.put("computeMillis", timings.computeMillis());
    o.put("broadcastMillis", timings.broadcastMillis());
    o.put("aggregateMillis", timings.aggregateMillis());
    o.put("schedulingMillis", timings.schedulingMillis());
    o.put("wallMillis", timings.wallMillis());
    o.put("validationMillis", timings.validationMillis());
    var d = o.putArray("devices");
    m.devices().forEach(d::add);
    if (!m.asyncWorkers().isEmpty()) {
      var a = o.putArray("asyncWorkers");
      for (WorkerPushes w : m.asyncWorkers()) {
        ObjectNode n = a.addObject();
        n.put("partition", w.partition());
        n.put("pushes", w.pushes());
        n.put("dropped", w.dropped());
        n.put("steps", w.steps());
        n.put("examples", w.examples());
        putNumber(n, "meanStaleness", w.meanStaleness());
        n.put("maxStaleness", w.maxStaleness());
        n.put("lostSteps", w.lostSteps());
      }
    }
    ObjectNode v = o.putObject("validation");
    new TreeMap<>(m.validation()).forEach((k, x) -> putNumber(v, k, x));
    if (!m.testNets().isEmpty()) {
      var nets = o.putArray("testNets");
      for (TestNetResult t : m.testNets()) {
        ObjectNode n = nets.addObject();
        n.put("net", t.net());
        var st = n.putArray("stages");
        t.stages().forEach(st::add);
        ObjectNode out = n.putObject("outputs");
        new TreeMap<>(t.outputs()).forEach((k, x) -> putNumber(out, k, x));
      }
    }
    try {
      return JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write round " + m.round() + " as JSON", e);
    }
  }

  /**
   * Reads a line written by {@link #write} back; a number written as null reads as NaN.
   *
   * @throws IllegalArgumentException quoting the line when it is not such JSON
   */
  static RoundMetrics read(String line) {
    JsonNode o;
    try {
      o = JSON.readTree(line);
    } catch (JsonProcessingException e) {
      o = null;
    }
    if (o == null || !o.isObject() || !o.path("round").isInt() || !o.hasNonNull("timestamp")) {
      throw new IllegalArgumentException(
          "Not a round's metrics (RoundMetrics.toJson): '"
              + (line.length() > 200 ? line.substring(0, 200) + "..." : line)
              + "'");
    }
    Map<String, Float> validation = new TreeMap<>();
    o.path("validation")
        .fields()
        .forEachRemaining(e -> validation.put(e.getKey(), (float) number(e.getValue())));
    List<TestNetResult> testNets = new ArrayList<>();
    for (JsonNode n : o.path("testNets")) {
      List<String> stages = new ArrayList<>();
      n.path("stages").forEach(st -> stages.add(st.asText()));
      Map<String, Float> outputs = new TreeMap<>();
      n.path("outputs")
          .fields()
          .forEachRemaining(e -> outputs.put(e.getKey(), (float) number(e.getValue())));
      testNets.add(new TestNetResult(n.path("net").asInt(), stages, outputs));
    }
    List<String> devices = new ArrayList<>();
    for (JsonNode d : o.path("devices")) {
      devices.add(d.isNull() ? null : d.asText());
    }
    long timestamp;
    try {
      timestamp = Instant.parse(o.get("timestamp").asText()).toEpochMilli();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "Round " + o.get("round").asInt() + " has a bad timestamp: " + e.getMessage(), e);
    }
    return RoundMetrics.builder()
        .round(o.get("round").asInt())
        .timestampMillis(timestamp)
        .iteration(o.path("iteration").asLong())
        .steps(o.path("steps").asLong())
        .tau(o.path("tau").asInt())
        .examples(o.path("examples").asLong())
        .epoch(number(o.path("epoch")))
        .meanLoss(number(o.path("meanLoss")))
        .learningRate(number(o.path("learningRate")))
        .devices(devices)
        .validation(validation)
        .testNets(testNets)
        .timings(
            new Timings(
                o.path("computeMillis").asLong(),
                o.path("broadcastMillis").asLong(),
                o.path("aggregateMillis").asLong(),
                o.path("schedulingMillis").asLong(),
                o.path("wallMillis").asLong(),
                o.path("validationMillis").asLong()))
        .build();
  }

  private static double number(JsonNode n) {
    return n.isNumber() ? n.asDouble() : Double.NaN;
  }

  private static void putNumber(ObjectNode o, String key, double v) {
    if (Double.isFinite(v)) {
      o.put(key, v);
    } else {
      o.putNull(key);
    }
  }
}
