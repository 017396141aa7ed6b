#!/usr/bin/env bash
# The steps of the GPU check, each under its own timeout and all within GPU_CHECK_BUDGET seconds;
# started by `gpu-check run` (GPU_CHECK_MODE=gpu), `gpu-check rehearse` (rehearsal: the same payload
# on the CPU, smaller AlexNet sizes) and prune.sh (prune: the build tree, every Spark jar, class
# loading logged). One `gpu-check:` line per result on stdout (also $OUT/summary.txt); each step's
# whole output in $OUT/logs.tar.xz; the results and section 11 in $OUT.
# No `set -e`: a step that fails must not stop the others.
# The step functions are called through `step` (shellcheck cannot see it):
# shellcheck disable=SC2317
set -uo pipefail
D="$GPU_CHECK_DIR"
MODE="$GPU_CHECK_MODE"
HOME_DIR="$GPU_CHECK_HOME"
ROOT="$GPU_CHECK_ROOT"
PY="${PYTHON:-python3}"
# Seconds since the run began (gpu-check sets GPU_CHECK_STARTED before unpacking).
STARTED="${GPU_CHECK_STARTED:-$(date +%s)}"
elapsed() {
  echo $(($(date +%s) - STARTED))
}
BUDGET="${GPU_CHECK_BUDGET:-$([[ "$MODE" == gpu ]] && echo 480 || echo 1500)}"
RESERVE=25 # for the section step and packing the logs
W="$D/work"
R="$W/results"
LOGS="$W/logs"
# A run of a few steps (GPU_CHECK_STEPS) keeps the other steps' results of the run before it, so
# that its section has them all; a whole run starts afresh.
if [[ -z "${GPU_CHECK_STEPS:-}" ]]; then
  rm -rf "$R" "$LOGS" "$W/runs"
fi
mkdir -p "$R" "$LOGS" "$W/runs" "$OUT"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"

say() {
  echo "gpu-check: $*" | tee -a "$SUMMARY"
}

record() { # record KEY TEXT...: one line of results.txt
  local key="$1"
  shift
  echo "$key $*" >>"$R/results.txt"
}

# ---------------------------------------------------------------- layout
if [[ "$MODE" != prune ]]; then
  P="$D/payload"
  [[ -d "$P/parts" ]] || { say "no payload in $P: unpack the parts first"; exit 2; }
  total="$(cat "$P"/parts/* | sed -n 's/^part [0-9]* of \([0-9]*\).*/\1/p' | sort -u | head -n 1)"
  have="$(find "$P/parts" -type f | wc -l)"
  if [[ "$have" != "$total" ]]; then
    say "payload incomplete: $have of $total parts unpacked in $P (have: $(find "$P/parts" -type f -printf '%f ' | sort))"
    exit 2
  fi
  say "payload: $(head -n 1 "$P/VERSION"), $total parts"
  t0=$SECONDS
  "$PY" "$HOME_DIR/rezip.py" "$P/jars" "$D/lib" || { say "re-zipping the jars failed"; exit 2; }
  say "jars re-zipped into $D/lib in $((SECONDS - t0)) s"
  GC_JAVA="$P/jre/bin/java"
  GC_MAIN_CP="$(sed "s|^|$D/lib/|" "$P/conf/main.cp" | paste -sd:)"
  GC_TEST_CP="$(sed "s|^|$D/lib/|" "$P/conf/test.cp" | paste -sd:)"
  GC_STUB="$P/stub"
  GC_CONF="$P/conf"
  GC_FASHION="$P/data/fashion-mnist"
  GC_DIGITS="$P/data/mnist/digits"
  GC_DLNOW="$P/bin/dlnow"
  GC_HIGHGUI="$(ls -d "$P"/jars/sparknet-apps-*-gpu.jar/org/bytedeco/opencv/linux-x86_64)"
fi
read -r -a JVM_FLAGS <"$GC_CONF/jvm-flags.txt"
read -r -a JVM_EXTRA <<<"${GC_JVM_EXTRA:-}"

