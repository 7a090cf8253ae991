"""Baseline for bench_capture: the least a script must do to get the same levels.

Imports TensorFlow, builds the same sample model, gets the HLO and optimized
HLO and runs the jit function once so XLA writes its dump (kernels, buffers).
"""

import os
import sys

dump_dir = sys.argv[2]
os.environ["XLA_FLAGS"] = f"--xla_dump_to={dump_dir} --xla_dump_hlo_as_text"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402

from sample_models import SAMPLES  # noqa: E402

model = SAMPLES[sys.argv[1]].build()
specs = [tf.TensorSpec([1 if d is None else d for d in t.shape], t.dtype) for t in model.inputs]
function = tf.function(lambda *x: model(*x, training=False), jit_compile=True)
args = [tf.zeros(s.shape, s.dtype) for s in specs]
ir = function.experimental_get_compiler_ir(*args)
ir(stage="hlo")
ir(stage="optimized_hlo")
function(*args)
