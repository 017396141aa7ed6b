package org.sparknet.api.spark;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * A net definition read from solver and net files on any Hadoop file system, as the CLI reads them:
 * a solver's {@code net:} (or {@code train_net:}) path is resolved beside the solver file first,
 * then as it is written (against the working directory of the solver's file system), so Caffe's
 * examples work both from their own folder and from Caffe's root. The stages keep the texts, so
 * that a saved stage does not depend on the files.
 */
final class DefinitionFiles {
  /** Stands in for a solver when only a net is given: inference never steps the solver. */
  static final String INFERENCE_SOLVER = "base_lr: 0.01\nlr_policy: \"fixed\"\n";

  private static final Pattern NET_FILE =
      Pattern.compile("(?m)^\\s*(?:train_)?net\\s*:\\s*\"([^\"]*)\"");
  private static final Pattern EMBEDDED_NET = Pattern.compile("(?m)^\\s*(?:train_)?net_param\\b");

  private DefinitionFiles() {}

  /**
   * @param solver the solver text
   * @param net the net text; null when the solver names no net file ({@link #embedsNet} tells
   *     whether it carries one)
   */
  record Texts(String solver, String net) {
    boolean embedsNet() {
      return EMBEDDED_NET.matcher(solver).find();
    }
  }

  /**
   * Reads {@code solverUri} and the net: {@code netUri} when given, else the file that the solver
   * names (if it names one).
   *
   * @throws IllegalArgumentException naming the file that is missing or unreadable, and both places
   *     a named net file was looked for
   */
  static Texts read(String solverUri, String netUri) {
    Configuration conf = hadoopConf();
    Path solver = new Path(solverUri);
    String solverText = text(conf, solver, "Solver");
    if (netUri != null) {
      return new Texts(solverText, text(conf, new Path(netUri), "Net"));
    }
    Matcher m = NET_FILE.matcher(solverText);
    if (!m.find()) {
      return new Texts(solverText, null);
    }
    Path named = new Path(m.group(1));
    List<Path> candidates = new ArrayList<>();
    try {
      FileSystem fs = solver.getFileSystem(conf);
      if (named.isAbsolute() || named.toUri().getScheme() != null) {
        candidates.add(named);
      } else {
        candidates.add(new Path(solver.getParent(), named));
        candidates.add(fs.makeQualified(named));
      }
      for (Path p : candidates) {
        if (p.getFileSystem(conf).isFile(p)) {
          return new Texts(solverText, text(conf, p, "Net"));
        }
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "Cannot look for the net file '" + named + "' of solver " + solver + ": " + e, e);
    }
    throw new IllegalArgumentException(
        "Solver "
            + solver
            + " names the net file '"
            + named
            + "', which is not at "
            + (candidates.size() == 1
                ? candidates.get(0)
                : candidates.get(0) + " nor at " + candidates.get(1))
            + "; set the net with setNetFile(uri) or setNetText(text)");
  }

  /** The UTF-8 text of {@code uri}. */
  static String text(String uri, String what) {
    return text(hadoopConf(), new Path(uri), what);
  }

  private static String text(Configuration conf, Path file, String what) {
    try (InputStream in = file.getFileSystem(conf).open(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (FileNotFoundException e) {
      throw new IllegalArgumentException(what + " file " + file + " does not exist");
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "Cannot read " + what.toLowerCase() + " file " + file + ": " + e.getMessage(), e);
    }
  }

  /** The active Spark session's Hadoop settings (for hdfs: and s3a: URIs), else the defaults. */
  static Configuration hadoopConf() {
    scala.Option<SparkSession> s = SparkSession.getActiveSession();
    if (s.isEmpty()) {
      s = SparkSession.getDefaultSession();
    }
    return s.isDefined() ? s.get().sparkContext().hadoopConfiguration() : new Configuration();
  }
}
