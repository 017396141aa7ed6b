#!/usr/bin/env bash
# Builds SparkNet's CUDA compatibility natives into OUT_DIR (the GPU jar's
# org/sparknet/caffe/cuda/linux-x86_64/):
#   libcublas.so.11   forwards the cuBLAS functions libcaffe calls to libcublas.so.13 or .so.12
#   libcudnn.so.8     forwards the cuDNN functions libcaffe calls to libcudnn.so.9
#   libsparknet_cuda.so   the JNI probe (CudaNatives): driver, devices, JIT, library handles
#   libcudart.so.11.0     CUDA 11.8's own runtime, NVIDIA's binary as Debian's non-free
#                         libcudart11.0 package ships it (fetched once, checked against its SHA-256)
# Usage: build.sh OUT_DIR [JAVA_HOME]. The .deb is cached in SPARKNET_NATIVE_CACHE (default
# ~/.cache/sparknet); put it there by hand where deb.debian.org cannot be reached.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: build.sh OUT_DIR [JAVA_HOME]}"
java_home="${2:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}}"
cache="${SPARKNET_NATIVE_CACHE:-$HOME/.cache/sparknet}"
deb_name="libcudart11.0_11.8.89~11.8.0-5~deb12u1_amd64.deb"
deb_url="http://deb.debian.org/debian/pool/non-free/n/nvidia-cuda-toolkit/$deb_name"
deb_sha256="6c0e4052f5cb7ffcd70989110ed51af7c506ff7dc60d49900ae316ac9abaee29"

command -v gcc >/dev/null || { echo "build.sh: gcc is needed to build the CUDA compatibility natives" >&2; exit 1; }
mkdir -p "$out" "$cache"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
flags=(-shared -fPIC -O2 -Wall -Wl,-z,noexecstack -Wl,-z,defs -Wl,--no-as-needed -l:libdl.so.2)

# forward LIBRARY SONAME VERSION_NODE TARGETS: one forwarding library from LIBRARY.functions.
forward() {
  local functions="$here/$1.functions"
  sed 's/.*/FORWARD(&)/' "$functions" > "$work/$1.list"
  { echo "$3 {"; echo "  global:"; sed 's/.*/    &;/' "$functions"; echo "  local: *;"; echo "};"; } \
    > "$work/$1.map"
  gcc "$here/forward.c" -o "$out/$2" -DFUNCTIONS="\"$work/$1.list\"" -DTARGETS="$4" \
    -Wl,-soname,"$2" -Wl,--version-script="$work/$1.map" "${flags[@]}"
}
forward cublas11 libcublas.so.11 libcublas.so.11 '"libcublas.so.13","libcublas.so.12"'
forward cudnn8 libcudnn.so.8 libcudnn.so.8 '"libcudnn.so.9"'

gcc "$here/sparknet_cuda.c" -o "$out/libsparknet_cuda.so" -I"$java_home/include" \
  -I"$java_home/include/linux" -Wl,-soname,libsparknet_cuda.so "${flags[@]}"

deb="$cache/$deb_name"
if [[ ! -f "$deb" ]] || ! echo "$deb_sha256  $deb" | sha256sum -c --status; then
  echo "build.sh: fetching CUDA 11.8's runtime, $deb_url" >&2
  curl -fsS -o "$deb.part" "$deb_url" || {
    echo "build.sh: cannot fetch $deb_url: put that file in $cache" >&2
    exit 1
  }
  mv "$deb.part" "$deb"
fi
echo "$deb_sha256  $deb" | sha256sum -c --status || {
  echo "build.sh: $deb does not have the SHA-256 $deb_sha256" >&2
  exit 1
}
(cd "$work" && ar x "$deb" data.tar.xz && tar -xJf data.tar.xz)
cp "$work/usr/lib/x86_64-linux-gnu/libcudart.so.11.8.89" "$out/libcudart.so.11.0"
cp "$work/usr/share/doc/libcudart11.0/copyright" "$out/libcudart.so.11.0.copyright"
cp "$here/cublas11.functions" "$here/cudnn8.functions" "$out/"
