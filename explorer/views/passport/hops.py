"""The passport's hops, one builder each: what the hop shows, its evidence, where it guesses.

`Hop.lines` are worded in the passport's language; `Hop.details` keep the facts for `--json`
(English keys, exact names); `Hop.jump` is where the `P` screen's Enter goes (level, item).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.capture.aarch64 import scalar_only
from explorer.labels import label
from explorer.model.records import KernelRecord
from explorer.targets import TARGETS
from explorer.views import trace
from explorer.views.buffers import value_buffer
from explorer.views.items import shape_text
from explorer.views.passport.machine import machine_code
from explorer.views.passport.output import OutputTensor
from explorer.views.passport.python import PythonLine, python_end
from explorer.views.tables import computation_table, instruction, layer_record, op_table

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle

# TensorFlow ops that read variables or name shapes: the layer's plumbing, not its work.
_GRAPH_PLUMBING = frozenset({"Placeholder", "ReadVariableOp", "Const", "Shape", "Identity", "VarHandleOp", "NoOp"})
_MOST_ROWS = 8  # rows per hop; the rest are counted


@dataclass(frozen=True)
class Hop:
    """One hop. `level`: python, layers, graph, hlo, optimized-hlo, kernels, machine-code, memory.
    `evidence`: a key worded by `passport.ev.<key>`; `heuristic`/`missing`: worded notes ("" when none)."""

    level: str
    name: str
    evidence: str
    lines: tuple[str, ...] = ()
    heuristic: str = ""
    missing: str = ""
    details: tuple[tuple[str, Any], ...] = ()
    jump: tuple[str, str] = ("", "")


def _capped(lines: list[str]) -> tuple[str, ...]:
    return tuple(lines[:_MOST_ROWS]) + ((f"... +{len(lines) - _MOST_ROWS}",) if len(lines) > _MOST_ROWS else ())


def python_hop(bundle: Bundle, target: str, layer: str, hlo_names: tuple[str, ...], hlo_names_on, lang: str) -> Hop:
    end = python_end(bundle, target, layer, hlo_names, hlo_names_on)
    why = ""
    if not end.recovered:
        why = label("passport.no.python_tf", lang).format(where=end.missing) if end.missing != "-" \
            else label("passport.no.python_none", lang)
        why = label("passport.no.python", lang).format(why=why)
    if not end.lines:
        return Hop("python", "", "stack_frames", missing=why, jump=("layers", layer))
    lines = [python_line_text(line, lang) for line in end.lines] + ([why] if why else [])
    heuristic = label("passport.h.python_other_target", lang).format(where=end.heuristic, target=end.source_target) \
        if end.heuristic else ""
    if end.version_note:
        package, installed, captured = end.version_note.split(" ")
        heuristic = "; ".join(filter(None, (heuristic, label("passport.python_version", lang).format(
            package=package, installed=installed, captured=captured))))
    first = end.lines[0]
    details = (("file", first.file), ("line", first.line), ("text", first.text), ("source_target", end.source_target),
               ("source_lines", [{"file": x.file, "line": x.line, "function": x.function, "text": x.text,
                                  "instructions": list(x.instructions), "user": x.user} for x in end.lines]))
    evidence = end.evidence if end.recovered else "call_site"
    return Hop("python", f"{first.file}:{first.line}", evidence, tuple(lines), heuristic,
               details=details, jump=("layers", layer))


def python_line_text(line: PythonLine, lang: str) -> str:
    """`file:line  function  text`, the instructions the line emitted, and whose line it is."""
    text = f"{line.file}:{line.line}  {line.function}  {line.text or label('passport.python_unreadable', lang)}"
    if line.instructions:
        text += f"  -> {', '.join(line.instructions)}"
    return text + (f"  ({label('passport.python_yours', lang)})" if line.user else "")


def layer_hop(bundle: Bundle, layer: str, lang: str) -> Hop:
    record = layer_record(bundle, layer)
    outputs = "; ".join(str(tuple(s)) for s in record.output_shapes) if record is not None else ""
    kind = record.class_name if record is not None else ""
    return Hop("layers", layer, "layers", (f"{layer} ({kind}) -> {outputs}",),
               details=(("class_name", kind), ("output_shapes", [list(s) for s in record.output_shapes]
                                                if record is not None else [])),
               jump=("layers", layer))


def graph_hop(bundle: Bundle, layer: str, lang: str) -> Hop:
    if bundle.graph is None:
        return Hop("graph", "", "index", missing=label("passport.no.graph", lang))
    ops = op_table(bundle)
    names = [n for n in trace.items_for_layer(bundle, layer, "graph", "cpu")
             if n in ops and ops[n].op not in _GRAPH_PLUMBING]
    if not names:
        return Hop("graph", "", "index", missing=label("passport.no.graph", lang))
    descent = trace.descend(bundle, "layers", layer, "cpu")
    main = descent.select if descent is not None and descent.select in names else names[0]
    return Hop("graph", main, "index", _capped([f"{ops[n].op}  {n}" for n in names]),
               details=(("ops", [{"name": n, "op": ops[n].op} for n in names]),), jump=("graph", main))


def hlo_hop(bundle: Bundle, target: str, names: tuple[str, ...], lang: str) -> Hop:
    if not names:
        return Hop("hlo", "", "index", missing=label("passport.no.hlo", lang))
    found = [(n, instruction(bundle, "hlo", target, n)) for n in names]
    heavy = [n for n, i in found if i is not None and i.opcode in ("convolution", "dot", "custom-call")]
    main = heavy[0] if heavy else names[0]
    lines = [f"{n} = {shape_text(i.shape)} {i.opcode}" if i is not None else n for n, i in found]
    return Hop("hlo", main, "index", _capped(lines),
               details=(("instructions", [{"name": n, "opcode": i.opcode if i is not None else ""}
                                          for n, i in found]),), jump=("hlo", main))


def _fused_opcodes(bundle: Bundle, target: str, name: str) -> tuple[str, ...]:
    found = instruction(bundle, "optimized-hlo", target, name)
    if found is None or found.opcode != "fusion" or not found.called_computations:
        return ()
    body = computation_table(bundle, target, True).get(found.called_computations[0])
    if body is None:
        return ()
    return tuple(dict.fromkeys(i.opcode for i in body.instructions if i.opcode not in ("parameter", "constant")))


def fusion_hop(bundle: Bundle, target: str, layer: str, output: OutputTensor, lang: str) -> Hop:
    tensor = output.name
    if not tensor:
        return Hop("optimized-hlo", "", "fusion", missing=label("passport.no.fusion", lang))
    found = instruction(bundle, "optimized-hlo", target, tensor)
    head = f"{tensor} = {shape_text(found.shape)} {found.opcode}" if found is not None else tensor
    if found is not None and found.fusion_kind:
        head += f" ({found.fusion_kind})"
    if found is not None and found.custom_call_target:
        head += f" ({found.custom_call_target})"
    fused = _fused_opcodes(bundle, target, tensor)
    lines = [head] + ([f"{label('passport.fused', lang)}: {', '.join(fused)}"] if fused else [])
    if layer and output.how in ("consumer", "result", "fused"):
        lines.append(label(f"passport.output.{output.how}", lang).format(
            layer=layer, tensor=tensor, fed=output.layer, reader=output.reader))
    if layer and output.elements_match is False and output.how != "fused":  # a fused result is the next layer's
        lines.append(label("passport.output.other_count", lang).format(
            shape=_keras_output(bundle, layer), tensor=tensor))
    others = [n for n in trace.items_for_layer(bundle, layer, "optimized-hlo", target) if n != tensor
              and (i := instruction(bundle, "optimized-hlo", target, n)) is not None
              and i.opcode not in ("parameter", "constant")] if layer else []
    lines += [f"+ {n}" for n in others]
    guessed = layer and output.how == "heuristic"
    evidence = "data_flow" if output.how in ("consumer", "result", "fused") else "fusion"
    return Hop("optimized-hlo", tensor, evidence, _capped(lines), label("passport.h.output", lang) if guessed else "",
               details=(("opcode", found.opcode if found is not None else ""), ("fused", list(fused)),
                        ("shape", shape_text(found.shape) if found is not None else ""), ("also", others),
                        ("output", {"how": output.how, "layer": output.layer, "reader": output.reader,
                                    "elements_match": output.elements_match})),
               jump=("optimized-hlo", tensor))


def _keras_output(bundle: Bundle, layer: str) -> str:
    record = layer_record(bundle, layer)
    return str(tuple(record.output_shapes[0])) if record is not None and record.output_shapes else "?"


def kernel_hop(bundle: Bundle, target: str, tensor: str, record: KernelRecord | None, lang: str) -> Hop:
    if record is None:
        why = label("passport.no.kernel_inline", lang)
        return Hop("kernels", "", "kernel", missing=label("passport.no.kernel", lang).format(why=why))
    line = f"{record.name} ({record.kind})"
    if record.library_calls:
        line += f": {', '.join(record.library_calls)}"
    lines = [line] + ([record.notes] if record.notes else [])
    return Hop("kernels", record.name, "kernel", tuple(lines),
               details=(("kind", record.kind), ("library_calls", list(record.library_calls)),
                        ("vector_width_bits", record.vector_width_bits)), jump=("kernels", record.name))


def machine_hop(bundle: Bundle, target: str, tensor: str, record: KernelRecord | None, lang: str) -> Hop:
    spec = TARGETS.get(target)
    is_tpu = spec is not None and target.startswith("tpu")
    found = instruction(bundle, "optimized-hlo", target, tensor) if tensor else None
    code = machine_code(record, found.shape if found is not None else None, is_tpu, lang,
                        spec.isa if spec is not None else "")
    jump = ("kernels", record.name) if record is not None else ("optimized-hlo", tensor) if tensor else ("", "")
    if code is None and record is None:
        why = label("passport.no.kernel_inline", lang)
        return Hop("machine-code", "", "asm", missing=label("passport.no.kernel", lang).format(why=why), jump=jump)
    if code is None:
        assert record is not None  # the case without either returned above
        library = record.kind == "library" or record.library_calls
        key = "passport.no.machine_library" if library else "passport.no.machine"
        return Hop("machine-code", "", "asm", missing=label(key, lang).format(kernel=record.name), jump=jump)
    if code.kind == "tpu":
        return Hop("machine-code", tensor, "layout", (label("passport.tpu_code", lang), *code.layout),
                   details=(("kind", "tpu"), ("layout", list(code.layout))), jump=("optimized-hlo", tensor))
    lines = [f"{label('passport.' + {'load': 'loads', 'store': 'stores', 'compute': 'computes'}[access], lang)}:"
             f"  {text}" for access, text in code.lines]
    lines.append(f"{label('passport.registers', lang)}: {', '.join(code.registers)}")
    if code.kind == "aarch64" and scalar_only(code.registers):
        lines.append(label("passport.scalar_lanes", lang))
    if code.addressing:
        lines.append(f"{label('passport.addressing', lang)}: {', '.join(code.addressing[:6])}")
    if code.registers_per_thread:
        lines.append(label("passport.per_thread", lang).format(count=code.registers_per_thread))
    assert record is not None  # machine_code reads code from a kernel record, except a TPU's layout (above)
    return Hop("machine-code", record.name, "sass" if code.kind == "sass" else "asm", tuple(lines),
               label("passport.h.lines", lang),
               details=(("kind", code.kind), ("code_lines", [{"access": a, "text": t} for a, t in code.lines]),
                        ("registers", list(code.registers)), ("addressing", list(code.addressing)),
                        ("registers_per_thread", code.registers_per_thread)), jump=jump)


def buffer_hop(bundle: Bundle, target: str, tensor: str, lang: str, borrowed: bool = False, note: str = "",
               element: str = "{}") -> Hop:
    """`note`: a worded line first (whose buffer it is when the layer's output has none of its own);
    `element`: the part of the tensor's result that holds it (`output.held_element`: a tuple's parts
    are separate buffers, and only one of them is the tensor)."""
    if not tensor or bundle.memory(target) is None:
        return Hop("memory", "", "buffers", missing=label("passport.no.buffer", lang))
    allocation, value, live, found = value_buffer(bundle, target, tensor, element, lang)
    details = (("tensor", tensor), ("shape_index", element),
               ("allocation", allocation.index if allocation is not None else None),
               ("allocation_kind", allocation.kind if allocation is not None else ""),
               ("offset", value.offset if value is not None else None),
               ("size", value.size if value is not None else None),
               ("live_range", [live.start, live.end] if live is not None else None))
    part = (label("passport.tuple_element", lang).format(index=element, shape=value.shape),) \
        if element != "{}" and value is not None else ()
    lines = ((note,) if note else ()) + (f"{label('passport.tensor', lang)} {tensor}", *part, *found)
    return Hop("memory", tensor, "buffers", lines,
               label("passport.h.went", lang) if borrowed else "", details=details, jump=("optimized-hlo", tensor))
