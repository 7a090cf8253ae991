"""A deep model's bundle for the tests and benches that need many layers (issue 23: a 5,000-layer
model's first visit to the kernels level blocked the UI): the recorded mnist_cnn bundle, cpu only,
its layers replaced by a chain of N Dense layers, its CPU modules by one dot fusion per layer (with
the layer's name scope, so the index links each to its layer) and its kernels by one per fusion.

Written in well under a second, so a Pilot test can use a fresh one; no compiler runs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from large_bundle import RECORDED

WIDTH = 64
SHAPE = f"f32[1,{WIDTH}]"
WEIGHTS = f"f32[{WIDTH},{WIDTH}]"


def layer_name(index: int) -> str:
    return f"dense_{index}"


def _scope(index: int) -> str:
    return f"deep_1/{layer_name(index)}_1"


def _layers(count: int) -> list[dict]:
    image = {"name": "image", "path": "image", "class_name": "InputLayer", "input_shapes": [],
             "output_shapes": [[1, WIDTH]], "dtype_policy": "float32", "trainable_params": 0,
             "non_trainable_params": 0, "weight_bytes": 0, "activation_bytes": 4 * WIDTH, "flops": None,
             "inbound": []}
    dense = [{"name": layer_name(i), "path": layer_name(i), "class_name": "Dense", "input_shapes": [[1, WIDTH]],
              "output_shapes": [[1, WIDTH]], "dtype_policy": "float32", "trainable_params": WIDTH * WIDTH,
              "non_trainable_params": 0, "weight_bytes": 4 * WIDTH * WIDTH, "activation_bytes": 4 * WIDTH,
              "flops": 2 * WIDTH * WIDTH, "inbound": [layer_name(i - 1) if i else "image"]}
             for i in range(count)]
    return [image, *dense]


def _metadata(index: int) -> str:
    return f'metadata={{op_type="MatMul" op_name="{_scope(index)}/MatMul"}}'


def _module(count: int, optimized: bool) -> str:
    """The chain as HLO: before optimisation one dot per layer in the entry, after it one fusion each."""
    params = ", ".join([f"x: {SHAPE}", *(f"w{i}: {WEIGHTS}" for i in range(count))])
    parts = [f"HloModule deep, entry_computation_layout={{({SHAPE}{{1,0}})->{SHAPE}{{1,0}}}}", ""]
    if optimized:
        for i in range(count):
            parts += [f"%fused_computation.{i} (param_0.{i}: {SHAPE}, param_1.{i}: {WEIGHTS}) -> {SHAPE} {{",
                      f"  %param_0.{i} = {SHAPE}{{1,0}} parameter(0)",
                      f"  %param_1.{i} = {WEIGHTS}{{1,0}} parameter(1)",
                      f"  ROOT %dot.{i} = {SHAPE}{{1,0}} dot(%param_0.{i}, %param_1.{i}),"
                      f" lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, {_metadata(i)}",
                      "}", ""]
    parts.append(f"ENTRY %main ({params}) -> {SHAPE} {{")
    parts.append(f'  %x = {SHAPE}{{1,0}} parameter(0), metadata={{op_name="XLA_Args"}}')
    parts += [f'  %w{i} = {WEIGHTS}{{1,0}} parameter({i + 1}), metadata={{op_name="XLA_Args"}}' for i in range(count)]
    previous = "%x"
    for i in range(count):
        root = "ROOT " if i == count - 1 else ""
        if optimized:
            parts.append(f"  {root}%fusion.{i} = {SHAPE}{{1,0}} fusion({previous}, %w{i}), kind=kOutput,"
                         f" calls=%fused_computation.{i}, {_metadata(i)}")
            previous = f"%fusion.{i}"
        else:
            parts.append(f"  {root}%dot.{i} = {SHAPE}{{1,0}} dot({previous}, %w{i}), lhs_contracting_dims={{1}},"
                         f" rhs_contracting_dims={{0}}, {_metadata(i)}")
            previous = f"%dot.{i}"
    parts.append("}")
    return "\n".join(parts) + "\n"


def _kernels(count: int) -> list[dict]:
    return [{"name": f"fusion.{i}", "hlo": [f"fusion.{i}"], "kind": "fusion", "llvm_ir": "", "llvm_ir_optimized": "",
             "asm": f"fusion.{i}:\n       0:  vmovups ymm0, ymmword ptr [rdi]\n       4:  ret\n",
             "ptx": "", "vector_width_bits": 256, "vector_registers": ["ymm0"], "library_calls": [], "launch": None,
             "notes": ""} for i in range(count)]


def write_deep_bundle(directory: Path, layers: int = 5_000) -> Path:
    """A bundle of `layers` Dense layers in a chain, captured for cpu (written to `directory`)."""
    bundle = Path(directory)
    shutil.copytree(RECORDED, bundle, ignore=shutil.ignore_patterns("gpu-*", "tpu-*", "passes", "grappler"))
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    manifest["model"]["name"] = manifest["model"]["spec"] = "deep"
    manifest["options"]["targets"] = ["cpu"]
    manifest["levels"] = [entry for entry in manifest["levels"] if entry[0] in ("", "cpu")]
    (bundle / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (bundle / "layers.json").write_text(json.dumps(_layers(layers)), encoding="utf-8")
    scopes = json.loads((bundle / "scopes.json").read_text(encoding="utf-8"))
    scopes["cpu"] = {_scope(i): layer_name(i) for i in range(layers)}
    (bundle / "scopes.json").write_text(json.dumps(scopes), encoding="utf-8")
    cpu = bundle / "targets" / "cpu"
    (cpu / "hlo.txt").write_text(_module(layers, optimized=False), encoding="utf-8")
    (cpu / "optimized_hlo.txt").write_text(_module(layers, optimized=True), encoding="utf-8")
    (cpu / "kernels.json").write_text(json.dumps(_kernels(layers)), encoding="utf-8")
    return bundle
