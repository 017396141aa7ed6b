package org.sparknet.apps.charrnn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;

class TextCorpusTest {
  @TempDir Path dir;

  @Test
  void filesInPathOrderReadAsOneStreamCutAtMaxBytes() throws Exception {
    Files.createDirectories(dir.resolve("b"));
    Files.writeString(dir.resolve("a.c"), "int a;\n");
    Files.writeString(dir.resolve("b/c.c"), "int c;\n");
    Files.writeString(dir.resolve("b/skip.h"), "#define X\n");
    Files.writeString(dir.resolve("empty.c"), "");
    TextCorpus all = TextCorpus.scan(StoragePath.of(dir), ".c", 1_000);
    assertEquals(14, all.size());
    assertEquals(2, all.files());
    assertEquals("int a;\nint c;\n", new String(all.read(0, 14), StandardCharsets.US_ASCII));
    assertEquals("a;\nin", new String(all.read(4, 9), StandardCharsets.US_ASCII));
    TextCorpus cut = TextCorpus.scan(StoragePath.of(dir), ".c", 10);
    assertEquals(10, cut.size());
    assertEquals("int a;\nint", new String(cut.read(0, 10), StandardCharsets.US_ASCII));
  }

  @Test
  void windowsOverlapByOneAndDropAShortTail() {
    byte[] text = "abcdefghij".getBytes(StandardCharsets.US_ASCII);
    List<Example> w = TextCorpus.cut(text, 3); // abcd, defg, ghij
    assertEquals(3, w.size());
    assertArrayEquals(new float[] {'a', 'b', 'c', 'd'}, w.get(0).features());
    assertArrayEquals(new float[] {'g', 'h', 'i', 'j'}, w.get(2).features());
    assertEquals(2, TextCorpus.cut("abcdefghi".getBytes(StandardCharsets.US_ASCII), 3).size());
    byte[] utf8 = "é".getBytes(StandardCharsets.UTF_8);
    assertEquals(CharRnn.UNKNOWN, (int) TextCorpus.cut(utf8, 1).get(0).features()[0]);
  }

  @Test
  void badCorporaNameThePath() throws Exception {
    IllegalArgumentException missing =
        assertThrows(
            IllegalArgumentException.class,
            () -> TextCorpus.scan(StoragePath.of(dir.resolve("nope")), ".c", 100));
    assertTrue(
        missing.getMessage().contains("nope") && missing.getMessage().contains("does not exist"));
    Files.writeString(dir.resolve("x.txt"), "text");
    IllegalArgumentException none =
        assertThrows(
            IllegalArgumentException.class, () -> TextCorpus.scan(StoragePath.of(dir), ".c", 100));
    assertTrue(none.getMessage().contains("no non-empty file ending with '.c'"), none.getMessage());
  }
}