# ---------------------------------------------------------------- environment of every JVM
export NVIDIA_TF32_OVERRIDE=0
export CUDA_CACHE_PATH="$D/cuda-cache"
export CUDA_CACHE_MAXSIZE=4294967296
export GLOG_minloglevel=2
export OPENBLAS_NUM_THREADS=1
export SPARK_LOCAL_IP=127.0.0.1
export SPARKNET_MNIST_DIR="$GC_DIGITS"
export SPARKNET_FASHION_MNIST_DIR="$GC_FASHION"
# JavaCPP's natives unpack under this run's folder, also in the JVMs that SparkNet starts itself
# (the dry run of a net), which the java command line does not reach.
export JAVA_TOOL_OPTIONS="-Dorg.bytedeco.javacpp.cachedir=$D/javacpp-cache"
if [[ -z "${OPENBLAS_CORETYPE:-}" ]]; then
  core="$("$ROOT/bin/openblas-core" 2>/dev/null || true)"
  [[ -z "$core" ]] || export OPENBLAS_CORETYPE="$core"
fi
# The JVMs' library path is the GTK stub and nothing of CUDA's: SparkNet must find CUDA itself. Only
# an inherited folder that holds the driver's libcuda.so.1 and no CUDA toolkit library is kept (a
# container may have the driver there only).
LIB_PATH="$GC_STUB"
IFS=: read -r -a inherited <<<"${LD_LIBRARY_PATH:-}"
for dir in "${inherited[@]}"; do
  if [[ -e "$dir/libcuda.so.1" ]] && ! ls "$dir"/libcublas* "$dir"/libcudnn* "$dir"/libcudart* >/dev/null 2>&1; then
    LIB_PATH="$LIB_PATH:$dir"
  fi
done
DEV=gpu:0
CLI_DEV=gpu
NCPU="$(nproc)"
if [[ "$MODE" != gpu ]]; then
  DEV=cpu
  CLI_DEV=cpu
fi

# jrun HEAP CLASSPATH MAIN ARGS...: a JVM under the step's timeout.
jrun() {
  local heap="$1" cp="$2"
  shift 2
  LD_LIBRARY_PATH="$LIB_PATH" timeout -k 10 "$STEP_TIMEOUT" "$GC_JAVA" "-Xmx$heap" "${JVM_FLAGS[@]}" \
    -Dlog4j2.configurationFile="$GC_CONF/log4j2.properties" \
    -XX:ErrorFile="$LOGS/hs_err_%p.log" -Djava.awt.headless=true \
    -Dsparknet.mnist.dir="$GC_DIGITS" "${JVM_EXTRA[@]}" -cp "$cp" "$@"
}

# step NAME MAX_SECONDS FUNCTION ARGS...: runs FUNCTION with STEP_TIMEOUT = MAX_SECONDS or what is
# left of the budget, its output in LOGS/NAME.log; prints its `gpu-check:` lines and its time.
# GPU_CHECK_STEPS=NAME,... runs only those steps (and env and section).
step() {
  local name="$1" max="$2"
  shift 2
  if [[ -n "${GPU_CHECK_STEPS:-}" && ",env,section,$GPU_CHECK_STEPS," != *",${name%-retry},"* ]]; then
    return 0
  fi
  local left=$((BUDGET - $(elapsed) - RESERVE))
  if ((left < 20)); then
    say "step $name: skipped, out of time ($(elapsed) s of $BUDGET used)"
    record "step.$name" "skipped"
    return
  fi
  export STEP_TIMEOUT=$((max < left ? max : left))
  local t0=$SECONDS rc
  "$@" >"$LOGS/$name.log" 2>&1
  rc=$?
  grep -a '^gpu-check: ' "$LOGS/$name.log" | tee -a "$SUMMARY"
  local how="exit $rc" why=""
  ((rc == 124 || rc == 137)) && how="TIMED OUT after $STEP_TIMEOUT s"
  # A step that failed says why: the last error line of its log (the CLI's, an exception, glog's).
  if ((rc != 0 && rc != 3)); then
    why="$(grep -a -E '^(sparknet: |Exception in thread|Caused by: |F[0-9]{4} )|Check failed|Error' \
      "$LOGS/$name.log" | grep -a -v '^gpu-check: ' | tail -n 1 | cut -c1-400)"
  fi
  say "step $name: $how in $((SECONDS - t0)) s${why:+: $why}"
  record "step.$name" "$how in $((SECONDS - t0)) s"
  return "$rc"
}

