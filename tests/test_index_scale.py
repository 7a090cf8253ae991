"""The index grows with instructions + links, never with parameters x instructions.

Every TensorFlow entry parameter carries op_name="XLA_Args" (NASNetMobile: 1,127 of
them beside 1,482 instructions); a link by that op_name would join each to all.
An optimizer's update carries one op_name for every variable (`adam/sub`): its
instructions and their fusions are one group, not their product.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from explorer.hlo.parser import parse_module
from explorer.model.bundle import Bundle
from explorer.model.index_build import build_index
from explorer.model.records import LayerRecord
from explorer.views import trace

PARAMETERS, LAYERS = 300, 200
RECORDED = Path(__file__).parent / "fixtures" / "bundles" / "mnist_cnn"


def tf_module(optimized: bool) -> str:
    """A chain of dense-like layers: params[i] (XLA_Args) feed layer i; optimized fuses each step."""
    lines = ["HloModule m", ""]
    if optimized:
        for i in range(LAYERS):
            lines += [f"fused_{i} {{", "  a = f32[8]{0} parameter(0)", "  b = f32[8]{0} parameter(1)",
                      f'  ROOT r = f32[8]{{0}} add(a, b), metadata={{op_name="m/layer_{i}/add"}}', "}", ""]
    lines.append("ENTRY main {")
    for p in range(PARAMETERS):
        lines.append(f'  arg{p} = f32[8]{{0}} parameter({p}), metadata={{op_name="XLA_Args"}}')
    previous = "arg0"
    for i in range(LAYERS):
        operand = f"arg{1 + i % (PARAMETERS - 1)}"
        root = "ROOT " if i == LAYERS - 1 else ""
        if optimized:
            lines.append(f"  {root}f{i} = f32[8]{{0}} fusion({previous}, {operand}), kind=kLoop, calls=fused_{i}, "
                         f'metadata={{op_name="m/layer_{i}/add"}}')
            previous = f"f{i}"
        else:
            lines.append(f"  {root}add{i} = f32[8]{{0}} add({previous}, {operand}), "
                         f'metadata={{op_name="m/layer_{i}/add"}}')
            previous = f"add{i}"
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_parameters_sharing_xla_args_link_one_to_one():
    layers = [LayerRecord(f"layer_{i}", f"layer_{i}", "Dense", (), (), "float32", 0, 0, 0, 0) for i in range(LAYERS)]
    scopes = {"cpu": {f"m/layer_{i}": f"layer_{i}" for i in range(LAYERS)}}
    modules = {("cpu", "hlo"): parse_module(tf_module(False)), ("cpu", "optimized-hlo"): parse_module(tf_module(True))}
    index = build_index(layers, None, scopes, modules, {})
    # one link per parameter, one per add: parameters + instructions, not their product
    assert linked_pairs(index, "hlo") == PARAMETERS + LAYERS
    assert index.down("hlo", "arg7", "cpu") == ("arg7",)
    assert index.up("optimized-hlo", "f3", "cpu") == ("add3",)


def linked_pairs(index, upper_level: str) -> int:
    """(upper, lower) pairs the index links from `upper_level`: a group links each member to each."""
    return (sum(1 for link in index.links if link.upper_level == upper_level)
            + sum(len(group.uppers) * len(group.lowers) for group in index.shared if group.upper_level == upper_level))


def stored_links(index, upper_level: str) -> int:
    """Names the index keeps for those links: a group keeps each member once."""
    return (sum(1 for link in index.links if link.upper_level == upper_level)
            + sum(len(group.uppers) + len(group.lowers) for group in index.shared if group.upper_level == upper_level))


VARIABLES = 400


def optimizer_module(optimized: bool, size=lambda variable: 8) -> str:
    """An optimizer step: each variable's update is a sub and a mul with the same op_names for
    every variable (as Keras's Adam on JAX: `jit(train_step)/adam/sub`); optimized fuses each.
    Variable v is an f32[size(v)]."""
    lines = ["HloModule step", ""]
    if optimized:
        for v in range(VARIABLES):
            shape = f"f32[{size(v)}]{{0}}"
            lines += [f"fused_{v} {{", f"  a = {shape} parameter(0)", f"  b = {shape} parameter(1)",
                      f'  m = {shape} multiply(a, b), metadata={{op_name="jit(step)/adam/mul"}}',
                      f'  ROOT s = {shape} subtract(a, m), metadata={{op_name="jit(step)/adam/sub"}}', "}", ""]
    lines.append("ENTRY main {")
    for v in range(VARIABLES):
        shape = f"f32[{size(v)}]{{0}}"
        lines += [f'  w{v} = {shape} parameter({2 * v}), metadata={{op_name="trainable[{v}]"}}',
                  f'  g{v} = {shape} parameter({2 * v + 1}), metadata={{op_name="grad"}}']
    outputs = []
    for v in range(VARIABLES):
        shape = f"f32[{size(v)}]{{0}}"
        if optimized:
            lines.append(f"  u{v} = {shape} fusion(w{v}, g{v}), kind=kLoop, calls=fused_{v}")
            outputs.append(f"u{v}")
        else:
            lines += [f'  mul{v} = {shape} multiply(w{v}, g{v}), metadata={{op_name="jit(step)/adam/mul"}}',
                      f'  sub{v} = {shape} subtract(w{v}, mul{v}), metadata={{op_name="jit(step)/adam/sub"}}']
            outputs.append(f"sub{v}")
    shapes = ", ".join(f"f32[{size(v)}]{{0}}" for v in range(VARIABLES))
    lines += [f"  ROOT out = ({shapes}) tuple({', '.join(outputs)})", "}"]
    return "\n".join(lines) + "\n"


def test_an_op_name_every_variable_shares_is_one_group_not_a_product():
    modules = {("tpu:v5e", "hlo"): parse_module(optimizer_module(False)),
               ("tpu:v5e", "optimized-hlo"): parse_module(optimizer_module(True))}
    index = build_index([], None, {}, modules, {})
    # sub and mul: 400 instructions each before, the same 400 fusions carry both after
    assert linked_pairs(index, "hlo") == 2 * VARIABLES + 2 * VARIABLES * VARIABLES  # parameters, then sub and mul
    assert stored_links(index, "hlo") == 2 * VARIABLES + 4 * VARIABLES  # parameters, then two groups of 400 + 400
    fusions = tuple(f"u{v}" for v in range(VARIABLES))
    # What the metadata says is all the learner gets: any of the fusions may hold this update.
    assert index.down("hlo", "sub7", "tpu:v5e") == fusions
    assert index.down("hlo", "w7", "tpu:v5e") == ("w7",)  # parameters still link by number
    # Up from one fusion: both groups, merged in the module's order (mul0, sub0, mul1, sub1, ...).
    up = index.up("optimized-hlo", "u3", "tpu:v5e")
    assert up == tuple(name for v in range(VARIABLES) for name in (f"mul{v}", f"sub{v}"))
    assert index.up("optimized-hlo", "u3", "tpu:v5e") is up  # computed once


def optimizer_bundle(tmp_path: Path, size) -> Bundle:
    """The recorded mnist_cnn bundle with its v5e modules replaced by an optimizer step."""
    path = tmp_path / "bundle"
    shutil.copytree(RECORDED, path)
    target_dir = path / "targets" / "tpu-v5e"
    for stem, optimized in (("hlo", False), ("optimized_hlo", True)):
        (target_dir / f"{stem}.txt").write_text(optimizer_module(optimized, size), encoding="utf-8")
    return Bundle.open(path)


def test_enter_on_an_update_lands_on_the_fusion_updating_an_array_of_its_shape(tmp_path):
    # Variable v is an f32[v + 1]: the update of variable 7 is the only f32[8] among 400 carriers.
    bundle = optimizer_bundle(tmp_path, lambda variable: variable + 1)
    descent = trace.descend(bundle, "hlo", "sub7", "tpu:v5e")
    assert descent.select == "u7"
    assert descent.found == tuple(f"u{v}" for v in range(VARIABLES))  # every carrier stays listed


def test_enter_on_an_update_no_carrier_matches_in_shape_lands_on_the_first(tmp_path):
    # All variables alike: the shape tells no copy apart, so the first carrier (as without the rule).
    bundle = optimizer_bundle(tmp_path, lambda variable: 8)
    assert trace.descend(bundle, "hlo", "sub7", "tpu:v5e").select == "u0"
