package org.sparknet.apps.cli;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import org.sparknet.api.NetDefinition;

/**
 * Whether a local run's nets fit in the machine: in local mode every worker's net lives in this
 * JVM, outside its heap, for the whole run. Too many of them end, minutes into round 1, in swap or
 * the kernel's out-of-memory killer, which no Java error reports; so the sum is checked before
 * Spark starts, as {@link MemoryOverhead} checks an executor's container on YARN.
 */
final class LocalNetMemory {
  private static final long MIB = 1L << 20;

  private LocalNetMemory() {}

  /**
   * For a local run ({@code master} null or {@code local...}) of CPU nets: builds the net once to
   * read its native bytes and checks that {@code workers} x {@code groupSize} of them fit.
   *
   * @throws IllegalArgumentException naming --workers when they do not
   */
  static void check(String master, NetDefinition def, int workers, int groupSize) {
    boolean local = master == null || master.strip().startsWith("local");
    if (!local || workers <= 0 || !def.device().equals("cpu")) {
      return;
    }
    checkFits(
        MemoryOverhead.netBytes(def),
        workers,
        Math.max(1, groupSize),
        machineBytes(),
        Runtime.getRuntime().maxMemory());
  }

  /**
   * Refuses {@code workers} workers of {@code groupSize} nets of {@code netBytes} each when they
   * need more than the machine's {@code machineBytes} less the heap's {@code heapBytes}; the need
   * is what {@link MemoryOverhead#of} sizes an executor's overhead with.
   */
  static void checkFits(
      long netBytes, int workers, int groupSize, long machineBytes, long heapBytes) {
    long nets = (long) workers * groupSize;
    long needMib = MemoryOverhead.of(netBytes, (int) Math.min(nets, Integer.MAX_VALUE)).neededMib();
    long roomMib = (machineBytes - heapBytes) / MIB;
    if (needMib <= roomMib) {
      return;
    }
    long most = MemoryOverhead.mostNets(netBytes, roomMib) / groupSize;
    throw new IllegalArgumentException(
        String.format(
            Locale.ROOT,
            "--workers %d: a local run keeps every worker's net in this JVM, outside its heap:"
                + " %,d net(s) of %,d native bytes need about %,d MiB with Caffe's libraries, and"
                + " this machine has %,d MiB of memory, %,d MiB of it for the heap; use at most %d"
                + " workers here, or a cluster",
            workers,
            nets,
            netBytes,
            needMib,
            machineBytes / MIB,
            heapBytes / MIB,
            most));
  }

  /** The memory of this machine, or of the container this JVM runs in (the JVM reads cgroups). */
  private static long machineBytes() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getTotalMemorySize();
  }
}
