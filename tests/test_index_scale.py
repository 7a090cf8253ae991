"""The index grows with instructions + links, never with parameters x instructions.

Every TensorFlow entry parameter carries op_name="XLA_Args" (NASNetMobile: 1,127 of
them beside 1,482 instructions); a link by that op_name would join each to all.
"""

from __future__ import annotations

from explorer.hlo.parser import parse_module
from explorer.index import build_index
from explorer.records import LayerRecord

PARAMETERS, LAYERS = 300, 200


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
    hlo_to_optimized = [link for link in index.links if link.upper_level == "hlo"]
    # one link per parameter, one per add: parameters + instructions, not their product
    assert len(hlo_to_optimized) == PARAMETERS + LAYERS
    assert index.down("hlo", "arg7", "cpu") == ("arg7",)
    assert index.up("optimized-hlo", "f3", "cpu") == ("add3",)
