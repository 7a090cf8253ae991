"""Baseline for `bench_capture.py --mode train`: the plain JAX calls that compile one training step.

Keras on JAX builds the sample (variables left uninitialised, as the capture does: the
compiler needs shapes, not values); one jitted step, forward, mean squared error, backward
and Adam's update, is traced on abstract arguments placed on the target's device
(compile-only for a TPU), lowered, compiled, and both HLO texts are printed to memory:
what a script needs for the same module, without tensorweg.

The inference call on the same device is lowered and compiled too, for its
`memory_analysis()`: the learner sees the training step's peak against inference's
(step.json's `inference_analysis`), and a plain script gets that figure only from these
calls. The capture compiles it on a thread beside the step; this script compiles the two
one after the other, as a plain script would.

    python bench/baseline_capture_train.py MODEL TARGET BATCH    # TARGET: cpu or tpu:v5e
"""

import os
import sys

os.environ["KERAS_BACKEND"] = "jax"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import jax
import keras

from sample_models import SAMPLES

name, target, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
with keras.StatelessScope(initialize_variables=False):
    model = SAMPLES[name].build()
optimizer = keras.optimizers.Adam()
optimizer.build(model.trainable_variables)
if target == "cpu":
    device, platform = jax.devices("cpu")[0], "cpu"
else:
    from jax.experimental import topologies

    device, platform = topologies.get_topology_desc(topology_name="v5e:1x1", platform="tpu").devices[0], "tpu"
placed = jax.sharding.SingleDeviceSharding(device)


def abstract(shape, dtype):
    return jax.ShapeDtypeStruct(tuple(shape), dtype, sharding=placed)


def train_step(trainable, non_trainable, optimizer_state, x, labels):
    def loss_of(trainable, non_trainable):
        outputs, non_trainable = model.stateless_call(trainable, non_trainable, x, training=True)
        return jax.numpy.mean(jax.numpy.square(outputs - labels)), non_trainable

    (loss, non_trainable), grads = jax.value_and_grad(loss_of, has_aux=True)(trainable, non_trainable)
    trainable, optimizer_state = optimizer.stateless_apply(optimizer_state, grads, trainable)
    return loss, trainable, non_trainable, optimizer_state


trainable = [abstract(v.shape, v.dtype) for v in model.trainable_variables]
non_trainable = [abstract(v.shape, v.dtype) for v in model.non_trainable_variables]
state = [abstract(v.shape, v.dtype) for v in optimizer.variables]
x = abstract((batch, *model.inputs[0].shape[1:]), "float32")
labels = abstract((batch, *model.outputs[0].shape[1:]), "float32")
lowered = jax.jit(train_step, donate_argnums=(0, 1, 2)).trace(trainable, non_trainable, state, x, labels).lower(
    lowering_platforms=(platform,))
hlo = lowered.as_text()
compiled = lowered.compile()
optimized = compiled.as_text()


def fwd(trainable, non_trainable, x):
    outputs, _ = model.stateless_call(trainable, non_trainable, x, training=False)
    return outputs


inference = jax.jit(fwd).trace(trainable, non_trainable, x).lower(lowering_platforms=(platform,)).compile()
print(len(hlo.splitlines()), len(optimized.splitlines()), compiled.memory_analysis() is not None,
      inference.memory_analysis() is not None)
