#!/usr/bin/env bash
# Runs the mlp training-step benchmark of trainscope's CPU backend and the same model in PyTorch
# (Debian's python3-torch) side by side on this machine, and prints the ratio.
#   benchmarks/compare_pytorch.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
# Debian's python3-torch lives in the system interpreter, which a pyenv/venv python3 may shadow.
py=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import torch' 2>/dev/null; then py="$candidate"; break; fi
done
[ -n "$py" ] || {
  echo "compare_pytorch: PyTorch is missing; install it with: apt-get install python3-torch" >&2
  exit 2
}
ours=$("$build/benchmarks/bench_train" --benchmark_filter='train_step/cpu_mlp/32' \
  --benchmark_min_time=3 --benchmark_format=json | python3 -c '
import json, sys
runs = [b for b in json.load(sys.stdin)["benchmarks"] if b["name"].startswith("train_step/cpu_mlp/")]
print(round(runs[0]["samples_per_s"]))')
theirs_line=$("$py" benchmarks/pytorch_mlp.py --batch 32 --steps 3000)
theirs=$(echo "$theirs_line" | sed -E 's/.*: ([0-9]+) samples\/s/\1/')
echo "trainscope cpu backend, mlp batch 32: $ours samples/s"
echo "$theirs_line"
python3 -c "print(f'ratio: {$ours / $theirs:.1f}x PyTorch')"
