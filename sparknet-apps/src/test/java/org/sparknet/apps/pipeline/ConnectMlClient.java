package org.sparknet.apps.pipeline;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.spark.connect.proto.AnalyzePlanRequest;
import org.apache.spark.connect.proto.AnalyzePlanResponse;
import org.apache.spark.connect.proto.Command;
import org.apache.spark.connect.proto.DataType;
import org.apache.spark.connect.proto.ExecutePlanRequest;
import org.apache.spark.connect.proto.ExecutePlanResponse;
import org.apache.spark.connect.proto.Expression;
import org.apache.spark.connect.proto.MlCommand;
import org.apache.spark.connect.proto.MlOperator;
import org.apache.spark.connect.proto.MlParams;
import org.apache.spark.connect.proto.MlRelation;
import org.apache.spark.connect.proto.ObjectRef;
import org.apache.spark.connect.proto.Plan;
import org.apache.spark.connect.proto.Read;
import org.apache.spark.connect.proto.Relation;
import org.apache.spark.connect.proto.SparkConnectServiceGrpc;
import org.apache.spark.connect.proto.UserContext;
import org.apache.spark.connect.proto.WriteOperation;
import org.sparkproject.connect.grpc.ManagedChannel;
import org.sparkproject.connect.grpc.ManagedChannelBuilder;

/**
 * A Spark Connect client that sends, over gRPC, the messages PySpark's Connect client sends for
 * {@code est.fit(df)}, {@code model.transform(df).write.parquet(p)}, {@code model.write().save(p)}
 * and {@code Model.load(p)} (pyspark/ml/connect and pyspark/sql/connect: MlCommand.Fit, Write and
 * Read, MlRelation.Transform, a parquet Read relation, params as literals of their Python types).
 * It uses the proto and gRPC classes shaded in spark-connect_2.13, so it needs no second copy of
 * gRPC on the test class path.
 */
final class ConnectMlClient implements AutoCloseable {
  private final ManagedChannel channel;
  private final SparkConnectServiceGrpc.SparkConnectServiceBlockingStub stub;
  private final String sessionId = UUID.randomUUID().toString();

  ConnectMlClient(int port) {
    channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    stub = SparkConnectServiceGrpc.newBlockingStub(channel);
  }

  /**
   * A DataFrame that reads Parquet files, as {@code spark.read.schema(schema).parquet(path)} sends
   * it ({@code schemaJson}: {@code StructType.json()}, what PySpark sends for a StructType).
   */
  static Relation parquet(String path, String schemaJson) {
    return Relation.newBuilder()
        .setRead(
            Read.newBuilder()
                .setDataSource(
                    Read.DataSource.newBuilder()
                        .setFormat("parquet")
                        .setSchema(schemaJson)
                        .addPaths(path)))
        .build();
  }

  /** {@code model.transform(df)}: a relation the server computes when it is used. */
  static Relation transform(ObjectRef model, Relation input) {
    return Relation.newBuilder()
        .setMlRelation(
            MlRelation.newBuilder()
                .setTransform(
                    MlRelation.Transform.newBuilder()
                        .setObjRef(model)
                        .setInput(input)
                        .setParams(MlParams.getDefaultInstance())))
        .build();
  }

  /** {@code df.columns}: the server analyses the plan and sends its schema. */
  List<String> columns(Relation relation) {
    AnalyzePlanResponse r =
        stub.analyzePlan(
            AnalyzePlanRequest.newBuilder()
                .setSessionId(sessionId)
                .setUserContext(user())
                .setSchema(
                    AnalyzePlanRequest.Schema.newBuilder()
                        .setPlan(Plan.newBuilder().setRoot(relation)))
                .build());
    List<String> names = new ArrayList<>();
    for (DataType.StructField f : r.getSchema().getSchema().getStruct().getFieldsList()) {
      names.add(f.getName());
    }
    return names;
  }

