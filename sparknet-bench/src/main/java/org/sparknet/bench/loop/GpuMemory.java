package org.sparknet.bench.loop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The GPU memory this JVM holds now, as {@code nvidia-smi} reports it: this process's {@code
 * used_memory} (MiB) when nvidia-smi lists it (it does not inside some containers, whose process
 * ids it cannot see), else device 0's {@code memory.used}; "n/a" without nvidia-smi (the CPU
 * rehearsal). Asked while the nets are alive, so it holds every worker's net.
 */
final class GpuMemory {
  private GpuMemory() {}

  /** "1234 MiB (this JVM)", "1234 MiB (gpu 0 in all)" or "n/a (why)". */
  static String now() {
    String pid = Long.toString(ProcessHandle.current().pid());
    List<String> apps =
        run("nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits");
    if (apps == null) {
      return "n/a (no nvidia-smi)";
    }
    for (String line : apps) {
      String[] f = line.split(",\\s*");
      if (f.length == 2 && f[0].trim().equals(pid)) {
        return f[1].trim() + " MiB (this JVM)";
      }
    }
    List<String> used =
        run("nvidia-smi", "-i", "0", "--query-gpu=memory.used", "--format=csv,noheader,nounits");
    return used == null || used.isEmpty()
        ? "n/a (nvidia-smi gave nothing)"
        : used.get(0).trim() + " MiB (gpu 0 in all)";
  }

  private static List<String> run(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      List<String> out =
          new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
      return p.exitValue() == 0 ? out : null;
    } catch (IOException e) {
      return null; // no nvidia-smi on this machine
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
