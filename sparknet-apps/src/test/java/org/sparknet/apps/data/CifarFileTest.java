package org.sparknet.apps.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.testing.CliFixtures;

/**
 * CIFAR binary batches: the layout read back from a fixture written from real Fashion-MNIST images
 * (no CIFAR data is reachable here), and broken copies of it.
 */
class CifarFileTest {
  @TempDir Path tmp;

  @Test
  void readsLabelsAndPlanesAsWritten() throws Exception {
    Path f = CliFixtures.cifarBatch(tmp.resolve("data_batch_1.bin"), 0, 30, false);
    assertEquals(30L * 3073, Files.size(f));
    byte[][] fm = CliFixtures.fashionMnistTrain(30);
    CifarDataset d = CifarDataset.open(List.of(f), CifarFile.Variant.CIFAR10, false);
    assertEquals(30, d.count());
    assertEquals(10, d.numClasses());
    assertEquals(List.of(3, 32, 32), CifarDataset.sampleShape());
    List<Example> ex = d.read(0, 30, 0.5f, ImageTransform.NONE);
    for (int i = 0; i < 30; i++) {
      Example e = ex.get(i);
      assertEquals(fm[1][i] & 0xff, (int) e.label(), "label of record " + i);
      assertEquals(3072, e.features().length);
      // the red plane holds the image tinted by 1, 0.3, 0.6 (records 0, 1, 2, ...) at 2+y, 2+x
      int v = fm[0][i * 784 + 10 * 28 + 14] & 0xff;
      float red = new float[] {1f, 0.3f, 0.6f}[i % 3];
      assertEquals(Math.round(v * red) * 0.5f, e.features()[12 * 32 + 16], 1e-6);
      assertEquals(0f, e.features()[0], "the 2-pixel border is black");
    }
  }

  @Test
  void partsOfSeveralFilesReadAcrossTheBoundary() throws Exception {
    Path a = CliFixtures.cifarBatch(tmp.resolve("a.bin"), 0, 20, false);
    Path b = CliFixtures.cifarBatch(tmp.resolve("b.bin"), 20, 20, false);
    Path all = CliFixtures.cifarBatch(tmp.resolve("all.bin"), 0, 40, false);
    CifarDataset two = CifarDataset.open(List.of(a, b), CifarFile.Variant.CIFAR10, false);
    CifarDataset one = CifarDataset.open(List.of(all), CifarFile.Variant.CIFAR10, false);
    assertEquals(40, two.count());
    List<Example> x = two.read(15, 27, 1f, ImageTransform.NONE);
    List<Example> y = one.read(15, 27, 1f, ImageTransform.NONE);
    assertEquals(12, x.size());
    for (int i = 0; i < 12; i++) {
      assertTrue(Arrays.equals(y.get(i).features(), x.get(i).features()), "record " + (15 + i));
      assertEquals(y.get(i).label(), x.get(i).label());
    }
  }

  @Test
  void cifar100ReadsTheFineLabelOrTheCoarseOne() throws Exception {
    Path f = CliFixtures.cifarBatch(tmp.resolve("train.bin"), 0, 12, true);
    assertEquals(12L * 3074, Files.size(f));
    byte[][] fm = CliFixtures.fashionMnistTrain(12);
    CifarDataset fine = CifarDataset.open(List.of(f), CifarFile.Variant.CIFAR100, false);
    CifarDataset coarse = CifarDataset.open(List.of(f), CifarFile.Variant.CIFAR100, true);
    assertEquals(100, fine.numClasses());
    assertEquals(20, coarse.numClasses());
    List<Example> ef = fine.read(0, 12, 1f, ImageTransform.NONE);
    List<Example> ec = coarse.read(0, 12, 1f, ImageTransform.NONE);
    for (int i = 0; i < 12; i++) {
      int label = fm[1][i] & 0xff;
      assertEquals(label * 10 + i % 10, (int) ef.get(i).label());
      assertEquals(label, (int) ec.get(i).label());
      assertTrue(Arrays.equals(ef.get(i).features(), ec.get(i).features()));
    }
    // a CIFAR-100 file read as CIFAR-10 has the wrong record size (12 * 3074 = 4 * 3073 + ...)
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> CifarFile.open(f, CifarFile.Variant.CIFAR10));
    assertTrue(e.getMessage().contains("36,888 bytes"), e.getMessage());
  }

  @Test
  void aTruncatedFileIsNamedWithItsByteCount() throws Exception {
    Path f = CliFixtures.cifarBatch(tmp.resolve("data_batch_1.bin"), 0, 5, false);
    byte[] all = Files.readAllBytes(f);
    Files.write(f, Arrays.copyOf(all, all.length - 100));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> CifarFile.open(f, CifarFile.Variant.CIFAR10));
    assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("15,265 bytes"), e.getMessage());
    assertTrue(e.getMessage().contains("3,073-byte"), e.getMessage());
  }

  @Test
  void aLabelOutOfRangeIsNamedWithItsRecord() throws Exception {
    Path f = CliFixtures.cifarBatch(tmp.resolve("test_batch.bin"), 0, 10, false);
    byte[] all = Files.readAllBytes(f);
    all[7 * 3073] = 10;
    Files.write(f, all);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> CifarFile.open(f, CifarFile.Variant.CIFAR10));
    assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("record 7 has label 10, outside [0, 10)"), e.getMessage());

    Path g = CliFixtures.cifarBatch(tmp.resolve("c100.bin"), 0, 10, true);
    byte[] c = Files.readAllBytes(g);
    c[3 * 3074] = 20; // coarse labels lie in [0, 20)
    Files.write(g, c);
    e =
        assertThrows(
            IllegalArgumentException.class, () -> CifarFile.open(g, CifarFile.Variant.CIFAR100));
    assertTrue(e.getMessage().contains("record 3 has coarse label 20"), e.getMessage());
  }

  @Test
  void aMissingFileIsNamed() {
    Path f = tmp.resolve("nope.bin");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CifarDataset.open(List.of(f), CifarFile.Variant.CIFAR10, false));
    assertEquals("CIFAR file " + StoragePath.of(f) + " does not exist", e.getMessage());
  }

  @Test
  void anEmptyFileIsRejected() throws Exception {
    Path f = Files.createFile(tmp.resolve("empty.bin"));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> CifarFile.open(f, CifarFile.Variant.CIFAR10));
    assertTrue(e.getMessage().contains("has 0 bytes"), e.getMessage());
  }
}