# The folders of CUDA's libraries in python's NVIDIA wheels (cuda_libs.py), from the first python
# that has any: PYTHON, the PyTorch venv, python3 on the PATH.
CUDA_LIBS=""
CUDA_WHEELS=""
for p in "$PY" /opt/torch/.venv/bin/python3 python3; do
  command -v "$p" >/dev/null 2>&1 || continue
  CUDA_LIBS="$("$p" "$HOME_DIR/cuda_libs.py" dirs 2>/dev/null)"
  if [[ -n "$CUDA_LIBS" ]]; then
    CUDA_WHEELS="$("$p" "$HOME_DIR/cuda_libs.py" wheels 2>/dev/null) ($p)"
    break
  fi
done

# ---------------------------------------------------------------- the steps
step_env() {
  record env.mode "$MODE"
  echo "== uname, glibc, cpus"; uname -a; ldd --version 2>&1 | head -n 1; nproc
  local cpu glibc mem
  cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
  glibc="$(ldd --version 2>&1 | head -n 1 | sed 's/.* //')"
  mem="$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
  echo "gpu-check: machine: $(nproc) CPUs ($cpu), $((mem / 1048576)) GiB, glibc $glibc"
  echo "gpu-check: JVM library path: $LIB_PATH (inherited LD_LIBRARY_PATH: ${LD_LIBRARY_PATH:-none})"
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi
    nvidia-smi -L | sed 's/^/gpu-check: nvidia-smi -L: /'
    local gpus driver cuda
    gpus="$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | sort | uniq -c |
      sed 's/^ *//' | paste -sd';')"
    driver="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)"
    cuda="$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n 1)"
    record env.gpu "$gpus"
    record env.driver "$driver"
    record env.cuda "$cuda"
    echo "gpu-check: driver $driver, CUDA $cuda (nvidia-smi)"
  else
    record env.gpu "none (no nvidia-smi)"
    echo "gpu-check: no nvidia-smi: no NVIDIA driver here"
  fi
  local driver_libs
  driver_libs="$( (ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null) |
    grep -E 'libcuda\.so\.1|libnvidia-ptxjitcompiler\.so\.1' | sed 's/.*=> //' | paste -sd' ')"
  echo "gpu-check: the loader's cache: ${driver_libs:-no libcuda.so.1 or libnvidia-ptxjitcompiler.so.1}"
  record env.wheels "${CUDA_WHEELS:-none}"
  echo "gpu-check: python's NVIDIA wheels: ${CUDA_WHEELS:-none}"
  local d
  IFS=: read -r -a dirs <<<"$CUDA_LIBS"
  for d in "${dirs[@]}"; do
    ls -la "$d"
    echo "gpu-check: ls $d: $(find "$d" -maxdepth 1 -name '*.so*' -printf '%f\n' | sort | paste -sd' ')"
  done
  [[ -n "$CUDA_LIBS" ]] || echo "gpu-check: python has no NVIDIA CUDA libraries (cuda_libs.py)"
  LD_LIBRARY_PATH="$GC_STUB:$GC_HIGHGUI" LD_DEBUG=libs "$GC_DLNOW" \
    "$GC_HIGHGUI/libopencv_highgui.so.406" 2>"$LOGS/ld-highgui.txt"
  local gtk
  gtk="$(grep -o 'calling init: .*libgtk-x11-2.0.so.0' "$LOGS/ld-highgui.txt" | sed 's/calling init: //')"
  echo "gpu-check: OpenCV highgui opened with RTLD_NOW; libgtk-x11-2.0.so.0 bound from ${gtk:-nowhere}"
}

# What SparkNet finds, as a user asks it: the driver, each CUDA library and the path it took, and
# every GPU with whether Caffe can run on it.
step_gpus() {
  jrun 2g "$GC_MAIN_CP" org.sparknet.apps.cli.SparkNetCli gpus | sed 's/^/gpu-check: gpus: /'
  return "${PIPESTATUS[0]}"
}

