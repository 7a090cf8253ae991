"""The tensor's passport: one layer's output followed down every hop on one target.

Python line(s) -> Keras layer -> TensorFlow op(s) -> HLO instruction(s) -> the fusion that computes
it -> the kernel -> the machine-code lines that load, store and compute it (x86 and SASS registers;
on a TPU its tiles and memory space) -> its buffer, offset, size and live range.

Every hop names its evidence and says where it is a heuristic; a hop that cannot be recovered says
so instead of guessing. The hops come from the functions every screen uses (`trace`, `tables`,
`buffers`, `panes`), so `tensorweg passport`, the `P` screen and the tests read one answer.
A layer that computes nothing of its own (an InputLayer, a Flatten that became a bitcast) gets a
passport that says where its tensor went (`Passport.went`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.levels import LIST_LEVELS, level_named
from explorer.targets import TARGETS
from explorer.views import trace
from explorer.views.buffers import allocation_of
from explorer.views.passport.hops import (
    Hop,
    buffer_hop,
    fusion_hop,
    graph_hop,
    hlo_hop,
    kernel_hop,
    layer_hop,
    machine_hop,
    python_hop,
)
from explorer.views.passport.output import (
    OutputTensor,
    does_work,
    folded_into,
    held_element,
    moves_bytes_only,
    output_tensor,
)
from explorer.views.tables import instruction, kernel, layer_record

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle


@dataclass(frozen=True)
class Passport:
    """The hops in order; `tensor` the optimized instruction holding the layer's output ("" when
    none), `went` where the tensor went when the layer computes nothing of its own ("" otherwise)."""

    model: str
    target: str
    layer: str
    tensor: str
    hops: tuple[Hop, ...]
    went: str = ""
    item: tuple[str, str] = field(default=("", ""))  # (level, name) when opened from an item


def check_target(bundle: Bundle, target: str) -> None:
    if target not in bundle.targets:
        known = ", ".join(bundle.targets) or "none"
        hint = "" if target in TARGETS else " (not a target tensorweg knows)"
        raise TensorwegError(f"target {target!r} is not in this bundle{hint}; it has: {known}")


def check_layer(bundle: Bundle, layer: str) -> None:
    if layer_record(bundle, layer) is None:
        names = [record.name for record in bundle.layers]
        shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        raise TensorwegError(f"unknown layer {layer!r} (layers: {shown or 'none'})")


def passport(bundle: Bundle, target: str, layer: str = "", level: str = "layers", item: str = "",
             lang: str = "en") -> Passport:
    """The passport of `layer` (or of `item` at `level`, followed from its layer) on `target`.

    Raises TensorwegError for a target the bundle lacks, an unknown layer or level."""
    check_target(bundle, target)
    if level not in LIST_LEVELS:
        raise TensorwegError(f"unknown level {level!r} (levels: {', '.join(LIST_LEVELS)})")
    if not level_named(level).lists_layers:
        layer = trace.layer_of(bundle, level, item, target) if item else ""
    elif item:
        layer = item
    if layer:
        check_layer(bundle, layer)
    anchored = _anchored_tensor(bundle, target, level, item)
    output = OutputTensor(anchored, "item") if anchored else output_tensor(bundle, target, layer) if layer \
        else OutputTensor("")
    tensor = output.name
    hlo_names = _hlo_work(bundle, target, layer, level, item)
    hops: list[Hop] = []
    if layer:
        hops += [python_hop(bundle, target, layer, hlo_names, lambda other: _hlo_work(bundle, other, layer, "", ""),
                            lang),
                 layer_hop(bundle, layer, lang), graph_hop(bundle, layer, lang)]
    hops.append(hlo_hop(bundle, target, hlo_names, lang))
    went = "" if tensor else _where_it_went(bundle, target, layer, hlo_names, lang)
    shown = tensor or _went_tensor(bundle, target, layer)
    hops.append(fusion_hop(bundle, target, layer, output, lang))
    record = kernel_of(bundle, target, tensor) if tensor else None
    hops.append(kernel_hop(bundle, target, tensor, record, lang))
    hops.append(machine_hop(bundle, target, tensor, record, lang))
    borrowed = bool(went) and not _entry_parameter(bundle, target, layer)
    note = label("passport.buffer.fused", lang).format(layer=layer, tensor=tensor, fed=output.layer) \
        if output.how == "fused" else ""
    hops.append(buffer_hop(bundle, target, shown, lang, borrowed=borrowed, note=note,
                           element=held_element(bundle, target, layer, shown) if shown else "{}"))
    return Passport(bundle.model_name, target, layer, tensor, tuple(hops), went,
                    (level, item) if not level_named(level).lists_layers and item else ("", ""))


def _anchored_tensor(bundle: Bundle, target: str, level: str, item: str) -> str:
    """The optimized instruction an item below the layers stands for ("" to take the layer's output)."""
    this = level_named(level)
    if not item or not this.from_program:
        return ""
    if this.optimized:
        return item
    if this.lists_kernels:
        found = kernel(bundle, target, item)
        return found.hlo[0] if found is not None and found.hlo else ""
    carriers = [n for n in trace.down(bundle, "hlo", item, target) if does_work(bundle, "optimized-hlo", target, n)]
    return carriers[0] if carriers else ""


def _hlo_work(bundle: Bundle, target: str, layer: str, level: str, item: str) -> tuple[str, ...]:
    """The HLO instructions (before optimisation) the hops follow: the item itself, or the layer's that do work."""
    if item and level_named(level).lowered:
        return (item,)
    if not layer:
        return ()
    names = trace.items_for_layer(bundle, layer, "hlo", target)
    return tuple(n for n in names if does_work(bundle, "hlo", target, n))


def kernel_of(bundle: Bundle, target: str, tensor: str):
    """The kernel implementing `tensor` (XLA: it names the instruction; TVM: a TIR function is its kernel)."""
    kernels = bundle.kernels(target)
    return next((k for k in kernels if tensor in k.hlo), None) or next((k for k in kernels if k.name == tensor), None)


def _entry_parameter(bundle: Bundle, target: str, layer: str) -> str:
    names = trace.items_for_layer(bundle, layer, "optimized-hlo", target)
    return next((n for n in names if (found := instruction(bundle, "optimized-hlo", target, n)) is not None
                 and found.opcode == "parameter"), "")


def _source_layer(bundle: Bundle, target: str, layer: str) -> tuple[str, str]:
    """HEURISTIC: (layer, tensor) of the nearest earlier layer whose output is computed or passed in."""
    seen: set[str] = set()
    current = layer
    while current and current not in seen:
        seen.add(current)
        record = layer_record(bundle, current)
        current = record.inbound[0] if record is not None and record.inbound else ""
        if not current:
            break
        found = output_tensor(bundle, target, current).name or _entry_parameter(bundle, target, current)
        if found:
            return current, found
    return "", ""


def _went_tensor(bundle: Bundle, target: str, layer: str) -> str:
    return (_entry_parameter(bundle, target, layer) or _source_layer(bundle, target, layer)[1]) if layer else ""


def _where_it_went(bundle: Bundle, target: str, layer: str, hlo_names: tuple[str, ...], lang: str) -> str:
    if not layer:
        return ""
    parameter = _entry_parameter(bundle, target, layer)
    if parameter:
        number = _parameter_number(bundle, target, parameter)
        where = label("passport.went.parameter", lang).format(number=number, name=parameter)
    else:
        source, tensor = _source_layer(bundle, target, layer)
        hlo = ", ".join(trace.items_for_layer(bundle, layer, "hlo", target)) or "-"
        if not tensor:
            where = label("passport.went.nowhere", lang)
        elif moves_bytes_only(bundle, target, layer):
            where = label("passport.went.bitcast", lang).format(hlo=hlo, source=source, tensor=tensor)
        else:  # a pad, say, that XLA made part of what reads it (a convolution's window)
            reader, fed = folded_into(bundle, target, layer, tensor)
            key = "passport.went.folded" if reader else "passport.went.folded_somewhere"
            where = label(key, lang).format(hlo=hlo, source=source, tensor=tensor, reader=reader, fed=fed)
    return label("passport.no.computation", lang).format(layer=layer, where=where)


def _parameter_number(bundle: Bundle, target: str, name: str) -> str:
    """The entry parameter's number, as buffer assignment records it ("?" without one)."""
    found = allocation_of(bundle, target, name)
    return str(found.parameter_number) if found is not None and found.parameter_number is not None else "?"
