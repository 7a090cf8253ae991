"""`tensorweg inspect`: one level of a bundle as plain text or as JSON.

The JSON schema is documented in docs/inspect-json.md; every list carries at
least the fields named there, and tests check them.
"""

from __future__ import annotations

import json
from typing import Any

from explorer.errors import DataError, TensorwegError
from explorer.levels import GRAPH, NEXT_UP, level_named, target_key
from explorer.model.bundle import Bundle
from explorer.model.serial import to_jsonable
from explorer.views import explain, panes, trace
from explorer.views.format import text_table
from explorer.views.mesh import layer as mesh_layer
from explorer.views.programs import program_for
from explorer.views.select_option import resolve_select

JSON_SCHEMA_VERSION = 1


def _require(bundle: Bundle, level: str, target: str) -> None:
    status = bundle.status(level, target)
    if status.status != "ok":
        where = level + (f" for {target}" if target_key(level, target) else "")
        reason = status.error or status.status
        raise TensorwegError(f"{where} was not captured: {reason}")


def level_data(bundle: Bundle, level: str, target: str) -> dict[str, Any]:
    """The JSON document for one level (a dict of lists and scalars)."""
    if target_key(level, target) and target not in bundle.targets:
        raise TensorwegError(f"target {target} is not in this bundle (captured: {', '.join(bundle.targets)})")
    _require(bundle, level, target)
    head: dict[str, Any] = {"schema_version": JSON_SCHEMA_VERSION, "model": bundle.model_name, "level": level}
    this = level_named(level)
    if this.lists_layers:
        return {**head, "layers": _layers_data(bundle, target)}
    if this.lists_ops:
        graph = bundle.graph
        if graph is None:  # captured (checked above), then the file went missing
            raise DataError(f"{GRAPH.file}: missing")
        return {**head, "ops": [to_jsonable(op) for op in graph.ops],
                "optimized_ops": [to_jsonable(op) for op in graph.optimized_ops],
                "grappler": to_jsonable(graph.grappler)}
    head["target"] = target
    if this.is_hlo:  # XLA's instructions, TVM's Relax bindings or TIR functions: the target's program says
        return {**head, **program_for(bundle, target).level_data(level)}
    if this.lists_kernels:
        return {**head, "kernels": _kernels_data(bundle, target)}
    if this.maps_buffers:
        memory = bundle.memory(target)
        if memory is None:
            raise TensorwegError(f"memory for {target} was not captured")
        return {**head, **to_jsonable(memory), "step": list(panes.step_lines(bundle, target))}
    raise TensorwegError(f"unknown level '{level}'")


def _layers_data(bundle: Bundle, target: str) -> list[dict[str, Any]]:
    return [
        {**to_jsonable(layer), "class": layer.class_name, "output_shape": _first(layer.output_shapes),
         "params": layer.params, **_mesh_of(bundle, target, layer.name)}
        for layer in bundle.layers
    ]


def _kernels_data(bundle: Bundle, target: str) -> list[dict[str, Any]]:
    kernels = []
    for kernel in bundle.kernels(target):
        item = to_jsonable(kernel)
        item["layer"] = trace.layer_of(bundle, "kernels", kernel.name, target)
        item["hlo"] = list(kernel.hlo)
        if kernel.ptx:  # a GPU kernel: its machine code and registers per thread (null: not compiled)
            item["registers"] = kernel.ptxas.registers if kernel.ptxas is not None else None
        kernels.append(item)
    return kernels


def _mesh_of(bundle: Bundle, target: str, layer: str) -> dict[str, Any]:
    """`--target` compiled for a mesh: the layer's slices per device, as the mesh view (`D`) shows them."""
    found = mesh_layer.layer_mesh(bundle, target, layer)
    return {"mesh": to_jsonable(found)} if found is not None else {}


def as_json(bundle: Bundle, level: str, target: str, select: str | None = None) -> str:
    """The level's document; with `select`, also `selection`: that item as the side panes show it."""
    data = level_data(bundle, level, target)
    if select is not None:
        data["selection"] = selection_data(bundle, level, target, select)
    return json.dumps(data, indent=1)


def as_text(bundle: Bundle, level: str, target: str, select: str | None = None) -> str:
    """The level as text; with `select`, that item's trace, explanation keys and device mapping below."""
    data = level_data(bundle, level, target)
    text = _level_text(bundle, level, target, data)
    if select is None:
        return text
    return text + "\n\n" + _selection_text(selection_data(bundle, level, target, select),
                                         program_for(bundle, target).no_layer_text)


