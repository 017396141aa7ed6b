package org.sparknet.apps.data.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sparknet.api.data.DataFormat;
import org.sparknet.api.data.DataFormats;
import org.sparknet.api.data.DataRequest;

/**
 * Every format but IDX refuses a separate labels file before it reads anything, in the words the
 * CLI shows; IDX takes one. With NamedFormat.open not calling the refusal, the first format failed
 * on the missing data instead: "cifar ==> expected: <--train-labels applies only to --format idx,
 * not cifar> but was: <--train file file:/no/such/data does not exist>".
 */
class NamedFormatTest {
  private static DataRequest withLabels(String uri) {
    return new DataRequest(uri, "--train", "/no/such/labels", "--train-labels", true, Map.of());
  }

  @Test
  void everyFormatButIdxRefusesALabelsFileFirst() {
    List<DataFormat> formats = DataFormats.all();
    assertTrue(formats.size() >= 8, "formats found: " + DataFormats.names());
    for (DataFormat f : formats) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> f.open(withLabels("/no/such/data")), f.name());
      String refusal = "--train-labels applies only to --format idx, not " + f.name();
      if (f.name().equals("idx")) {
        assertFalse(e.getMessage().contains("applies only to"), e.getMessage());
      } else {
        assertEquals(refusal, e.getMessage(), f.name());
      }
    }
  }
}
