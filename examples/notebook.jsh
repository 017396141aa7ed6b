// SparkNet in a notebook: a jshell session with the apps jar on the class path. From the
// repository root:
//
//   bin/sparknet shell examples/notebook.jsh
//
// (`bin/sparknet shell` alone opens an empty session with the same class path; it builds the jar on
// first use, and hands Spark's --add-opens flags to the JVM that runs the snippets.) Or paste the
// lines below into a running jshell one by one. Fashion-MNIST comes from $SPARKNET_FASHION_MNIST_DIR or Debian's
// dataset-fashion-mnist package.

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.sparknet.api.spark.SparkNetClassifier;
import org.sparknet.api.spark.SparkNetClassificationModel;
import org.sparknet.api.model.Model;
import org.sparknet.api.model.Predictor;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.apps.data.FashionMnist;

// A local Spark with SparkNet's recommended settings (Kryo and its registrator).
SparkSession spark = SparkSettings.apply(SparkSession.builder().master("local[2]").appName("sparknet-notebook")).config("spark.ui.enabled", "false").getOrCreate();

// Fashion-MNIST rows: id, image (a 784-value ML Vector, pixels / 256), label.
FashionMnist fashion = FashionMnist.locate(null);
Dataset<Row> train = fashion.train().toDataFrame(spark, 0, 4000, 2, 1f / 256).withColumnRenamed("image", "features").cache();
Dataset<Row> test = fashion.test().toDataFrame(spark, 0, 1000, 2, 1f / 256).withColumnRenamed("image", "features").cache();
System.out.println("rows: train " + train.count() + ", test " + test.count());

// A small net, as Caffe prototxt text: 8 convolution filters, max pooling, 10 outputs.
String net = """
    name: "small"
    layer { name: "in" type: "Input" top: "data" top: "label"
      input_param { shape { dim: 32 dim: 1 dim: 28 dim: 28 } shape { dim: 32 } } }
    layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
      convolution_param { num_output: 8 kernel_size: 5
        weight_filler { type: "xavier" } bias_filler { type: "constant" } } }
    layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
      pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
    layer { name: "relu1" type: "ReLU" bottom: "pool1" top: "pool1" }
    layer { name: "ip1" type: "InnerProduct" bottom: "pool1" top: "ip1"
      inner_product_param { num_output: 10
        weight_filler { type: "xavier" } bias_filler { type: "constant" } } }
    layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip1" bottom: "label" top: "loss" }
    layer { name: "accuracy" type: "Accuracy" bottom: "ip1" bottom: "label" top: "accuracy"
      include { phase: TEST } }
    """;
String solver = """
    base_lr: 0.05
    momentum: 0.9
    lr_policy: "fixed"
    """;

// Two rounds of 40 steps on each of 2 workers, 10 % of the rows held out and tested every round.
// fit prints a line per round as it goes (verbose, on by default) with the time left; a listener
// sees each round's metrics too. (setSolverFile/setNetFile read Caffe files from any Hadoop URI;
// setMaxEpochs, setTargetMetric/setTargetValue and setEarlyStoppingPatience stop training early.)
SparkNetClassifier classifier = new SparkNetClassifier().setSolverText(solver).setNetText(net).setNumWorkers(2).setTau(40).setMaxRounds(2).setValidationFraction(0.1).setSeed(1);
classifier.addRoundListener(m -> System.out.println("listener: round " + m.round() + " done"));
SparkNetClassificationModel model = classifier.fit(train);
System.out.println(model);

// The model saves with its training history, which load reads back.
String dir = java.nio.file.Files.createTempDirectory("sparknet-notebook").resolve("model").toString();
model.save(dir);
SparkNetClassificationModel loaded = SparkNetClassificationModel.load(dir);
loaded.getHistory().forEach(m -> System.out.println(m.summary()));

// Predict: every input column is kept; Spark's evaluator reads the output as it is.
Dataset<Row> predictions = model.transform(test);
predictions.select("id", "label", "prediction", "probability").show(5, 60);
double accuracy = new MulticlassClassificationEvaluator().setMetricName("accuracy").evaluate(predictions);
System.out.printf("test accuracy: %.3f%n", accuracy);

// A Spark probabilistic classifier: numClasses, predict on one vector, thresholds.
org.apache.spark.ml.linalg.Vector one = test.first().getAs("features");
System.out.println("classes: " + loaded.numClasses() + ", first test row predicted: " + loaded.predict(one));

// The net itself, without Spark: a Model is its definition and weights. It saves as a directory
// that Caffe's tools read (definition/*.prototxt, weights/weights.caffemodel), runs in batches on
// this JVM through a predictor that frees its net when closed, exports to ONNX, and turns back into
// a Spark ML model with SparkNetClassificationModel.of(net).
Model net = loaded.model();
net.save(dir + "-net");
double[] d = one.toArray();
float[] x = new float[d.length];
for (int i = 0; i < d.length; i++) x[i] = (float) d[i];
try (Predictor p = Model.load(dir + "-net").newPredictor()) {
  float[] scores = p.predict(new float[][] {x})[0];
  System.out.println("Model predictor scores of the first test row: " + java.util.Arrays.toString(scores));
}
net.exportOnnx(dir + ".onnx");
System.out.println("exported " + dir + ".onnx");

spark.stop();
/exit
