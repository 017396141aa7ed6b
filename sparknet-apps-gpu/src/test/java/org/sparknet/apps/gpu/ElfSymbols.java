package org.sparknet.apps.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a shared library asks for and offers, as {@code readelf} reads it: its undefined symbols by
 * the version node they ask for ("cublasSgemm_v2" under "libcublas.so.11"), its defined functions
 * by the node they are exported under, its soname and its needed version nodes.
 */
record ElfSymbols(
    String soname,
    Map<String, Set<String>> undefined,
    Map<String, Set<String>> exported,
    Set<String> neededNodes) {
  private static final Pattern SYMBOL =
      Pattern.compile("^\\s*\\d+:\\s+\\S+\\s+\\S+\\s+(\\w+)\\s+(\\w+)\\s+\\w+\\s+(\\w+)\\s+(\\S+)");
  private static final Pattern SONAME = Pattern.compile("\\(SONAME\\)\\s+Library soname: \\[(.+)]");
  private static final Pattern NEED = Pattern.compile("Name: (\\S+)\\s+Flags");

  static ElfSymbols of(Path library) throws IOException, InterruptedException {
    Map<String, Set<String>> undefined = new TreeMap<>();
    Map<String, Set<String>> exported = new TreeMap<>();
    for (String line : readelf("--dyn-syms", "-W", library.toString()).split("\n")) {
      Matcher m = SYMBOL.matcher(line);
      if (!m.find() || !m.group(4).contains("@")) {
        continue;
      }
      String name = m.group(4).substring(0, m.group(4).indexOf('@'));
      String node = m.group(4).substring(m.group(4).lastIndexOf('@') + 1);
      if (m.group(3).equals("UND")) {
        undefined.computeIfAbsent(node, k -> new TreeSet<>()).add(name);
      } else if (m.group(1).equals("FUNC") && m.group(2).equals("GLOBAL")) {
        exported.computeIfAbsent(node, k -> new TreeSet<>()).add(name);
      }
    }
    Matcher s = SONAME.matcher(readelf("-d", library.toString()));
    Set<String> needed = new TreeSet<>();
    String versions = readelf("-V", library.toString());
    String needs =
        versions.contains("'.gnu.version_r'")
            ? versions.substring(versions.indexOf("'.gnu.version_r'"))
            : "";
    Matcher n = NEED.matcher(needs);
    while (n.find()) {
      needed.add(n.group(1));
    }
    return new ElfSymbols(s.find() ? s.group(1) : null, undefined, exported, needed);
  }

  /** Copies {@code entry} of {@code jar} to {@code dir} under its own file name. */
  static Path extract(Path jar, String entry, Path dir) throws IOException {
    Path out = dir.resolve(entry.substring(entry.lastIndexOf('/') + 1));
    try (JarFile j = new JarFile(jar.toFile());
        InputStream in = j.getInputStream(j.getJarEntry(entry))) {
      Files.copy(in, out);
    }
    return out;
  }

  private static String readelf(String... args) throws IOException, InterruptedException {
    String[] cmd = new String[args.length + 1];
    cmd[0] = "readelf";
    System.arraycopy(args, 0, cmd, 1, args.length);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(1, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException("readelf " + String.join(" ", args) + " failed: " + out);
    }
    return out;
  }
}
