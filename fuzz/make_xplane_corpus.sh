#!/usr/bin/env bash
# Writes the seed corpus of the TensorFlow profile importer's harness: each hand-written XSpace
# in fuzz/xplane_seeds/*.txtpb (protobuf text format) encoded with protoc into
# fuzz/corpus/xplane_import/<name>.xplane.pb, plus the first and the last 4 KiB of a real
# fixture (cut: the importer must refuse them). Run it after changing a seed; commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
out=fuzz/corpus/xplane_import
mkdir -p "$out"
for seed in fuzz/xplane_seeds/*.txtpb; do
  name="$(basename "$seed" .txtpb)"
  protoc --proto_path=profiler/import --encode=tensorflow.profiler.XSpace xplane.proto \
    <"$seed" >"$out/$name.xplane.pb"
done
fixture=tests/data/tensorflow/tuned/plugins/profile/2026_11_23_00_00_00/host.xplane.pb
head -c 4096 "$fixture" >"$out/tuned_head_cut.xplane.pb"
tail -c 4096 "$fixture" >"$out/tuned_tail_cut.xplane.pb"
ls -l "$out"
