package org.sparknet.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The import statements of Java sources, as a graph between their files and between their packages.
 * Read from the text, not the bytecode: an import that serves only a Javadoc link, or a constant
 * the compiler inlines, leaves no trace in a class file, but a reader follows it.
 */
final class SourceImports {
  private static final Pattern PACKAGE =
      Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
  private static final Pattern IMPORT =
      Pattern.compile("^import\\s+(static\\s+)?([\\w.]+?)(\\.\\*)?\\s*;", Pattern.MULTILINE);

  /** Each file's type (package and file name) to the types of the files it imports. */
  private final Map<String, Set<String>> files = new TreeMap<>();

  /** Each file's type to its package. */
  private final Map<String, String> packageOf = new HashMap<>();

  /** The graph of {@code sources}: each file's text under its path. */
  static SourceImports of(Map<Path, String> sources) {
    SourceImports g = new SourceImports();
    Map<String, String> texts = new HashMap<>();
    sources.forEach(
        (path, text) -> {
          String file = path.getFileName().toString();
          Matcher m = PACKAGE.matcher(text);
          if (!file.endsWith(".java") || file.equals("package-info.java") || !m.find()) {
            return;
          }
          String type = m.group(1) + "." + file.substring(0, file.length() - ".java".length());
          g.packageOf.put(type, m.group(1));
          texts.put(type, text);
        });
    texts.forEach((type, text) -> g.files.put(type, g.imported(type, text)));
    return g;
  }

  /** The graph of every module's {@code src/main/java} under {@code root}. */
  static SourceImports ofMainSources(Path root) {
    Map<Path, String> sources = new HashMap<>();
    try {
      for (Path p : SourceSizeTest.mainSources(root)) {
        sources.put(p, Files.readString(p));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return of(sources);
  }

  /** The types of the files that {@code type}'s imports name (a nested type names its file). */
  private Set<String> imported(String type, String text) {
    Set<String> out = new TreeSet<>();
    Matcher m = IMPORT.matcher(text);
    while (m.find()) {
      String name = m.group(2);
      if (m.group(3) != null && m.group(1) == null) {
        // import a.b.*: every file of that package
        packageOf.forEach(
            (t, p) -> {
              if (p.equals(name)) {
                out.add(t);
              }
            });
        continue;
      }
      for (String n = name; n.contains("."); n = n.substring(0, n.lastIndexOf('.'))) {
        if (packageOf.containsKey(n)) {
          out.add(n);
          break;
        }
      }
    }
    out.remove(type);
    return out;
  }

  /** File type to the file types it imports. */
  Map<String, Set<String>> files() {
    return files;
  }

  /** Package to the other packages its files import from. */
  Map<String, Set<String>> packages() {
    Map<String, Set<String>> out = new TreeMap<>();
    files.forEach(
        (type, imports) -> {
          Set<String> to = out.computeIfAbsent(packageOf.get(type), k -> new TreeSet<>());
          imports.forEach(i -> to.add(packageOf.get(i)));
          to.remove(packageOf.get(type));
        });
    return out;
  }

  /**
   * One loop through each group of nodes that reach each other ({@code "a -> b -> a"}), or none;
   * each group is found by Tarjan's algorithm and shown by its shortest loop through its first
   * node.
   */
  static List<String> cycles(Map<String, Set<String>> graph) {
    List<String> out = new ArrayList<>();
    for (Set<String> group : new Tarjan(graph).groups) {
      if (group.size() > 1) {
        out.add(loop(graph, group));
      }
    }
    return out;
  }

  private static String loop(Map<String, Set<String>> graph, Set<String> group) {
    String start = group.iterator().next();
    Map<String, String> from = new HashMap<>();
    Deque<String> queue = new ArrayDeque<>(List.of(start));
    while (!queue.isEmpty()) {
      String v = queue.poll();
      for (String w : graph.getOrDefault(v, Set.of())) {
        if (w.equals(start)) {
          List<String> path = new ArrayList<>(List.of(start));
          for (String u = v; !u.equals(start); u = from.get(u)) {
            path.add(1, u);
          }
          path.add(start);
          return String.join(" -> ", path);
        }
        if (group.contains(w) && !from.containsKey(w)) {
          from.put(w, v);
          queue.add(w);
        }
      }
    }
    throw new AssertionError("no loop through " + start);
  }

  /** The strongly connected components of a graph, each sorted. */
  private static final class Tarjan {
    final List<Set<String>> groups = new ArrayList<>();
    private final Map<String, Set<String>> graph;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<String, Integer> low = new HashMap<>();
    private final Deque<String> stack = new ArrayDeque<>();

    Tarjan(Map<String, Set<String>> graph) {
      this.graph = graph;
      for (String v : new TreeSet<>(graph.keySet())) {
        if (!index.containsKey(v)) {
          visit(v);
        }
      }
    }

    private void visit(String v) {
      index.put(v, index.size());
      low.put(v, index.get(v));
      stack.push(v);
      for (String w : graph.getOrDefault(v, Set.of())) {
        if (!index.containsKey(w)) {
          visit(w);
          low.put(v, Math.min(low.get(v), low.get(w)));
        } else if (stack.contains(w)) {
          low.put(v, Math.min(low.get(v), index.get(w)));
        }
      }
      if (low.get(v).equals(index.get(v))) {
        Set<String> group = new TreeSet<>();
        String w;
        do {
          w = stack.pop();
          group.add(w);
        } while (!w.equals(v));
        groups.add(group);
      }
    }
  }
}