def _level_text(bundle: Bundle, level: str, target: str, data: dict[str, Any]) -> str:
    """A readable table for people; the raw module text for XLA's HLO levels, TVM's Relax as rows."""
    this = level_named(level)
    if this.lists_layers:
        rows = [(layer["name"], layer["class"], str(layer["output_shape"]), str(layer["params"]),
                 str(layer["weight_bytes"]), "" if layer["flops"] is None else str(layer["flops"]))
                for layer in data["layers"]]
        return text_table(("layer", "class", "output shape", "params", "weight bytes", "flops"), rows)
    if this.lists_ops:
        rows = [(o["name"], o["op"], o["layer"] or "-") for o in data["ops"]]
        return text_table(("op", "type", "layer"), rows)
    if this.is_hlo:
        return program_for(bundle, target).level_text(level)
    if this.lists_kernels:
        no_layer = program_for(bundle, target).no_layer_text
        rows = [(k["name"], k["kind"], ",".join(k["hlo"]), k["layer"] or no_layer,
                 str(k["vector_width_bits"] or ""), _registers_cell(k)) for k in data["kernels"]]
        return text_table(("kernel", "kind", "hlo", "layer", "vector bits", "registers"), rows)
    rows = [(str(a["index"]), str(a["size"]), a["kind"], ", ".join(v["instruction"] for v in a["values"][:4])
             + (" ..." if len(a["values"]) > 4 else "")) for a in data["allocations"]]
    step = "".join(f"\n{line}" for line in data["step"])  # train mode or a mesh: buffers by role
    return text_table(("allocation", "bytes", "kind", "values"), rows) + f"\npeak: {data['peak_bytes']} bytes" + step


_REGISTERS_SHOWN = 4  # vector registers a kernel's row names before it counts the rest


def _registers_cell(kernel: dict[str, Any]) -> str:
    """A GPU kernel's registers per thread (`ptxas -v`), or the first vector registers a CPU kernel's code
    uses (`zmm0`, NEON's `v4.4s`) and how many more."""
    if kernel.get("registers") is not None:
        return str(kernel["registers"])
    names = kernel.get("vector_registers") or []
    more = len(names) - _REGISTERS_SHOWN
    return " ".join(names[:_REGISTERS_SHOWN]) + (f" +{more}" if more > 0 else "")


# --- `--select NAME`: one item as the side panes show it (explorer.views) ---------------------------

def selection_data(bundle: Bundle, level: str, target: str, select: str) -> dict[str, Any]:
    """The item `select` names at `level` (an item, or a layer's: explorer.views.select_option): its
    layer, the trace one level up and down, its course keys (`explorer.views.explain.explanation_keys`)
    and what each captured target made of its layer (the device pane's `explorer.views.panes.device_lines`)."""
    name = resolve_select(bundle, level, target, select).name
    descent = trace.descend(bundle, level, name, target)
    return {
        "name": name, "layer": trace.layer_of(bundle, level, name, target),
        "up": {"level": NEXT_UP.get(level, ""), "items": list(trace.up(bundle, level, name, target))
               if level in NEXT_UP else []},
        "down": {"level": descent.level, "items": list(descent.found), "enter": descent.select}
        if descent is not None else {"level": "", "items": [], "enter": ""},
        "explanation_keys": [list(group) for group in explain.explanation_keys(bundle, level, target, name)],
        "device": {other: list(panes.device_lines(bundle, level, name, target, other)) for other in bundle.targets},
    }


def _selection_text(selection: dict[str, Any], no_layer: str) -> str:
    up, down = selection["up"], selection["down"]
    lines = [f"selected: {selection['name']}", f"  layer: {selection['layer'] or no_layer}"]
    if up["level"]:
        lines.append(f"  up ({up['level']}): {', '.join(up['items']) or '-'}")
    if down["level"]:
        lines.append(f"  down ({down['level']}): {', '.join(down['items']) or '-'}"
                     + (f"; Enter selects {down['enter']}" if down["enter"] else ""))
    lines.append("  explanations: " + ("; ".join(" > ".join(group) for group in selection["explanation_keys"])
                                       or "-"))
    lines.append("  device:")
    lines += [f"    {line}" for target_lines in selection["device"].values() for line in target_lines]
    return "\n".join(lines)


def _first(shapes) -> list | None:
    return list(shapes[0]) if shapes else None
