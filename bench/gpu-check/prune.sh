#!/usr/bin/env bash
# gpu-check prune: which Spark jars and JDK modules the check needs. Runs every step of the check on
# this CPU (the rehearsal's sizes, plus the GPU variants, which take their refusal paths here, and a
# CPU LeNet test of sparknet-caffe standing in for GpuIT's skipped bodies) from the build tree with
# all of sparknet-apps/target/spark-jars and the full JDK, logging every class loaded
# (-Xlog:class+load, class data sharing off so each class names its module). Writes spark-jars.txt
# (the jars any class came from) and jre-modules.txt (the modules any class came from, with those
# the JVM flags name). pack ships only those; rehearse then proves the set on the packed JRE.
set -euo pipefail
# shellcheck source=lib.sh
source "$GPU_CHECK_HOME/lib.sh"
maven_build
console="$(console_jar)"
PR="$G/prune"
rm -rf "$PR"
mkdir -p "$PR/classload"
build_stub "$PR/stub" "$PR/bin"
stage_data "$PR/data"
stage_conf "$PR/conf"
all_spark="$(find "$SPARK_JARS" -name '*.jar' | sort | paste -sd:)"
java_home="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
export GC_JAVA="$java_home/bin/java"
export GC_MAIN_CP="$GPU_JAR:$BENCH_JAR:$all_spark"
export GC_TEST_CP="$CAFFE_TESTS:$API_TESTS:$NDARRAY_TESTS:$console:$GPU_JAR:$all_spark"
export GC_STUB="$PR/stub" GC_CONF="$PR/conf" GC_DLNOW="$PR/bin/dlnow"
export GC_FASHION="$PR/data/fashion-mnist" GC_DIGITS="$PR/data/mnist/digits"
mkdir -p "$PR/opencv"
unzip -q -o "$GPU_JAR" 'org/bytedeco/opencv/linux-x86_64/*' -d "$PR/opencv"
export GC_HIGHGUI="$PR/opencv/org/bytedeco/opencv/linux-x86_64"
export GC_JVM_EXTRA="-Xshare:off -Xlog:class+load=info:file=$PR/classload/%p.log"
GPU_CHECK_MODE=prune GPU_CHECK_DIR="$PR" OUT="$PR/out" PYTHON="${PYTHON:-python3}" "$home/run.sh"
python3 "$home/prune_lists.py" "$PR/classload" "$SPARK_JARS" "$LAUNCHER/jvm-flags.txt" \
  "$home/spark-jars.txt" "$home/jre-modules.txt"
