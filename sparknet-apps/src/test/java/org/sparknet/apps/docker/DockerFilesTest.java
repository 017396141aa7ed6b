package org.sparknet.apps.docker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.sparknet.apps.cli.SparkNetCli;

/**
 * No Docker engine runs on the build machines, so the images are never built here; this keeps their
 * files consistent with the build: the jar they copy, the entry class they submit, the ports, and
 * the Spark version, and the GPU workers' resource discovery.
 *
 * <p>Broken build this catches: the GPU image as it was before it had its own jar (copying the CPU
 * jar, no discovery script) failed "Dockerfile.gpu must copy
 * sparknet-apps-gpu/target/sparknet-apps-0.1.0-SNAPSHOT-gpu.jar" and "script copied".
 */
class DockerFilesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void imagesCopyTheShadedJarThatTheBuildProducesAndRunItsSparkVersion() throws IOException {
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    String version =
        group(pom, "<artifactId>sparknet-parent</artifactId>\\s*<version>([^<]+)</version>");
    String spark = group(pom, "<spark.version>([^<]+)</spark.version>");
    Map<String, String> jars =
        Map.of(
            "Dockerfile.cpu", "sparknet-apps/target/sparknet-apps-" + version + "-all.jar",
            "Dockerfile.gpu", "sparknet-apps-gpu/target/sparknet-apps-" + version + "-gpu.jar");
    for (String image : jars.keySet()) {
      String text = Files.readString(ROOT.resolve("docker").resolve(image));
      String jar = jars.get(image);
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

  @Test
  void gpuWorkersDiscoverTheirGpusWithTheShippedScript() throws IOException {
    String gpuImage = Files.readString(ROOT.resolve("docker/Dockerfile.gpu"));
    String script = "/opt/sparknet/getGpusResources.sh";
    assertTrue(gpuImage.contains("COPY bin/getGpusResources.sh " + script), "script copied");
    assertTrue(Files.isExecutable(ROOT.resolve("bin/getGpusResources.sh")), "script executable");
    String discovery = "-Dspark.worker.resource.gpu.discoveryScript=" + script;
    String compose = Files.readString(ROOT.resolve("docker/docker-compose.yml"));
    String gpuWorker = compose.substring(compose.indexOf("  worker-gpu:"));
    for (String text : new String[] {gpuImage, gpuWorker}) {
      assertTrue(
          text.contains("SPARK_WORKER_OPTS"), "workers configured through SPARK_WORKER_OPTS");
      assertTrue(text.contains(discovery), "the worker runs " + script);
      assertTrue(text.contains("-Dspark.worker.resource.gpu.amount="), "the worker offers GPUs");
    }
    assertTrue(gpuWorker.contains("capabilities: [gpu]"), "the container gets the GPUs");
    assertTrue(
        compose.contains("--conf spark.executor.resource.gpu.amount=1")
            && compose.contains("--conf spark.task.resource.gpu.amount=1")
            && compose.contains("--device gpu"),
        "the GPU submit example asks Spark for a GPU per executor and task");
  }

  private static String group(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertTrue(m.find(), "pattern " + regex + " not found in pom.xml");
    return m.group(1);
  }
}
