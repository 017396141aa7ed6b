package org.sparknet.apps.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The pages whose code blocks the doctests run: README.md, then every {@code docs/*.md} in name
 * order. README is a landing page and the reference lives in docs/, so a block is found wherever it
 * went, and a block moved between pages still runs. Broken on purpose: listing README.md alone
 * failed ExportCommandIT with "0 blocks of README.md and docs/*.md hold 'bin/sparknet export'".
 */
public final class DocPages {
  /** The repository root, seen from a module's directory (where Maven runs the tests). */
  public static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static final Pattern FENCE = Pattern.compile("(?ms)^```([a-z]*)\\n(.*?)^```$");

  private DocPages() {}

  /** One page: its path relative to the root and its text. */
  public record Page(String name, String text) {}

  /** A fenced block: its page, language tag ("" for none), code and the line the code starts on. */
  public record Block(Page page, String language, String code, int line) {
    /** Where the block is, for messages: {@code docs/spark-ml.md:42}. */
    public String where() {
      return page.name() + ":" + line;
    }
  }

  /** README.md, then docs/*.md sorted by name. */
  public static List<Page> pages() {
    List<Page> pages = new ArrayList<>();
    pages.add(read("README.md"));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".md"))
          .sorted()
          .forEach(n -> pages.add(read("docs/" + n)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  /** Every fenced block of {@code page}, in order. */
  public static List<Block> blocks(Page page) {
    List<Block> blocks = new ArrayList<>();
    Matcher m = FENCE.matcher(page.text());
    while (m.find()) {
      int line =
          (int) page.text().substring(0, m.start(2)).chars().filter(c -> c == '\n').count() + 1;
      blocks.add(new Block(page, m.group(1), m.group(2), line));
    }
    return blocks;
  }

  /** Every fenced block of every page, README's first. */
  public static List<Block> allBlocks() {
    return pages().stream().flatMap(p -> blocks(p).stream()).toList();
  }

  /** The one block, on any page, that holds {@code marker}; fails when none or several do. */
  public static Block block(String marker) {
    List<Block> found = allBlocks().stream().filter(b -> b.code().contains(marker)).toList();
    if (found.size() != 1) {
      throw new AssertionError(
          found.size()
              + " blocks of README.md and docs/*.md hold '"
              + marker
              + "', expected one: "
              + found.stream().map(Block::where).toList());
    }
    return found.get(0);
  }

  private static Page read(String name) {
    try {
      return new Page(name, Files.readString(ROOT.resolve(name)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
