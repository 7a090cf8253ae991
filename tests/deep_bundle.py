"""A deep model's bundle for the tests and benches that need many layers (issue 23: a 5,000-layer
model's first visit to the kernels level blocked the UI): the recorded mnist_cnn bundle, cpu only,
its layers replaced by a chain of N Dense layers, its TF graph by one MatMul per layer, its CPU
modules by one dot fusion per layer (with the layer's name scope, so the index links each to its
layer and its MatMul) and its kernels by one per fusion, or
by the one `part_00` kernel holding them all, as XLA:CPU compiled a real 5,000-layer chain (issue 36).

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


def _graph(count: int) -> dict:
    """The TF graph as TensorFlow traced the chain: the input and one MatMul per layer, in its scope."""
    image = {"name": "image", "op": "Placeholder", "inputs": [], "outputs": [{"shape": [1, WIDTH], "dtype": "float32"}],
             "layer": "", "attributes": [["dtype", "float32"]], "kernel_devices": ["CPU"]}
    matmuls = [{"name": f"{_scope(i)}/MatMul", "op": "MatMul",
                "inputs": [f"{_scope(i - 1)}/MatMul:0" if i else "image:0"],
                "outputs": [{"shape": [1, WIDTH], "dtype": "float32"}], "layer": layer_name(i),
                "attributes": [["T", "float32"]], "kernel_devices": ["CPU", "XLA_CPU_JIT"]} for i in range(count)]
    ops = [image, *matmuls]
    grappler = {"ops_before": len(ops), "ops_after": len(ops), "removed": [], "added": [], "fused": [], "notes": []}
    return {"ops": ops, "optimized_ops": ops, "grappler": grappler, "source_frames": []}


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


# One fusion's code in the one part, shaped as XLA:CPU's (16 lines of assembly, 12 of LLVM IR each).
_PART_ASM = ("{name}:\n       0:  push rbp\n       1:  mov rbp, rsp\n       4:  mov rcx, qword ptr [rdi + 0x18]\n"
             "       8:  mov rax, qword ptr [rdi + 8]\n       c:  mov r8, qword ptr [rax]\n"
             "      1e:  movabs rax, 0  # col_major_gemv_F32_8_8_64_64_{index}\n"
             "      28:  call rax  # col_major_gemv_F32_8_8_64_64_{index}\n"
             "      2a:  xor eax, eax\n      2c:  pop rbp\n      2d:  ret\n\n"
             "col_major_gemv_F32_8_8_64_64_{index}:\n      30:  vmovups ymm0, ymmword ptr [rsi]\n"
             "      34:  vfmadd231ps ymm0, ymm1, ymmword ptr [rdx]\n      3a:  vmovups ymmword ptr [rdi], ymm0\n"
             "      3e:  ret\n")
_PART_IR = ("define ptr @{name}(ptr %0) #0 {{\n  %2 = getelementptr inbounds %XLA_CPU_KernelCallFrame, ptr %0,"
            " i32 0, i32 3\n  %3 = load ptr, ptr %2, align 8\n  %4 = load ptr, ptr %3, align 8\n"
            "  call void @col_major_gemv_F32_8_8_64_64_{index}(ptr %4)\n  ret ptr null\n}}\n\n"
            "define internal void @col_major_gemv_F32_8_8_64_64_{index}(ptr %0) {{\n"
            "  %2 = load <8 x float>, ptr %0, align 4\n  %3 = fmul <8 x float> %2, %2\n"
            "  store <8 x float> %3, ptr %0, align 4\n  ret void\n}}\n\n")


def _one_part(count: int) -> list[dict]:
    """What XLA:CPU made of a real 5,000-layer chain (issue 36): one `emitter` kernel, `part_00`,
    implementing every fusion, its code the whole module's (2.7 MB of assembly, 14 MB of LLVM IR there)."""
    fusions = [f"fusion.{i}" for i in reversed(range(count))]
    asm = "\n".join(_PART_ASM.format(name=name, index=i) for i, name in enumerate(fusions))
    ir = "; ModuleID = '__compute_module_part_00'\n\n" + "".join(
        _PART_IR.format(name=name, index=i) for i, name in enumerate(fusions))
    return [{"name": "part_00", "hlo": fusions, "kind": "emitter", "llvm_ir": ir, "llvm_ir_optimized": ir,
             "asm": asm, "ptx": "", "vector_width_bits": 256, "vector_registers": ["ymm0", "ymm1"],
             "library_calls": [], "launch": None, "notes": ""}]


def write_deep_bundle(directory: Path, layers: int = 5_000, one_part: bool = False) -> Path:
    """A bundle of `layers` Dense layers in a chain, captured for cpu (written to `directory`): a kernel
    per fusion, or with `one_part` the one kernel XLA:CPU's parallel codegen made of them all (`_one_part`)."""
    bundle = Path(directory)
    shutil.copytree(RECORDED, bundle, ignore=shutil.ignore_patterns("gpu-*", "tpu-*", "passes", "grappler"))
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    manifest["model"]["name"] = manifest["model"]["spec"] = "deep"
    manifest["options"]["targets"] = ["cpu"]
    manifest["levels"] = [entry for entry in manifest["levels"] if entry[0] in ("", "cpu")]
    (bundle / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (bundle / "layers.json").write_text(json.dumps(_layers(layers)), encoding="utf-8")
    scopes = json.loads((bundle / "scopes.json").read_text(encoding="utf-8"))
    scopes["cpu"] = scopes["graph"] = {_scope(i): layer_name(i) for i in range(layers)}
    (bundle / "graph.json").write_text(json.dumps(_graph(layers)), encoding="utf-8")
    (bundle / "scopes.json").write_text(json.dumps(scopes), encoding="utf-8")
    cpu = bundle / "targets" / "cpu"
    (cpu / "hlo.txt").write_text(_module(layers, optimized=False), encoding="utf-8")
    (cpu / "optimized_hlo.txt").write_text(_module(layers, optimized=True), encoding="utf-8")
    (cpu / "kernels.json").write_text(json.dumps(_one_part(layers) if one_part else _kernels(layers)),
                                      encoding="utf-8")
    return bundle
