package org.sparknet.bench.loop;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.train.Averaging;
import org.sparknet.apps.data.ClasspathText;
import org.sparknet.apps.mnist.FashionRecipe;
import org.sparknet.apps.mnist.LeNet;

/**
 * A candidate training recipe for Fashion-MNIST: a Caffe net and solver (resources under {@code
 * recipes/NAME/}) and the SparkNet settings it runs with.
 *
 * @param name the name {@code --recipes} takes
 * @param folder the resource folder of the net and solver (recipes that differ only in their
 *     SparkNet settings share one)
 * @param summary one line for the table
 * @param tau solver steps per round
 * @param batch the TRAIN batch of the net
 * @param averaging how the driver combines the workers' weights
 */
record Recipe(String name, String folder, String summary, int tau, int batch, Averaging averaging) {
  Recipe(String name, String summary, int tau, int batch, Averaging averaging) {
    this(name, name, summary, tau, batch, averaging);
  }

  static final List<Recipe> ALL =
      List.of(
          new Recipe(
              "lenet",
              "the demo: LeNet, SGD momentum 0.9, `inv`, lr 0.03",
              50,
              64,
              Averaging.PLAIN),
          new Recipe(
              "lenet-relu-adam",
              "LeNet + ReLU after the convolutions, MSRA init; Adam 0.002, linear decay",
              20,
              64,
              Averaging.PLAIN),
          new Recipe(
              "lenet-relu-nesterov",
              "LeNet + ReLU after the convolutions, MSRA init; Nesterov 0.03, weight decay 5e-4,"
                  + " linear decay",
              20,
              64,
              Averaging.PLAIN),
          new Recipe(
              "wide-nesterov",
              "conv 32-64 (5×5) + ReLU, fc 256; Nesterov 0.03, weight decay 5e-4, linear decay",
              20,
              64,
              Averaging.PLAIN),
          new Recipe(
              "lenet-relu-nesterov-b32",
              "lenet-relu-nesterov with batch 32 (twice the steps an epoch)",
              40,
              32,
              Averaging.PLAIN),
          new Recipe(
              "lenet-relu-nesterov-b16",
              "lenet-relu-nesterov with batch 16 (four times the steps an epoch)",
              80,
              16,
              Averaging.PLAIN),
          new Recipe(
              "wide-nesterov-b32",
              "wide-nesterov with batch 32 (twice the steps an epoch)",
              40,
              32,
              Averaging.PLAIN),
          new Recipe(
              "lenet-relu-nesterov-b32-lr06",
              "lenet-relu-nesterov-b32 with base learning rate 0.06",
              40,
              32,
              Averaging.PLAIN),
          new Recipe(
              "wide-nesterov-b32-drop",
              "wide-nesterov-b32 with dropout 0.3 after fc1",
              40,
              32,
              Averaging.PLAIN),
          new Recipe(
              "wide-nesterov-b32-drop-tau10",
              "wide-nesterov-b32-drop",
              "wide-nesterov-b32-drop averaged every 10 steps",
              10,
              32,
              Averaging.PLAIN),
          new Recipe(
              "wide-norm-nesterov-b32-drop",
              "wide-nesterov-b32-drop with its input standardised (a Power layer: Fashion-MNIST's"
                  + " pixel mean and standard deviation)",
              40,
              32,
              Averaging.PLAIN),
          new Recipe(
              "wide-norm-nesterov-b32-drop-tau10",
              "wide-norm-nesterov-b32-drop",
              "wide-norm-nesterov-b32-drop averaged every 10 steps",
              10,
              32,
              Averaging.PLAIN),
          new Recipe(
              "wide-norm-nesterov-b32-drop-lr01",
              "wide-norm-nesterov-b32-drop with base learning rate 0.01",
              40,
              32,
              Averaging.PLAIN),
          new Recipe(
              "wide-nesterov-b16-drop",
              "wide-nesterov-b32-drop with batch 16 (four times the steps an epoch of batch 64)",
              80,
              16,
              Averaging.PLAIN),
          new Recipe(
              "wide-nesterov-b32-drop-easgd",
              "wide-nesterov-b32-drop",
              "wide-nesterov-b32-drop with elastic averaging (EASGD, alpha 0.45) every 10 steps",
              10,
              32,
              Averaging.elastic(TimeToAccuracySection.EASGD_ALPHA)),
          new Recipe(
              "wide3-nesterov-b32-drop",
              "wide-nesterov-b32-drop with 3×3 convolutions padded to keep their input's size",
              40,
              32,
              Averaging.PLAIN),
          new Recipe(
              "wide3-nesterov-b32-drop-tau10",
              "wide3-nesterov-b32-drop",
              "wide3-nesterov-b32-drop averaged every 10 steps",
              10,
              32,
              Averaging.PLAIN),
          new Recipe(
              "wide3-nesterov-b32-drop5",
              "wide3-nesterov-b32-drop with dropout 0.5",
              40,
              32,
              Averaging.PLAIN),
          new Recipe(
              "wide3-mirror-nesterov-b32-drop",
              "wide3-nesterov-b32-drop with training images flipped left-right at random",
              40,
              32,
              Averaging.PLAIN),
          new Recipe(
              "wide-bn-nesterov-b32-drop",
              "wide-nesterov-b32-drop + BatchNorm/Scale after the convolutions; base_lr 0.1",
              40,
              32,
              Averaging.PLAIN),
          new Recipe(
              "lenet-bn-adam",
              "lenet-relu-adam + BatchNorm/Scale after the convolutions",
              20,
              64,
              Averaging.PLAIN),
          new Recipe(
              "wide-adam",
              "conv 32-64 (5×5) + ReLU, fc 256; Adam 0.002, linear decay",
              20,
              64,
              Averaging.PLAIN),
          new Recipe(
              "wide-bn-adam",
              "wide-adam + BatchNorm/Scale after the convolutions",
              20,
              64,
              Averaging.PLAIN),
          new Recipe(
              "wide-bn-nesterov",
              "wide + BatchNorm/Scale; Nesterov 0.05, weight decay 5e-4, linear decay",
              20,
              64,
              Averaging.PLAIN));

  private static final Map<String, Recipe> BY_NAME =
      ALL.stream().collect(Collectors.toMap(Recipe::name, Function.identity()));

  static Recipe named(String name) {
    Recipe r = BY_NAME.get(name);
    if (r == null) {
      throw new IllegalArgumentException(
          "Unknown recipe '" + name + "'; choose from " + BY_NAME.keySet());
    }
    return r;
  }

  static List<String> names() {
    return ALL.stream().map(Recipe::name).toList();
  }

  /** The net and solver with {@code seed}, and {@code max_iter} set to the steps to be run. */
  NetDefinition definition(long seed, long maxIter) {
    if (name.equals("lenet")) {
      return LeNet.definition(seed, BenchRun.LR);
    }
    String solver = FashionRecipe.planned(text("solver.prototxt"), seed, maxIter);
    return new NetDefinition(
        "caffe", solver, text("net.prototxt"), List.of(1, 28, 28), seed, "cpu");
  }

  private String text(String file) {
    String resource = "/org/sparknet/bench/recipes/" + folder + "/" + file;
    return ClasspathText.read(Recipe.class, resource, "Resource " + resource + " is missing");
  }
}
