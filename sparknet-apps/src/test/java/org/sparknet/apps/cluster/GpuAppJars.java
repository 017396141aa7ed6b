package org.sparknet.apps.cluster;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The jars of {@link GpuSchedulingApp}, which the GPU scheduling ITs (standalone and YARN) submit:
 * the app with its engine, and sparknet-api's test net that the engine wraps.
 */
final class GpuAppJars {
  private GpuAppJars() {}

  /** The app and its engine, from this module's test classes, with the engine registered. */
  static Path appJar(Path jar) throws IOException {
    Path classes = StandaloneCluster.TARGET.resolve("test-classes");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      for (Class<?> c : List.of(GpuSchedulingApp.class, DeviceRecorderProvider.class)) {
        String name = c.getName().replace('.', '/') + ".class";
        put(out, name, Files.readAllBytes(classes.resolve(name)));
      }
      put(
          out,
          "META-INF/services/org.sparknet.api.NetProvider",
          (DeviceRecorderProvider.class.getName() + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return jar;
  }

  /** sparknet-api's test net (SoftmaxNet), from the test class path: a jar, or its classes. */
  static Path apiTestJar(Path jar) throws IOException {
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      Path p = Path.of(entry);
      if (entry.contains("sparknet-api") && entry.endsWith("-tests.jar")) {
        return p;
      }
      if (entry.contains("sparknet-api") && entry.endsWith("test-classes")) {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
            Stream<Path> files = Files.walk(p.resolve("org/sparknet/api/testnet"))) {
          for (Path f : files.filter(Files::isRegularFile).toList()) {
            put(out, p.relativize(f).toString(), Files.readAllBytes(f));
          }
        }
        return jar;
      }
    }
    throw new IllegalStateException("sparknet-api's test classes are not on the class path");
  }

  private static void put(JarOutputStream out, String name, byte[] bytes) throws IOException {
    out.putNextEntry(new JarEntry(name));
    OutputStream o = out;
    o.write(bytes);
    out.closeEntry();
  }
}
