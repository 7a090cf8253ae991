#!/usr/bin/env bash
# Real-GPU check (run on a machine with an NVIDIA GPU and JAX, via the device tool):
# captures the recorded mnist_cnn model for `gpu:local` with the JAX worker and
# copies what it wrote to $OUT, to compare with the compile-only `gpu:h100` capture.
# Needs keras and its two small deps as wheels in .device/wheels (no network there):
#   pip download --no-deps keras==3.15.1 namex optree --python-version 3.12 --only-binary=:all: \
#     --platform manylinux2014_x86_64 -d .device/wheels
set -u
OUT="${OUT:-/tmp/gpu-local-out}"; mkdir -p "$OUT"
python3 -m pip install -q --no-deps --no-index --target /tmp/pydeps .device/wheels/*.whl 2>&1 | tail -2
export PYTHONPATH="/tmp/pydeps:$PWD" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c "import jax, keras; print('jax', jax.__version__, 'keras', keras.__version__)" 2>&1 | tail -1
bundle=tests/fixtures/bundles/mnist_cnn
python3 - "$bundle" > /tmp/request.json <<'PY'
import json, sys
bundle = sys.argv[1]
print(json.dumps({"model_file": f"{bundle}/model.json", "unsafe": False,
                  "signature": json.load(open(f"{bundle}/signature.json")),
                  "target": "gpu:local", "out_dir": "/tmp/out-local"}))
PY
start=$(date +%s.%N)
python3 -m explorer.capture.jax_worker < /tmp/request.json > "$OUT/events.jsonl" 2> /tmp/worker.err
echo "worker exit $? in $(echo "$(date +%s.%N) - $start" | bc) s"
cat "$OUT/events.jsonl"
tail -c 3000 /tmp/worker.err > "$OUT/worker-stderr-tail.txt"
ls -la /tmp/out-local
for f in optimized_hlo.txt kernels.json memory.json thunk_sequence.txt buffer_assignment.txt; do
  [ -f "/tmp/out-local/$f" ] && cp "/tmp/out-local/$f" "$OUT/"
done
head -c 1500 /tmp/out-local/optimized_hlo.txt