# The forward check also records where the JVM found libgtk and the CUDA libraries (LD_DEBUG).
step_forward() {
  LD_DEBUG=libs LD_DEBUG_OUTPUT="$LOGS/ld-forward" jrun 4g "$GC_MAIN_CP" \
    org.sparknet.bench.loop.GpuForwardCheck "$DEV" "$R/results.txt"
  local rc=$?
  local f
  f="$(grep -ho 'calling init: .*' "$LOGS"/ld-forward.* 2>/dev/null | sed 's/calling init: //' |
    grep -E 'libgtk-x11|libcudart|libcublas|libcudnn|libcurand|libcuda\.so|libcaffe' | sort -u | paste -sd' ')"
  echo "gpu-check: forward JVM loaded: ${f:-none of libgtk/CUDA/libcaffe seen}"
  grep -hE 'calling init|find library|trying file=.*(cuda|cublas|cudnn|curand|gtk)' "$LOGS"/ld-forward.* \
    >"$LOGS/ld-forward.txt" 2>/dev/null
  rm -f "$LOGS"/ld-forward.*[0-9]
  return "$rc"
}

# The count in the JUnit console's summary line "[ N tests WHAT ]" of the gpuit step.
tests_count() {
  grep -a -o "[0-9]* tests $1" "$LOGS/gpuit.log" | tail -n 1 | cut -d' ' -f1
}

step_gpuit() {
  jrun 4g "$GC_TEST_CP" org.junit.platform.console.ConsoleLauncher execute --disable-banner \
    --disable-ansi-colors --details=tree --select-class org.sparknet.caffe.GpuIT --include-tag gpu
  local rc=$?
  local summary
  summary="$(tests_count successful) passed, $(tests_count failed) failed,"
  summary="$summary $(tests_count aborted) aborted (assumption not met), $(tests_count skipped) skipped"
  record gpuit.summary "$summary (exit $rc)"
  echo "gpu-check: GpuIT: $summary"
  return "$rc"
}

# cli NAME DEVICE WORKERS ROUNDS [--test]: `SparkNetCli train` as a user runs it, Caffe's LeNet solver.
step_cli() {
  local name="$1" device="$2" workers="$3" rounds="$4" test=()
  [[ "${5:-}" == --test ]] && test=(--test "$GC_FASHION/t10k-images-idx3-ubyte")
  rm -rf "${W:?}/runs/$name" "$R/$name.jsonl" "$R/$name.out"
  (cd "$ROOT" && jrun 8g "$GC_MAIN_CP" org.sparknet.apps.cli.SparkNetCli train \
    --solver examples/mnist/lenet_solver.prototxt --format idx \
    --train "$GC_FASHION/train-images-idx3-ubyte" "${test[@]}" \
    --device "$device" --workers "$workers" --tau 50 --rounds "$rounds" --seed 42 \
    --output "$W/runs/$name" --metrics "$R/$name.jsonl") | tee "$R/$name.out"
  local rc=${PIPESTATUS[0]}
  local last
  last="$(grep -a -E '^(round|Final test)' "$R/$name.out" | tail -n 2 | tr -s ' ' | paste -sd' ')"
  [[ -z "$last" ]] || echo "gpu-check: $name: $last"
  return "$rc"
}

step_rates() { # rates HEAP ARGS...: GpuCheckRates on Fashion-MNIST
  local heap="$1"
  shift
  jrun "$heap" "$GC_MAIN_CP" org.sparknet.bench.loop.GpuCheckRates --data "$GC_FASHION" \
    --results "$R/results.txt" "$@"
}

step_section() {
  jrun 2g "$GC_MAIN_CP" org.sparknet.bench.loop.GpuCheckSection "$R" "$OUT/section-11.md" \
    "bench/gpu-check/gpu-check $([[ "$MODE" == rehearsal ]] && echo rehearse || echo run)"
}

# If SparkNet found no CUDA library, name python's NVIDIA folders in SPARKNET_CUDA_LIBS and retry.
retry_with_python_cuda() {
  grep -a '^devices.line ' "$R/results.txt" 2>/dev/null | grep -q 'not found' || return 1
  if [[ -z "$CUDA_LIBS" ]]; then
    say "SparkNet found no CUDA library, and python has no NVIDIA libraries to offer: not retrying"
    return 1
  fi
  export SPARKNET_CUDA_LIBS="$CUDA_LIBS"
  record cuda.libs "$CUDA_LIBS"
  say "SparkNet found no CUDA library: the remaining steps run with SPARKNET_CUDA_LIBS=$CUDA_LIBS"
  sed -i '/^devices.line \|^forward\./d' "$R/results.txt"
  return 0
}

