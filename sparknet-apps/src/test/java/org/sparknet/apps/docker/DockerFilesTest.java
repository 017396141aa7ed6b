package org.sparknet.apps.docker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.sparknet.apps.cli.SparkNetCli;

/**
 * No Docker engine runs on the build machines, so the images are never built here; this keeps their
 * files consistent with the build: the jar they copy, the entry class they submit, the ports, and
 * the Spark version.
 */
class DockerFilesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void imagesCopyTheShadedJarThatTheBuildProducesAndRunItsSparkVersion() throws IOException {
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    String version =
        group(pom, "<artifactId>sparknet-parent</artifactId>\\s*<version>([^<]+)</version>");
    String spark = group(pom, "<spark.version>([^<]+)</spark.version>");
    String jar = "sparknet-apps/target/sparknet-apps-" + version + "-all.jar";
    for (String image : new String[] {"Dockerfile.cpu", "Dockerfile.gpu"}) {
      String text = Files.readString(ROOT.resolve("docker").resolve(image));
      assertTrue(text.contains("COPY " + jar + " "), image + " must copy " + jar);
      assertTrue(text.contains("ARG SPARK_VERSION=" + spark), image + " must use Spark " + spark);
      assertTrue(text.contains("EXPOSE 7077 8080 8081"), image + " ports");
    }
  }

  @Test
  void composeSubmitsTheCliEntryClassToItsOwnMaster() throws IOException {
    String compose = Files.readString(ROOT.resolve("docker/docker-compose.yml"));
    assertTrue(compose.contains("--class " + SparkNetCli.class.getName()), "entry class");
    assertTrue(compose.contains("--master spark://master:7077"), "master URL");
    assertTrue(compose.contains("\"7077:7077\""), "master port published");
    assertTrue(compose.contains("spark://master:7077\"]"), "workers join the master");
  }

  private static String group(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertTrue(m.find(), "pattern " + regex + " not found in pom.xml");
    return m.group(1);
  }
}
