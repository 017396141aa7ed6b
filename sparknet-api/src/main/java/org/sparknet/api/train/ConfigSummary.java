package org.sparknet.api.train;

import java.util.Locale;
import org.sparknet.api.averaging.Compression;

/**
 * The one-line text of a {@link TrainerConfig} ({@link TrainerConfig#toString()}): the settings
 * that shape a run, the defaults left out. Apart from the config so that the value class holds
 * values and this class how they read in logs and notebooks.
 */
final class ConfigSummary {
  private ConfigSummary() {}

  static String of(TrainerConfig c) {
    String schedule =
        c.adaptiveTau()
            ? String.format(
                Locale.ROOT,
                "tau adaptive (≤ %d, overhead ≤ %.1f %%)",
                c.tauMax(),
                100 * c.maxOverhead())
            : c.tau() > 0 ? "tau " + c.tau() + " steps" : "tau " + c.tauSeconds() + " s";
    return String.format(
        Locale.ROOT,
        "TrainerConfig{engine %s, %s, workers %s, averaging %s, seed %d%s%s%s%s%s}",
        c.netDefinition().engine(),
        schedule,
        c.workers() == 0 ? "default" : c.workers(),
        c.averaging(),
        c.seed(),
        c.groupSize() > 1 ? ", groups of " + c.groupSize() : "",
        c.gpuSharing().given() ? ", " + c.gpuSharing().workersPerGpu() + " workers per GPU" : "",
        c.compression() != Compression.NONE ? ", compress " + c.compression().cliName() : "",
        c.deterministic() ? ", deterministic" : "",
        c.timeBudget().map(b -> ", " + b).orElse(""));
  }
}
