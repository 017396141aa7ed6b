// Times SparkNet's readers (DataFormats, DataSource.read) on one executor: Spark local[1], one
// partition, every record read and decoded (count of the RDD). Run by bench/reader-rates through
// `bin/sparknet shell`; the cases come from the environment: READER_RATES_CASES is
// "format|uri|height|width|setting=value,..." lines, READER_RATES_REPS the timed reads per case
// after one untimed read (the JIT, the page cache). Prints one "RATE format records millis" line
// per timed read. READER_RATES_PARQUET="IDX_URI|DIR", when set, first writes the IDX images as
// Parquet in DIR with Spark's writer (DataSource.toDataFrame: features array<float>, label double).
import java.util.*;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.data.*;

// jshell runs a line as soon as it is a complete statement: chains end their lines with the dot.
var spark = SparkSession.builder().master("local[1]").appName("reader-rates").
    config("spark.ui.enabled", "false").getOrCreate();
int reps = Integer.parseInt(System.getenv("READER_RATES_REPS"));

void time(String line) {
  String[] f = line.split("\\|", -1);
  Map<String, String> settings = new HashMap<>();
  for (String kv : f[4].split(",")) {
    if (!kv.isEmpty()) {
      settings.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
    }
  }
  DataSource source =
      DataFormats.named(f[0]).open(new DataRequest(f[1], f[1], null, null, true, settings));
  ReadPlan plan =
      new ReadPlan(1, 1f, Integer.parseInt(f[2]), Integer.parseInt(f[3]), null, false);
  for (int i = 0; i <= reps; i++) {
    long t0 = System.nanoTime();
    long n = source.read(spark, plan).count();
    long millis = (System.nanoTime() - t0) / 1_000_000;
    if (i > 0) {
      System.out.println("RATE " + f[0] + " " + n + " " + millis);
    }
  }
}

String toParquet = System.getenv("READER_RATES_PARQUET");
if (toParquet != null && !toParquet.isEmpty()) {
  String[] p = toParquet.split("\\|");
  DataFormats.named("idx")
      .open(DataRequest.of(p[0]))
      .toDataFrame(spark, ReadPlan.of(1))
      .write()
      .parquet(p[1]);
}

for (String line : System.getenv("READER_RATES_CASES").split("\n")) {
  time(line);
}
spark.stop();
/exit
