"""A large bundle for the scale tests and bench/bench_large.py: the recorded mnist_cnn
bundle with its CPU optimized HLO replaced by a generated module of N instructions.

The module reads like XLA's CPU output for a deep CNN: many entry parameters
(weights, `XLA_Args`), constants, kLoop/kOutput fusions calling fused
computations of a handful of instructions each, reduction regions, layouts
and metadata with the recorded model's name scopes (so the index attributes
the instructions to its layers).
"""

from __future__ import annotations

import shutil
from pathlib import Path

RECORDED = Path(__file__).parent / "fixtures" / "bundles" / "mnist_cnn"
SCOPES = ("mnist_cnn_1/conv2d_1", "mnist_cnn_1/max_pooling2d_1", "mnist_cnn_1/flatten_1", "mnist_cnn_1/dense_1")
OPS = (("Conv2D", "convolution"), ("Relu", "Relu"), ("MaxPool", "MaxPool2d"), ("BiasAdd", "BiasAdd"))
FUSED_SIZE = 7  # instructions per fused computation, its parameters included
PARAMETERS = 400  # entry parameters (NASNetMobile's CPU module has 1,127)
CONSTANTS = 100


def _metadata(i: int) -> str:
    op_type, op = OPS[i % len(OPS)]
    return (f'metadata={{op_type="{op_type}" op_name="{SCOPES[i % len(SCOPES)]}/{op}"'
            f' source_file="keras/src/ops/nn.py" source_line={1000 + i % 300}}}')


def fusion_count(instructions: int) -> int:
    """Fusions in the entry (each with its fused computation); the rest is parameters, constants,
    the entry's input and a reduction region of three."""
    return max(1, (instructions - PARAMETERS - CONSTANTS - 4) // (FUSED_SIZE + 1))


def module_text(instructions: int) -> str:
    """HLO text of about `instructions` instructions (parameters, constants, fusions and their bodies)."""
    fusions = fusion_count(instructions)
    shape, layout = "f32[8,32,32,64]", "{3,2,1,0}"
    parts = ["HloModule large_generated, is_scheduled=true, entry_computation_layout={()->f32[8,32,32,64]{3,2,1,0}}",
             "",
             "%region_0 (a: f32[], b: f32[]) -> f32[] {",
             "  %a = f32[] parameter(0)",
             "  %b = f32[] parameter(1)",
             "  ROOT %max = f32[] maximum(%a, %b)",
             "}", ""]
    for f in range(fusions):
        parts.append(f"%fused_computation.{f} (param_0.{f}: {shape}, param_1.{f}: f32[64]) -> {shape} {{")
        parts.append(f"  %param_0.{f} = {shape}{layout} parameter(0)")
        parts.append(f"  %param_1.{f} = f32[64]{{0}} parameter(1)")
        parts.append(f"  %broadcast.{f} = {shape}{layout} broadcast(%param_1.{f}), dimensions={{3}}, {_metadata(f)}")
        parts.append(f"  %add.{f} = {shape}{layout} add(%param_0.{f}, %broadcast.{f}), {_metadata(f)}")
        parts.append(f"  %zero.{f} = f32[] constant(0), {_metadata(f)}")
        parts.append(f"  %zeros.{f} = {shape}{layout} broadcast(%zero.{f}), dimensions={{}}, {_metadata(f)}")
        parts.append(f"  ROOT %maximum.{f} = {shape}{layout} maximum(%add.{f}, %zeros.{f}), {_metadata(f)}")
        parts.append("}")
        parts.append("")
    params = ", ".join(f"arg{p}: f32[64]" for p in range(PARAMETERS))
    parts.append(f"ENTRY %main ({params}) -> {shape} {{")
    for p in range(PARAMETERS):
        parts.append(f'  %arg{p} = f32[64]{{0}} parameter({p}), parameter_replication={{false}},'
                     f' metadata={{op_name="XLA_Args"}}')
    for c in range(CONSTANTS):
        parts.append(f"  %constant.{c} = f32[] constant({c}), {_metadata(c)}")
    parts.append(f"  %input = {shape}{layout} broadcast(%constant.0), dimensions={{}}, {_metadata(0)}")
    previous = "%input"
    for f in range(fusions):
        kind = "kOutput" if f % 3 == 0 else "kLoop"
        root = "ROOT " if f == fusions - 1 else ""
        parts.append(f"  {root}%fusion.{f} = {shape}{layout} fusion({previous}, %arg{f % PARAMETERS}),"
                     f" kind={kind}, calls=%fused_computation.{f}, {_metadata(f)}")
        previous = f"%fusion.{f}"
    parts.append("}")
    return "\n".join(parts) + "\n"


def write_large_bundle(directory: Path, instructions: int = 30_000) -> Path:
    """The recorded bundle copied to `directory`, its CPU optimized HLO `instructions` long."""
    bundle = Path(directory)
    shutil.copytree(RECORDED, bundle)
    text = module_text(instructions)
    cpu = bundle / "targets" / "cpu"
    (cpu / "optimized_hlo.txt").write_text(text, encoding="utf-8")
    return bundle


def last_fusion_name(instructions: int = 30_000) -> str:
    """The entry's last instruction (its ROOT), at the end of the list."""
    return f"fusion.{fusion_count(instructions) - 1}"
