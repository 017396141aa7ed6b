package org.sparknet.caffe.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The folders the dynamic loader is configured with in {@code /etc/ld.so.conf} and the files it
 * includes ({@code include /etc/ld.so.conf.d/*.conf}): CUDA's installers and NVIDIA's container
 * images add their library folders there rather than to {@code LD_LIBRARY_PATH}.
 */
final class LdConfig {
  private LdConfig() {}

  /** The absolute folders named in {@code root}'s etc/ld.so.conf and its includes, in order. */
  static List<String> folders(Path root) {
    List<String> out = new ArrayList<>();
    read(root, root.resolve("etc/ld.so.conf"), out, 0);
    return out;
  }

  private static void read(Path root, Path conf, List<String> out, int depth) {
    List<String> lines;
    try {
      lines = Files.readAllLines(conf);
    } catch (IOException e) {
      return; // no such file: nothing configured
    }
    for (String raw : lines) {
      String line = raw.replaceAll("#.*", "").trim();
      if (line.startsWith("include ") && depth < 4) {
        String pattern = line.substring("include ".length()).trim();
        Path p =
            pattern.startsWith("/")
                ? root.resolve(pattern.substring(1))
                : conf.getParent().resolve(pattern);
        List<Path> included =
            new ArrayList<>(CudaSearchPath.glob(p.getParent(), p.getFileName().toString()));
        included.sort(Comparator.naturalOrder());
        for (Path file : included) {
          read(root, file, out, depth + 1);
        }
      } else if (line.startsWith("/")) {
        out.add(line);
      }
    }
  }
}
