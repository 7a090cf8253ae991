"""Memory layout of the selection: shape, dtype, bytes, minor-to-major, strides,
tiles and padding; at the optimized level also the buffer it lives in."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from screens.items import shape_text
from screens.selection import memory_of
from screens.widgets.pane_text import PaneText

if TYPE_CHECKING:  # the data model loads with the data, after the first frame
    from explorer.hlo.model import Shape
    from explorer.records import MemoryLevel
    from screens.selection import Selection


def _bytes(n: int) -> str:
    return f"{n:,} B" if n < 10_000 else f"{n:,} B ({n / 1024:,.1f} KiB)"


def shape_lines(shape: Shape) -> list[str]:
    """Shape, dtype, bytes, minor-to-major with strides, tiles and padding (from explorer's layout math)."""
    from explorer.hlo import layout_math  # noqa: PLC0415

    if shape.is_tuple:
        lines = [f"tuple of {len(shape.tuple_shapes)}: {_bytes(shape.byte_size)} without padding"]
        for index, part in enumerate(shape.tuple_shapes[:6]):
            lines.append(f"  {{{index}}} {shape_text(part)}  {_bytes(part.byte_size)}")
        return lines
    lines = [
        f"shape  {shape_text(shape)}",
        f"dtype  {shape.element_type} ({layout_math.element_bits(shape)} bits stored)"
        f"   elements {shape.element_count:,}",
    ]
    try:
        unpadded, padded = layout_math.unpadded_byte_size(shape), layout_math.padded_byte_size(shape)
        byte_strides = layout_math.byte_strides(shape)
    except ValueError as exc:  # dynamic dims: no static layout
        return lines + [f"layout: {exc}"]
    layout = shape.layout
    if layout is None:
        return lines + [f"bytes  {_bytes(unpadded)}", "layout not written in this HLO (row-major)"]
    lines.append(f"minor-to-major {{{','.join(map(str, layout.minor_to_major))}}} (fastest first)")
    lines.append("strides (bytes, tiles ignored) " + ", ".join(f"d{d}:{b}" for d, b in enumerate(byte_strides)))
    if layout.tiles:
        tiles = "".join("(" + ",".join(map(str, t.dims)) + ")" for t in layout.tiles)
        padded_dims = "x".join(map(str, layout_math.padded_dims(shape)))
        lines.append(f"tiles  T{tiles}: padded to {padded_dims}")
        overhead = f" (+{(padded - unpadded) / unpadded:.0%})" if unpadded else ""
        lines.append(f"bytes  {_bytes(unpadded)} without padding, {_bytes(padded)} with{overhead}")
    else:
        lines.append(f"bytes  {_bytes(unpadded)} (untiled: no padding)")
    if layout.memory_space:
        lines.append(f"memory space S({layout.memory_space})" + (" on-chip VMEM" if layout.memory_space == 1 else ""))
    return lines


def buffer_lines(memory: MemoryLevel | None, name: str) -> list[str]:
    """Where XLA's buffer assignment put `name`: allocation, offset, size, live range."""
    if memory is None:
        return ["buffer: memory level not captured"]
    lines = []
    for allocation in memory.allocations:
        for value in allocation.values:
            if value.instruction == name:
                lines.append(
                    f"buffer allocation {allocation.index} ({allocation.kind}, {_bytes(allocation.size)})"
                    f" offset {value.offset:,} size {_bytes(value.size)} {value.shape_index}"
                )
    for live in memory.live_ranges:
        if live.value == name or live.value.startswith(name + "{"):
            lines.append(f"live   positions {live.start}..{live.end} in program order")
            break
    return lines or ["buffer: no allocation holds this value (fused into its consumer)"]


def memory_text(selection: Selection) -> Text:
    level, bundle, item = selection.level, selection.bundle, selection.item
    lines: list[str] = []
    if level == "layers":
        layer = next((l for l in bundle.layers if l.name == item.name), None)
        if layer is not None:
            lines += [
                f"dtype policy {layer.dtype_policy}",
                "inputs  " + "; ".join(str(s) for s in layer.input_shapes),
                "outputs " + "; ".join(str(s) for s in layer.output_shapes),
                f"weights {_bytes(layer.weight_bytes)}  activations {_bytes(layer.activation_bytes)}",
            ]
    elif level == "graph" and bundle.graph is not None:
        op = next((o for o in bundle.graph.ops if o.name == item.name), None)
        if op is not None:
            for out in op.outputs:
                lines.append(f"output {out.dtype}{list(out.shape) if out.shape is not None else ' rank unknown'}")
            lines += [f"{k} = {v}" for k, v in op.attributes]
    elif level in ("hlo", "optimized-hlo"):
        instruction = selection.instruction()
        if instruction is not None:
            lines += shape_lines(instruction.shape)
            if level == "optimized-hlo":
                lines += buffer_lines(memory_of(bundle, selection.target), instruction.name)
    elif level == "kernels":
        kernel = next((k for k in bundle.kernels(selection.target) if k.name == item.name), None)
        if kernel is not None:
            if kernel.vector_width_bits:
                lines.append(f"vector width {kernel.vector_width_bits} bits")
            if kernel.vector_registers:
                lines.append("registers " + ", ".join(kernel.vector_registers[:12]))
            if kernel.launch is not None:
                grid, block = kernel.launch.grid, kernel.launch.block
                lines.append(f"grid {grid}  block {block}  shared {_bytes(kernel.launch.shared_memory_bytes)}")
            lines += buffer_lines(memory_of(bundle, selection.target), kernel.hlo[0]) if kernel.hlo else []
    return Text("\n".join(lines) or "nothing recorded for this item")


class MemoryPane(PaneText):
    """The screen calls `show_selection(selection)` on every cursor move."""

    def show_selection(self, selection: Selection | None, placeholder: str = "select an item") -> None:
        self.show(memory_text(selection) if selection is not None else placeholder)
