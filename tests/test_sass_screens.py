"""The kernels screen on the H100: `v` cycles PTX / SASS / LLVM IR, the memory pane shows the
registers per thread and the occupancy estimate. Fed the recorded bundle (a real capture)."""

from __future__ import annotations

import pytest

from screens.app import create_app
from screens.widgets.code_view import CodeView
from screens.widgets.pane_text import PaneText

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle


def code(app) -> CodeView:
    return app.screen.query_one("#code", CodeView)


@sync
async def test_v_cycles_ptx_sass_and_llvm_ir_of_a_gpu_kernel():
    app = create_app(BUNDLE, level="kernels", target="gpu:h100", select="wrapped_transpose")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        kernel = next(k for k in app.bundle.kernels("gpu:h100") if k.name == "wrapped_transpose")
        seen = []
        for _ in range(5):
            view = code(app)
            seen.append((str(view.border_title), "\n".join(view._source)))
            await pilot.press("v")
            await pilot.pause()
        assert [title for title, _ in seen] == [
            "PTX (1/4, v switches)", "SASS (2/4, v switches)", "LLVM IR (3/4, v switches)",
            "LLVM IR optimized (4/4, v switches)", "PTX (1/4, v switches)"]
        assert seen[0][1] == kernel.ptx.rstrip() and seen[1][1] == kernel.sass.rstrip()
        assert "S2R R0, SR_TID.X" in seen[1][1]


@sync
async def test_the_memory_pane_says_registers_and_what_limits_the_warps():
    app = create_app(BUNDLE, level="kernels", target="gpu:h100", select="wrapped_transpose")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        text = " ".join(app.screen.query_one("#memory", PaneText).plain.split())  # as wrapped to the pane
        assert "registers 10 per thread (ptxas -v, sm_90a)" in text
        assert "10 registers x 72 threads: 21 blocks, limited by threads per SM" in text


@sync
async def test_a_cpu_kernel_still_starts_with_its_assembly():
    app = create_app(BUNDLE, level="kernels", target="cpu", select="broadcast_maximum_fusion")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        assert str(code(app).border_title).startswith("assembly (1/")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_gpu_kernel_sass(snap_compare, size):
    """H100 kernels with wrapped_transpose selected after one `v`: the code view titled
    "SASS (2/4, v switches)" starts `/*0000*/  LDC R1, c[0x0][0x28] ;`, `S2R R0, SR_TID.X`; the memory
    pane says 10 registers per thread and the occupancy estimate (63/64 warps, limited by threads per SM)."""
    app = create_app(BUNDLE, level="kernels", target="gpu:h100", select="wrapped_transpose")
    assert snap_compare(app, press=["v"], run_before=opened, terminal_size=size)
