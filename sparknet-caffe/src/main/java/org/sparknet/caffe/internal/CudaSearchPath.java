package org.sparknet.caffe.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The folders where SparkNet looks for the CUDA libraries that Caffe's GPU natives need, in order:
 * where users' CUDA lives. The setting ({@value #SETTING_VARIABLE} or the system property {@value
 * #SETTING_PROPERTY}: folders separated by ':'), {@code LD_LIBRARY_PATH}, {@code
 * /usr/local/cuda*}'s library folders (newest version first), the dynamic loader's configured
 * folders ({@code /etc/ld.so.conf}), the system library folders, and last the {@code
 * nvidia/NAME/lib} folders of Python's site-packages, where PyTorch's and JAX's CUDA wheels put
 * cuBLAS, cuRAND and cuDNN. The JVM cannot change its own loader path once started, so the
 * libraries are found here and loaded by path (see {@link CudaLibraries}).
 *
 * <p>Every absolute folder is taken under {@code root} ("/" outside tests), so that a test can lay
 * a machine out in a temporary folder.
 *
 * @param root the file system's root
 * @param env the environment variables
 * @param setting the system property's value, or null
 * @param python the site-packages folders of the machine's Python, asked only when the folders
 *     before them lack a library (it starts a process)
 */
public record CudaSearchPath(
    Path root, Map<String, String> env, String setting, Supplier<List<Path>> python) {
  public static final String SETTING_VARIABLE = "SPARKNET_CUDA_LIBS";
  public static final String SETTING_PROPERTY = "sparknet.cuda.libs";

  private static final List<String> SYSTEM_FOLDERS =
      List.of(
          "/lib/x86_64-linux-gnu",
          "/usr/lib/x86_64-linux-gnu",
          "/lib64",
          "/usr/lib64",
          "/lib",
          "/usr/lib",
          "/usr/local/lib");

  /** This machine's search path. */
  public static CudaSearchPath ofThisMachine() {
    return new CudaSearchPath(
        Path.of("/"),
        System.getenv(),
        System.getProperty(SETTING_PROPERTY),
        CudaSearchPath::askPython);
  }

  /** The folders before Python's, in order, without duplicates or folders that do not exist. */
  public List<Path> folders() {
    Set<Path> out = new LinkedHashSet<>();
    addList(out, setting);
    addList(out, env.get(SETTING_VARIABLE));
    addList(out, env.get("LD_LIBRARY_PATH"));
    for (Path cuda : glob(at("/usr/local"), "cuda*")) {
      out.add(cuda.resolve("lib64"));
      out.add(cuda.resolve("targets/x86_64-linux/lib"));
    }
    for (String folder : LdConfig.folders(root)) {
      out.add(at(folder));
    }
    for (String folder : SYSTEM_FOLDERS) {
      out.add(at(folder));
    }
    return existing(out);
  }

  /** The {@code nvidia/NAME/lib} folders of Python's site-packages and the usual environments'. */
  public List<Path> pythonFolders() {
    Set<Path> sitePackages = new LinkedHashSet<>();
    for (String prefix : List.of("VIRTUAL_ENV", "CONDA_PREFIX")) {
      String p = env.get(prefix);
      if (p != null && !p.isBlank()) {
        sitePackages.addAll(glob(at(p).resolve("lib"), "python3*/site-packages"));
      }
    }
    sitePackages.addAll(python.get());
    for (String lib : List.of("/usr/lib", "/usr/local/lib")) {
      sitePackages.addAll(glob(at(lib), "python3*/dist-packages"));
      sitePackages.addAll(glob(at(lib), "python3*/site-packages"));
    }
    String home = env.get("HOME");
    if (home != null) {
      sitePackages.addAll(glob(at(home).resolve(".local/lib"), "python3*/site-packages"));
    }
    Set<Path> out = new LinkedHashSet<>();
    for (Path s : sitePackages) {
      for (Path pkg : glob(s.resolve("nvidia"), "*")) {
        out.add(pkg.resolve("lib"));
      }
    }
    return existing(out);
  }

  /** A path of this machine, under {@link #root}. */
  Path at(String absolute) {
    return root.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
  }

  private void addList(Set<Path> out, String folders) {
    if (folders == null) {
      return;
    }
    for (String f : folders.split(":")) {
      if (!f.isBlank()) {
        out.add(f.startsWith("/") ? at(f) : Path.of(f).toAbsolutePath());
      }
    }
  }

  /**
   * The folders that exist, each once: a second name of the same folder (/usr/local/cuda, a link to
   * /usr/local/cuda-13.0) is not searched, nor named in messages, again.
   */
  private static List<Path> existing(Set<Path> folders) {
    Set<Path> real = new HashSet<>();
    return folders.stream()
        .map(Path::normalize)
        .filter(Files::isDirectory)
        .filter(f -> real.add(realPath(f)))
        .toList();
  }

  private static Path realPath(Path folder) {
    try {
      return folder.toRealPath();
    } catch (IOException e) {
      return folder; // vanished since: compared by its name
    }
  }

  /** The entries of {@code folder} matching {@code pattern}, newest version first. */
  static List<Path> glob(Path folder, String pattern) {
    if (!Files.isDirectory(folder)) {
      return List.of();
    }
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(folder, pattern)) {
      ds.forEach(out::add);
    } catch (IOException e) {
      return List.of();
    }
    out.sort(Comparator.comparing((Path p) -> p.getFileName().toString(), VERSIONS).reversed());
    return out;
  }

  /** Names compared with their numbers as numbers: "cuda-12.10" after "cuda-12.8". */
  static final Comparator<String> VERSIONS =
      (a, b) -> {
        String[] x = a.split("(?<=\\D)(?=\\d)|(?<=\\d)(?=\\D)");
        String[] y = b.split("(?<=\\D)(?=\\d)|(?<=\\d)(?=\\D)");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
          int c =
              x[i].matches("\\d+") && y[i].matches("\\d+")
                  ? Long.compare(Long.parseLong(x[i]), Long.parseLong(y[i]))
                  : x[i].compareTo(y[i]);
          if (c != 0) {
            return c;
          }
        }
        return Integer.compare(x.length, y.length);
      };

  /** The site-packages folders of the {@code python3} on the PATH, or none. */
  private static List<Path> askPython() {
    try {
      Process p =
          new ProcessBuilder(
                  "python3",
                  "-c",
                  "import site\nfor s in site.getsitepackages()+[site.getusersitepackages()]:"
                      + " print(s)")
              .redirectErrorStream(false)
              .start();
      p.getOutputStream().close();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return List.of();
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return out.lines().filter(l -> !l.isBlank()).map(Path::of).toList();
    } catch (IOException e) {
      return List.of(); // no python3
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    }
  }
}
