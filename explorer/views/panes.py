"""What the side panes show for a selection: memory facts (shape, bytes, layout, buffer, live
range), the training step's memory, and what each target's compiler made of the layer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.levels import is_hlo, level_named

if TYPE_CHECKING:
    from explorer.hlo.model import HloInstruction, Shape
    from explorer.model.bundle import Bundle
    from explorer.model.records import KernelRecord

from explorer.hlo import layout_math
from explorer.hlo.parser import entry_parameter_shapes
from explorer.model import occupancy
from explorer.model.records import LevelStatus
from explorer.model.training import WEIGHTS, gradient_of, op_phase
from explorer.targets import TARGETS
from explorer.views.buffers import (
    buffer_table,
    step_buffers,
    step_layout,
    step_members,
)
from explorer.views.format import format_decimal, format_exact_bytes, format_int
from explorer.views.items import role_text, shape_text
from explorer.views.programs import program_for
from explorer.views.step_text import step_lines as summary
from explorer.views.tables import cross_index, instruction, kernel, layer_record, op_table, per_bundle
from explorer.views.trace import layer_of


def shape_lines(shape: Shape, lang: str = "en") -> tuple[str, ...]:
    """Shape, dtype, bytes, minor-to-major with strides, tiles and padding (explorer's layout math).

    The field names are in `lang` (`explorer.labels`); the compiler's own notation stays."""
    def word(key: str) -> str:
        return label(f"field.{key}", lang)

    if shape.is_tuple:
        lines = [word("tuple_of").format(count=len(shape.tuple_shapes),
                                         bytes=format_exact_bytes(shape.byte_size, lang))]
        for position, part in enumerate(shape.tuple_shapes[:6]):
            lines.append(f"  {{{position}}} {shape_text(part)}  {format_exact_bytes(part.byte_size, lang)}")
        return tuple(lines)
    lines = [
        f"{word('shape')}  {shape_text(shape)}",
        f"{word('dtype')}  {shape.element_type} ({layout_math.element_bits(shape)} {word('bits_stored')})"
        f"   {word('elements')} {format_int(shape.element_count, lang)}",
    ]
    try:
        unpadded, padded = layout_math.unpadded_byte_size(shape), layout_math.padded_byte_size(shape)
        byte_strides = layout_math.byte_strides(shape)
    except ValueError as exc:  # dynamic dims: no static layout
        return (*lines, f"{word('layout')}: {exc}")
    layout = shape.layout
    if layout is None:
        return (*lines, f"{word('bytes')}  {format_exact_bytes(unpadded, lang)}", word("layout_not_written"))
    lines.append(f"{word('minor_to_major')} {{{','.join(map(str, layout.minor_to_major))}}} "
                 f"({word('fastest_first')})")
    lines.append(f"{word('strides')} " + ", ".join(f"d{d}:{b}" for d, b in enumerate(byte_strides)))
    if layout.tiles:
        tiles = "".join("(" + ",".join(map(str, t.dims)) + ")" for t in layout.tiles)
        padded_dims = "x".join(map(str, layout_math.padded_dims(shape)))
        lines.append(f"{word('tiles')}  T{tiles}: {word('padded_to')} {padded_dims}")
        overhead = f" ({format_decimal((padded - unpadded) / unpadded, '+.0%', lang)})" if unpadded else ""
        lines.append(f"{word('bytes')}  {format_exact_bytes(unpadded, lang)} {word('without_padding')}, "
                     f"{format_exact_bytes(padded, lang)} {word('with')}{overhead}")
    else:
        lines.append(f"{word('bytes')}  {format_exact_bytes(unpadded, lang)} ({word('untiled')})")
    if layout.memory_space:
        lines.append(f"{word('memory_space')} S({layout.memory_space})"
                     + (f" {word('on_chip_vmem')}" if layout.memory_space == 1 else ""))
    return tuple(lines)


def buffer_lines(bundle: Bundle, target: str, name: str, lang: str = "en") -> tuple[str, ...]:
    """Where XLA's buffer assignment put `name`: allocation, offset, size, live range."""
    table = buffer_table(bundle, target, lang)
    if table is None:
        return (label("text.memory_not_captured", lang),)
    return table.lines.get(name) or (label("text.no_allocation", lang),)


def memory_facts(bundle: Bundle | None, level: str, target: str, name: str, lang: str = "en") -> tuple[str, ...]:
    """The memory pane: what the selection occupies and how it is laid out (field names in `lang`)."""

    def word(key: str) -> str:
        return label(f"field.{key}", lang)

    lines: tuple[str, ...] = ()
    if bundle is None:
        return (label("text.nothing_for_item", lang),)
    this = level_named(level)
    if this.lists_layers and (layer := layer_record(bundle, name)) is not None:
        lines = (f"{word('dtype_policy')} {layer.dtype_policy}",
                 f"{word('inputs')}  " + "; ".join(str(s) for s in layer.input_shapes),
                 f"{word('outputs')} " + "; ".join(str(s) for s in layer.output_shapes),
                 f"{word('weights')} {format_exact_bytes(layer.weight_bytes, lang)}  "
                 f"{word('activations')} {format_exact_bytes(layer.activation_bytes, lang)}")
    elif this.lists_ops and (op := op_table(bundle).get(name)) is not None:
        unknown = " " + word("rank_unknown")
        lines = tuple(f"{word('output')} {out.dtype}{list(out.shape) if out.shape is not None else unknown}"
                      for out in op.outputs) + tuple(f"{k} = {v}" for k, v in op.attributes)
    elif is_hlo(level) and (found := instruction(bundle, level, target, name)) is not None:
        role = role_text(cross_index(bundle).entry(level, name, target), lang) if found.opcode == "parameter" else ""
        lines = ((f"{word('holds')}  {role}",) if role else ()) + _pass_lines(bundle, target, found) \
            + shape_lines(found.shape, lang)
        if this.optimized:
            lines += _class_lines(bundle, target, found.name) + buffer_lines(bundle, target, found.name, lang)
            lines += ("",) + step_lines(bundle, target) if step_lines(bundle, target) else ()
    elif this.lists_kernels and (found := kernel(bundle, target, name)) is not None:
        if found.vector_width_bits:
            lines += (word("vector_width").format(bits=found.vector_width_bits),)
        if found.vector_registers:
            lines += (f"{word('registers')} " + ", ".join(found.vector_registers[:12]),)
        if found.launch is not None:
            launch = found.launch
            lines += (f"{word('grid')} {launch.grid}  {word('block')} {launch.block}  "
                      f"{word('shared')} {format_exact_bytes(launch.shared_memory_bytes, lang)}",)
        lines += register_lines(found, target, lang)
        if found.hlo:
            lines += buffer_lines(bundle, target, found.hlo[0], lang)
    return lines or (label("text.nothing_for_item", lang),)


def register_lines(found: KernelRecord, target: str, lang: str = "en") -> tuple[str, ...]:
    """A GPU kernel's registers per thread and spills (`ptxas -v`), and the occupancy ESTIMATE
    with the figures it used; or why there are none (`sass_note`)."""
    report = found.ptxas
    if report is None:
        return (found.sass_note,) if found.sass_note else ()
    lines = (f"registers {report.registers} per thread (ptxas -v, {report.arch})",
             f"spills {format_exact_bytes(report.spill_store_bytes, lang)} stored, "
             f"{format_exact_bytes(report.spill_load_bytes, lang)} loaded, "
             f"stack {format_exact_bytes(report.stack_frame_bytes, lang)}, "
             f"shared {format_exact_bytes(report.shared_memory_bytes, lang)} static, "
             f"barriers {report.barriers}")
    spec = TARGETS.get(target)
    estimate = occupancy.estimate(found, spec.sm_limits if spec is not None else None)
    if estimate is None:
        return lines + ("occupancy: no launch shape or SM limits for this target",)
    result, figures = occupancy.summary(estimate, lang)
    return lines + (f"occupancy (estimate) {result}", f"  {figures}")




@per_bundle
def step_lines(bundle: Bundle, target: str) -> tuple[str, ...]:
    """The memory pane's and `inspect --level memory`'s summary: buffers by role (weights, gradients,
    optimizer state, saved activations), peak against inference, donation, collectives per device."""
    layout = step_layout(bundle, target)
    memory = bundle.memory(target)
    if layout is None:
        return ()
    return summary(layout, bundle.hlo_text(target, optimized=True), memory.analysis if memory else (), target,
                   step_buffers(bundle, target))


def _class_lines(bundle: Bundle, target: str, name: str) -> tuple[str, ...]:
    """`class  gradients`: what the selected buffer is to a training step."""
    role = step_members(bundle, target).get(name)
    return (f"class  {role}",) if role else ()


def _pass_lines(bundle: Bundle, target: str, found: HloInstruction) -> tuple[str, ...]:
    """`pass   dense, backward` for an instruction of a training step."""
    layout = step_layout(bundle, target)
    if layout is None or layout.mode != "train" or not found.metadata.op_name:
        return ()

    phase = op_phase(found.metadata.op_name, layout.optimizer)
    label = phase.label()
    shape = "" if found.shape.is_tuple else f"{found.shape.element_type}{list(found.shape.dims)}"
    variable = gradient_of(phase, shape, _weight_shapes(bundle, target))
    label += f": gradient w.r.t. the {variable}" if variable else ""
    return (f"pass   {label}",) if label else ()


@per_bundle
def _weight_shapes(bundle: Bundle, target: str) -> dict[str, str]:
    """A training step's weights by variable path, with their shapes (`dense/kernel` -> `f32[64, 128]`)."""
    layout = step_layout(bundle, target)
    if layout is None:
        return {}
    # The header lists the parameters' shapes: the module itself is parsed later, off the first screen's path.
    shapes = entry_parameter_shapes(bundle.hlo_text(target, optimized=False))
    if shapes is not None:
        by_number = {number: f"{shape.element_type}{list(shape.dims)}" for number, shape in enumerate(shapes)}
    else:
        module = bundle.hlo_module(target, optimized=False)
        if module is None or module.entry is None:
            return {}
        by_number = {}
        for parameter in module.entry.instructions:
            number = dict(parameter.attributes).get("parameter_number", "") if parameter.opcode == "parameter" else ""
            if number.isdigit():
                by_number[int(number)] = f"{parameter.shape.element_type}{list(parameter.shape.dims)}"
    return {name: by_number[group.first + offset] for group in layout.arguments if group.role == WEIGHTS
            for offset, name in enumerate(group.names) if group.first + offset in by_number}


def device_lines(bundle: Bundle | None, level: str, name: str, shown_target: str, target: str,
                 lang: str = "en") -> tuple[str, ...]:
    """What `target` made of the layer of `name` (selected on `shown_target`), from its program's
    `TargetLayer` (`explorer.views.programs`): the fusions and ops, kernels and library calls (words in `lang`)."""
    if bundle is None:
        return (f"{target}: {label('text.nothing_captured', lang)}",)
    try:
        status = bundle.status("optimized-hlo", target)
    except TensorwegError:  # still capturing: the staging directory has no manifest yet
        status = LevelStatus("pending")
    if status.status == "failed":
        return (f"{target}: " + label("text.capture_failed", lang).format(error=status.error),)
    if not program_for(bundle, target).optimized_captured(status):
        return (f"{target}: {label('text.optimized_not_captured', lang)}",)
    layer = layer_of(bundle, level, name, shown_target)
    if not layer:
        entry = cross_index(bundle).entry(level, name, shown_target)
        if entry is not None and entry.role:
            return (f"{target}: {role_text(entry, lang)}: {label('text.program_argument', lang)}",)
        return (f"{target}: {label('text.no_layer', lang)}",)
    return _layer_lines(bundle, layer, target, lang)


@per_bundle
def _layer_lines(bundle: Bundle, layer: str, target: str, lang: str) -> tuple[str, ...]:
    column = program_for(bundle, target).target_layer(layer)
    lines = [f"{target}  (" + label("text.layer_of", lang).format(layer=layer) + ")"]
    working = column.working
    for item in working[:8]:
        lines.append(f"  {item.name}: {item.fusion_kind or item.custom_call_target or item.opcode}")
    if len(working) > 8:
        lines.append("  " + label("field.more", lang).format(count=len(working) - 8))
    plumbing = len(column.instructions) - len(working)
    if plumbing:
        kinds = "/".join(sorted({i.opcode for i in column.instructions if i.plumbing}))
        lines.append("  " + label("field.plumbing", lang).format(count=plumbing, kinds=kinds))
    for brief in column.kernels:
        extra = f" {label('field.calls', lang)} {', '.join(brief.library_calls[:3])}" if brief.library_calls else ""
        extra += _registers_brief(kernel(bundle, target, brief.name), target, lang)
        lines.append(f"  {label('column.kernel', lang)} {brief.name} [{brief.kind}]{extra}")
    if len(lines) == 1:
        lines.append("  " + label("text.nothing_for_layer", lang))
    return tuple(lines)


def _registers_brief(found: KernelRecord | None, target: str, lang: str = "en") -> str:
    """` 25 regs, 63/64 warps` for a GPU kernel with a ptxas report; ` 128-bit, 4 x 32-bit lanes` for a CPU
    kernel's vector code (x86 or NEON); "" otherwise."""
    if found is not None and found.ptxas is None and found.vector_width_bits:
        from explorer.capture import listing  # noqa: PLC0415 (start-up: the listing readers load with a CPU kernel)

        spec = TARGETS.get(target)
        lanes, bits = listing.lanes(found.asm, spec.isa if spec is not None else "", found.vector_width_bits)
        words = label("compare.lanes", lang).format(lanes=lanes, bits=bits) if lanes else ""
        return f" {found.vector_width_bits}-bit" + (f", {words}" if words else "")
    if found is None or found.ptxas is None:
        return ""
    spec = TARGETS.get(target)
    estimate = occupancy.estimate(found, spec.sm_limits if spec is not None else None)
    warps = f", {estimate.warps}/{estimate.max_warps} warps/SM" if estimate is not None else ""
    return f" {found.ptxas.registers} regs{warps}"


def warm_layer_facts(bundle: Bundle | None, lang: str = "en", cancelled=lambda: False) -> None:
    """Build what the device pane shows for every layer on every target now (call it off the UI
    thread once the first screen is up): on a large module the first press on a layer would
    otherwise walk the module for each target. Built in `lang`, the language the pane shows;
    stops when `cancelled()` says so."""
    if bundle is None:
        return
    for layer in bundle.layers:
        for target in bundle.targets:
            if cancelled():
                return
            try:
                program = program_for(bundle, target)
                if program.optimized_captured(bundle.status("optimized-hlo", target)):
                    _layer_lines(bundle, layer.name, target, lang)
            except TensorwegError:  # a damaged level: the pane says so when it is shown
                continue
