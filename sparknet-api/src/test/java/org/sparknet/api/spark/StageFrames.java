package org.sparknet.api.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.sparknet.api.data.Example;
import org.sparknet.api.testnet.SoftmaxNetProvider;
import org.sparknet.testing.data.FashionMnist;
import org.sparknet.testing.spark.LocalSpark;

/**
 * Fashion-MNIST rows for the stage tests and a classifier of the pure-Java softmax engine. Columns:
 * id, features (a Spark ML Vector), pixels (the same as {@code array<float>}), label (int), holdout
 * (boolean: every fifth row) and fold (int: 1 for those rows, else 0).
 */
final class StageFrames {
  static final String SOLVER = "features=784\nclasses=10\nbatch=16\nlr=0.5\n";

  private StageFrames() {}

  /** The first {@code n} training (or test) images, in 2 cached partitions. */
  static Dataset<Row> frame(boolean train, int n) {
    List<Example> examples = FashionMnist.load(train, n);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < examples.size(); i++) {
      float[] f = examples.get(i).features();
      double[] d = new double[f.length];
      List<Float> values = new ArrayList<>(f.length);
      for (int k = 0; k < f.length; k++) {
        d[k] = f[k];
        values.add(f[k]);
      }
      boolean held = i % 5 == 0;
      rows.add(
          RowFactory.create(
              (long) i,
              Vectors.dense(d),
              values,
              (int) examples.get(i).label(),
              held,
              held ? 1 : 0));
    }
    StructType schema =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("features", SQLDataTypes.VectorType())
            .add("pixels", DataTypes.createArrayType(DataTypes.FloatType))
            .add("label", DataTypes.IntegerType)
            .add("holdout", DataTypes.BooleanType)
            .add("fold", DataTypes.IntegerType);
    return LocalSpark.session().createDataFrame(rows, schema).repartition(2).cache();
  }

  /** Softmax regression, 2 workers, 10 steps of 16 rows per worker and round. */
  static SparkNetClassifier classifier() {
    return classifier(SOLVER);
  }

  static SparkNetClassifier classifier(String solver) {
    return new SparkNetClassifier()
        .setEngine(SoftmaxNetProvider.ENGINE)
        .setSolverText(solver)
        .setOutputBlob("prob")
        .setNumWorkers(2)
        .setTau(10)
        .setSeed(4);
  }
}
