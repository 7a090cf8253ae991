"""Warming a deep model's device panes reads its shared kernel once (issue 36, item 4).

XLA:CPU put every fusion of a 5,000-layer model in one kernel (`part_00`, megabytes of assembly).
The warm-up after opening builds each layer's device-pane lines; it counted that kernel's listing
and indexed its 5,000 fusions again for every layer, so the warming thread held the interpreter's
lock for minutes and every key pressed meanwhile waited its turn (bench/bench_deep_keys.py).
"""

from __future__ import annotations

from deep_bundle import layer_name, write_deep_bundle

from explorer.capture import listing
from explorer.model.bundle import Bundle
from explorer.views.panes import warm_layer_facts
from explorer.views.programs import xla_layer

LAYERS = 200


def test_the_warm_up_reads_a_kernel_every_layer_shares_once(tmp_path, monkeypatch):
    bundle = Bundle.open(write_deep_bundle(tmp_path / "deep", LAYERS, one_part=True))
    counted, indexed = [], []
    count, index = listing.instruction_count, xla_layer._kernels_by_hlo
    monkeypatch.setattr(listing, "instruction_count", lambda asm, isa: counted.append(isa) or count(asm, isa))
    monkeypatch.setattr(xla_layer, "_kernels_by_hlo", lambda records: indexed.append(1) or index(records))

    warm_layer_facts(bundle)

    assert len(counted) == 1 and len(indexed) == 1
    # ... and every layer's comparison still names the kernel its fusion is in, with its length.
    for layer in (layer_name(0), layer_name(LAYERS - 1)):
        compared = xla_layer.hlo_target_layer(bundle, layer, "cpu")
        assert [row.kernels for row in compared.instructions if row.opcode == "fusion"] == [("part_00",)]
        assert [brief.name for brief in compared.kernels] == ["part_00"]
        assert compared.kernels[0].instructions == count(bundle.kernels("cpu")[0].asm, counted[0]) > LAYERS


def test_the_ui_thread_leaves_a_long_listing_to_a_worker(tmp_path):
    """Counting the one kernel's listing took 1.5 s: a thread that only reads is refused until a worker
    has counted it, and then answers from the table."""
    import pytest

    from explorer.model.built import NotBuilt, only_read
    from explorer.views.programs.target_layer import kernel_brief

    bundle = Bundle.open(write_deep_bundle(tmp_path / "deep", LAYERS, one_part=True))
    kernel = bundle.kernels("cpu")[0]
    with pytest.raises(NotBuilt), only_read():
        kernel_brief(kernel, "cpu")
    counted = kernel_brief(kernel, "cpu")  # a worker
    with only_read():
        assert kernel_brief(kernel, "cpu") is counted
