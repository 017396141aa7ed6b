#!/bin/sh
# Spark's GPU resource discovery for standalone workers: prints the JSON that Spark reads,
#   {"name": "gpu", "addresses": ["0", "1"]}
# one address per device that nvidia-smi lists (after CUDA_VISIBLE_DEVICES and docker's --gpus).
# Start each worker with it (docker/Dockerfile.gpu does):
#   spark.worker.resource.gpu.amount=N  spark.worker.resource.gpu.discoveryScript=/path/getGpusResources.sh
# and submit with spark.executor.resource.gpu.amount and spark.task.resource.gpu.amount: each task
# then builds its net on the GPU Spark assigned it (--device gpu or auto).
set -eu
if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "getGpusResources.sh: nvidia-smi not found: this worker has no NVIDIA driver" >&2
  exit 1
fi
ids=$(nvidia-smi --query-gpu=index --format=csv,noheader)
addresses=$(printf '%s\n' "$ids" | sed -e 's/[[:space:]]//g' -e '/^$/d' -e 's/.*/"&"/' | paste -sd, -)
printf '{"name": "gpu", "addresses": [%s]}\n' "$(printf '%s' "$addresses" | sed 's/,/, /g')"