  /**
   * {@code estimator.fit(df)}: the estimator's class, a fresh uid and its params by name, as
   * PySpark's wrapper sends them; returns the server's reference to the fitted model.
   */
  ObjectRef fit(String estimatorClass, Map<String, Object> params, Relation dataset) {
    MlCommand fit =
        MlCommand.newBuilder()
            .setFit(
                MlCommand.Fit.newBuilder()
                    .setEstimator(
                        MlOperator.newBuilder()
                            .setName(estimatorClass)
                            .setUid(
                                "SparkNetClassifier_" + UUID.randomUUID().toString().substring(24))
                            .setType(MlOperator.OperatorType.OPERATOR_TYPE_ESTIMATOR))
                    .setParams(params(params))
                    .setDataset(dataset))
            .build();
    return mlResult(fit).getOperatorInfo().getObjRef();
  }

  /** {@code df.write.parquet(path)}: the server runs the plan and writes the files. */
  void writeParquet(Relation relation, String path) {
    execute(
        Command.newBuilder()
            .setWriteOperation(
                WriteOperation.newBuilder()
                    .setInput(relation)
                    .setSource("parquet")
                    .setPath(path)
                    .setMode(WriteOperation.SaveMode.SAVE_MODE_ERROR_IF_EXISTS))
            .build());
  }

  /** {@code model.write().overwrite().save(path)}. */
  void save(ObjectRef model, String path) {
    mlResult(
        MlCommand.newBuilder()
            .setWrite(
                MlCommand.Write.newBuilder()
                    .setObjRef(model)
                    .setParams(MlParams.getDefaultInstance())
                    .setPath(path)
                    .setShouldOverwrite(true))
            .build());
  }

  /** {@code ModelClass.load(path)}: the server loads it and keeps it; returns its reference. */
  ObjectRef load(String modelClass, String path) {
    MlCommand read =
        MlCommand.newBuilder()
            .setRead(
                MlCommand.Read.newBuilder()
                    .setOperator(
                        MlOperator.newBuilder()
                            .setName(modelClass)
                            .setType(MlOperator.OperatorType.OPERATOR_TYPE_MODEL))
                    .setPath(path))
            .build();
    return mlResult(read).getOperatorInfo().getObjRef();
  }

  private org.apache.spark.connect.proto.MlCommandResult mlResult(MlCommand command) {
    for (ExecutePlanResponse r : execute(Command.newBuilder().setMlCommand(command).build())) {
      if (r.hasMlCommandResult()) {
        return r.getMlCommandResult();
      }
    }
    throw new AssertionError("the server sent no MlCommandResult for " + command.getCommandCase());
  }

  /** Runs one command and drains the response stream (the server's errors surface here). */
  private List<ExecutePlanResponse> execute(Command command) {
    ExecutePlanRequest request =
        ExecutePlanRequest.newBuilder()
            .setSessionId(sessionId)
            .setUserContext(user())
            .setClientType("sparknet-test ConnectMlClient")
            .setPlan(Plan.newBuilder().setCommand(command))
            .build();
    List<ExecutePlanResponse> out = new ArrayList<>();
    Iterator<ExecutePlanResponse> it = stub.executePlan(request);
    it.forEachRemaining(out::add);
    return out;
  }

  private static UserContext user() {
    return UserContext.newBuilder().setUserId("sparknet-test").build();
  }

  /** Params as PySpark's serialize_param writes them: Python int, float, str, list of int. */
  private static MlParams params(Map<String, Object> params) {
    MlParams.Builder b = MlParams.newBuilder();
    params.forEach((name, value) -> b.putParams(name, literal(value)));
    return b.build();
  }

  private static Expression.Literal literal(Object v) {
    Expression.Literal.Builder b = Expression.Literal.newBuilder();
    if (v instanceof Integer i) {
      return b.setInteger(i).build();
    }
    if (v instanceof Double d) {
      return b.setDouble(d).build();
    }
    if (v instanceof String s) {
      return b.setString(s).build();
    }
    if (v instanceof int[] ints) {
      Expression.Literal.Array.Builder a =
          Expression.Literal.Array.newBuilder()
              .setElementType(
                  DataType.newBuilder().setInteger(DataType.Integer.getDefaultInstance()));
      for (int i : ints) {
        a.addElements(Expression.Literal.newBuilder().setInteger(i));
      }
      return b.setArray(a).build();
    }
    throw new IllegalArgumentException("no literal for " + v.getClass());
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow();
    channel.awaitTermination(10, TimeUnit.SECONDS);
  }
}
