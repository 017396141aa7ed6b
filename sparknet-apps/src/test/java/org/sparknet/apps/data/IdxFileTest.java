package org.sparknet.apps.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.data.Example;

/** IDX reading on the real Fashion-MNIST files and on broken copies of them. */
class IdxFileTest {
  private static final Path FASHION = FashionMnist.DEBIAN_DIR;

  @TempDir Path tmp;

  @Test
  void readsTheRealFashionMnistHeadersAndFirstRecords() {
    FashionMnist data = FashionMnist.locate(FASHION);
    IdxDataset train = data.train();
    IdxDataset test = data.test();
    assertEquals(60_000, train.count());
    assertEquals(10_000, test.count());
    assertEquals(List.of(1, 28, 28), train.sampleShape());
    List<Example> first = test.read(0, 3, 1f);
    // The first three t10k labels of Fashion-MNIST are ankle boot, pullover, trouser.
    assertArrayEquals(new float[] {9, 2, 1}, labels(first));
    for (Example e : first) {
      assertEquals(784, e.features().length);
      assertTrue(max(e.features()) <= 255f && max(e.features()) > 100f);
    }
  }

  @Test
  void aRangeReadEqualsTheSameRecordsOfAWholeRead() {
    IdxDataset test = FashionMnist.locate(FASHION).test();
    List<Example> all = test.read(0, 50, 1f / 256);
    List<Example> part = test.read(20, 30, 1f / 256);
    for (int i = 0; i < 10; i++) {
      assertArrayEquals(all.get(20 + i).features(), part.get(i).features());
      assertEquals(all.get(20 + i).label(), part.get(i).label());
    }
  }

  @Test
  void plainAndGzipFilesReadTheSame() throws IOException {
    byte[] images = idx(new int[] {3, 2, 2}, new byte[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    Path plain = write("img-plain", images, false);
    Path gz = write("img.gz", images, true);
    assertArrayEquals(IdxFile.open(plain).readRecords(1, 3), IdxFile.open(gz).readRecords(1, 3));
    assertArrayEquals(new byte[] {4, 5, 6, 7, 8, 9, 10, 11}, IdxFile.open(gz).readRecords(1, 3));
  }

  @Test
  void wrongMagicNumberNamesTheFile() throws IOException {
    Path f = write("bad-magic", new byte[] {0, 0, 0x0D, 3, 0, 0, 0, 1}, false);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> IdxFile.open(f));
    assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("magic number 0x00000d03"), e.getMessage());
  }

  @Test
  void truncatedFileNamesTheRecordWhereItEnds() throws IOException {
    byte[] full = idx(new int[] {4, 2, 2}, new byte[16]);
    Path f = write("truncated.gz", Arrays.copyOf(full, full.length - 5), true);
    IdxFile idx = IdxFile.open(f);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> idx.readRecords(0, 4));
    assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    assertTrue(e.getMessage().contains("record 2"), e.getMessage());
    assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
  }

  @Test
  void emptyAndMissingFilesAreClearErrors() throws IOException {
    Path empty = write("empty", new byte[0], false);
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> IdxFile.open(empty))
            .getMessage()
            .contains("empty"));
    Path missing = tmp.resolve("nope.gz");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> IdxFile.open(missing));
    assertTrue(e.getMessage().contains("does not exist") && e.getMessage().contains("nope.gz"));
  }

  @Test
  void countMismatchAndLabelOutOfRangeAreRejected() throws IOException {
    Path images = write("i", idx(new int[] {3, 2, 2}, new byte[12]), false);
    Path twoLabels = write("l2", idx(new int[] {2}, new byte[] {1, 2}), false);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> IdxDataset.open(images, twoLabels, 10));
    assertTrue(e.getMessage().contains("has 3 records") && e.getMessage().contains("has 2"));
    Path badLabel = write("l3", idx(new int[] {3}, new byte[] {1, 12, 2}), false);
    e = assertThrows(IllegalArgumentException.class, () -> IdxDataset.open(images, badLabel, 10));
    assertTrue(e.getMessage().contains("record 1 has label 12"), e.getMessage());
  }

  @Test
  void missingDatasetSaysHowToGetIt() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> FashionMnist.locate(tmp));
    assertTrue(e.getMessage().contains("apt-get install dataset-fashion-mnist"), e.getMessage());
    assertTrue(e.getMessage().contains(tmp.toString()), e.getMessage());
  }

  private static byte[] idx(int[] dims, byte[] data) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(0x00000800 | dims.length);
      for (int d : dims) {
        out.writeInt(d);
      }
      out.write(data);
    }
    return bytes.toByteArray();
  }

  private Path write(String name, byte[] content, boolean gzip) throws IOException {
    Path p = tmp.resolve(name);
    try (OutputStream out =
        gzip ? new GZIPOutputStream(Files.newOutputStream(p)) : Files.newOutputStream(p)) {
      out.write(content);
    }
    return p;
  }

  private static float[] labels(List<Example> examples) {
    float[] l = new float[examples.size()];
    for (int i = 0; i < l.length; i++) {
      l[i] = examples.get(i).label();
    }
    return l;
  }

  private static float max(float[] v) {
    float m = Float.NEGATIVE_INFINITY;
    for (float x : v) {
      m = Math.max(m, x);
    }
    return m;
  }
}
