package org.sparknet.apps.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a Python script from the test resources with Debian's {@code /usr/bin/python3} (which has
 * python3-h5py and python3-pil; the {@code python3} on the PATH may be another interpreter): test
 * data in Caffe's formats is written by these independent tools, not by the code under test.
 */
public final class PythonScript {
  private static final String PYTHON = "/usr/bin/python3";

  private PythonScript() {}

  /**
   * Copies {@code resource} into {@code dir}, runs it there with {@code args} and returns its
   * output; a non-zero exit or a run past a minute fails with that output.
   */
  public static String run(String resource, Path dir, String... args)
      throws IOException, InterruptedException {
    Path script = dir.resolve(Path.of(resource).getFileName().toString());
    if (!Files.exists(script)) {
      CliFixtures.copyResource(resource, script);
    }
    List<String> cmd = new ArrayList<>(List.of(PYTHON, script.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(1, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException(resource + " ran past a minute");
    }
    String text = new String(out, StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IllegalStateException(resource + " exited " + p.exitValue() + ":\n" + text);
    }
    return text;
  }
}