# ---------------------------------------------------------------- run them
if [[ "$MODE" == gpu ]]; then
  A_GPU=(--batch 128 --steps 30 --reps 2 --workers 1 --tau 50 --rounds 2)
  A_CPU=(--batch 32 --workers "$NCPU" --tau 2 --rounds 2)
  L_SOLO=(--steps 300 --reps 3)
  L_SHARE=(--tau 50 --rounds 2)
else
  A_GPU=(--batch 8 --steps 2 --reps 1 --workers 1 --tau 2 --rounds 1)
  A_CPU=(--batch 8 --workers "$NCPU" --tau 1 --rounds 1)
  L_SOLO=(--steps 100 --reps 2)
  L_SHARE=(--tau 5 --rounds 1)
fi
step env 20 step_env
step gpus 90 step_gpus
step forward 240 step_forward
if retry_with_python_cuda; then step forward-retry 120 step_forward; fi
step gpuit 150 step_gpuit
step lenet-gpu 120 step_cli lenet-gpu "$CLI_DEV" 1 19 --test
step lenet-cpu1 120 step_cli lenet-cpu1 cpu 1 19 --test
step lenet-solo 90 step_rates 8g --net lenet --device "$DEV" --batch 64 --key lenet.gpu "${L_SOLO[@]}"
# 1, 2 and 4 workers sharing the first GPU (--device gpu, K workers with K per GPU), images/s and
# the GPU memory of each; then the all-reduce ring with 2 workers on that GPU.
step lenet-share 150 step_rates 16g --net lenet --device "$DEV" --spark-device "$CLI_DEV" \
  --batch 64 --key lenet.gpu --sharing 1,2,4 "${L_SHARE[@]}"
step lenet-ring2 90 step_rates 8g --net lenet --device "$DEV" --spark-device "$CLI_DEV" \
  --batch 64 --key lenet.gpu.ring2 --workers 2 --workers-per-gpu 2 --averaging allreduce \
  "${L_SHARE[@]}"
step alexnet-gpu 150 step_rates 16g --net alexnet --device "$DEV" --spark-device "$CLI_DEV" \
  --key alexnet.gpu "${A_GPU[@]}"
step lenet-cpu16 90 step_cli lenet-cpu16 cpu "$NCPU" 5
step alexnet-cpu16 150 step_rates 24g --net alexnet --device cpu --key alexnet.cpu "${A_CPU[@]}"
if [[ "$MODE" == prune ]]; then
  # The GPU variants too, which on this machine take the refusal paths (their classes count).
  step cover-cli 60 step_cli cover-cli gpu 1 1
  step cover-rates 60 step_rates 4g --net lenet --device gpu:0 --batch 64 --steps 5
  step cover-spark 60 step_rates 4g --net lenet --device gpu --batch 64 --workers 1 --tau 5 --rounds 1
  step cover-tests 120 jrun 4g "$GC_TEST_CP" org.junit.platform.console.ConsoleLauncher execute \
    --disable-banner --disable-ansi-colors --select-class org.sparknet.caffe.LeNetMnistIT
fi
RESERVE=0
step section 30 step_section
say "whole check: $(elapsed) s, unpacking included (budget $BUDGET s)"

cp "$R/results.txt" "$OUT/results.txt" 2>/dev/null
# At most 16 MiB a file comes back: if the archive is larger, each log is cut to its last 2 MiB.
# python's tarfile, as the GPU machine may have no xz.
pack_logs() {
  "$PY" -c 'import sys, tarfile
with tarfile.open(sys.argv[1], "w:xz") as t:
    for name in sys.argv[3:]:
        t.add(f"{sys.argv[2]}/{name}", name)' "$OUT/logs.tar.xz" "$W" logs results
}
pack_logs
if (($(stat -c %s "$OUT/logs.tar.xz") > 15 * 1048576)); then
  for f in "$LOGS"/*; do
    tail -c 2097152 "$f" >"$f.tail" && mv "$f.tail" "$f"
  done
  pack_logs
fi
exit 0
