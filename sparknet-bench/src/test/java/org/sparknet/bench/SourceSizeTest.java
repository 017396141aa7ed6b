package org.sparknet.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Small classes and short methods, checked on every module's main sources: a file of at most
 * {@value #MAX_FILE_LINES} lines, a method or constructor of at most {@value #MAX_METHOD_LINES},
 * unless a comment within the three lines above it begins with {@code // Long:} and says why. The
 * sources are formatted by google-java-format (the build checks it), so a declaration's body ends
 * at the first line that closes a brace at the declaration's own indentation.
 */
class SourceSizeTest {
  static final int MAX_FILE_LINES = 500;
  static final int MAX_METHOD_LINES = 80;

  private static final Pattern DECLARATION =
      Pattern.compile(
          "^( +)(@\\w+ +)*((public|protected|private|static|final|abstract|synchronized|default)"
              + " +)*([\\w<>\\[\\],.? ]+ +)?\\w+\\(.*");
  private static final Pattern NOT_A_METHOD =
      Pattern.compile(
          "^ *(return|new|throw|if|for|while|switch|try|catch|else|do|synchronized|case|yield"
              + "|record|class|interface|enum)\\b.*|.*(=|->).*\\(.*");

  @Test
  void filesAndMethodsAreShort() throws IOException {
    List<String> tooLong = new ArrayList<>();
    for (Path file : mainSources()) {
      List<String> lines = Files.readAllLines(file);
      if (lines.size() > MAX_FILE_LINES) {
        tooLong.add(file + ": " + lines.size() + " lines");
      }
      tooLong.addAll(longMethods(file, lines));
    }
    assertEquals(List.of(), tooLong, "split these, or say why in a // Long: comment");
  }

  @Test
  void theCheckFindsALongMethod() {
    List<String> body = new ArrayList<>(List.of("class A {", "  void f(int x) {"));
    for (int i = 0; i < MAX_METHOD_LINES; i++) {
      body.add("    x++;");
    }
    body.add("  }");
    body.add("}");
    assertEquals(1, longMethods(Path.of("A.java"), body).size());
    body.add(1, "  // Long: one table of cases reads best in one place.");
    assertEquals(0, longMethods(Path.of("A.java"), body).size());
    body.remove(1);
    body.set(1, "  private static List<Map<String, Integer>> f(int x) {");
    assertEquals(1, longMethods(Path.of("A.java"), body).size(), "a generic return type");
    body.set(1, "  void f(int x) {");
    body.add(2, "    run(");
    body.add(3, "        () -> {");
    body.add(4, "        });");
    assertEquals(1, longMethods(Path.of("A.java"), body).size(), "a call statement is no method");
  }

  private static List<Path> mainSources() throws IOException {
    return mainSources(Path.of("").toAbsolutePath().getParent());
  }

  /** Every module's {@code src/main/java} files under {@code root}, the repository. */
  static List<Path> mainSources(Path root) throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path m :
          modules.filter(p -> p.getFileName().toString().startsWith("sparknet-")).toList()) {
        Path src = m.resolve("src/main/java");
        if (Files.isDirectory(src)) {
          try (Stream<Path> s = Files.walk(src)) {
            s.filter(p -> p.toString().endsWith(".java")).forEach(files::add);
          }
        }
      }
    }
    assertTrue(files.size() > 100, "found the sources under " + root);
    return files;
  }

  static List<String> longMethods(Path file, List<String> lines) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      var m = DECLARATION.matcher(line);
      if (!m.matches() || NOT_A_METHOD.matcher(line).matches() || line.endsWith("{}")) {
        continue;
      }
      if (m.group(5) == null && Character.isLowerCase(line.trim().charAt(0))) {
        continue; // a call statement such as "    onDevice(": only constructors lack a return type
      }
      String indent = m.group(1);
      int open = i;
      while (open < lines.size() && !lines.get(open).endsWith("{")) {
        if (lines.get(open).endsWith(";")) {
          open = -1; // abstract or interface method
          break;
        }
        open++;
      }
      if (open < 0 || open >= lines.size()) {
        continue;
      }
      int close = open + 1;
      while (close < lines.size() && !lines.get(close).equals(indent + "}")) {
        close++;
      }
      int length = close - i + 1;
      if (length > MAX_METHOD_LINES && !justified(lines, i)) {
        out.add(file + ":" + (i + 1) + ": " + line.trim() + " is " + length + " lines");
      }
    }
    return out;
  }

  private static boolean justified(List<String> lines, int at) {
    for (int k = Math.max(0, at - 3); k < at; k++) {
      if (lines.get(k).trim().startsWith("// Long:")) {
        return true;
      }
    }
    return false;
  }
}
