"""Every level of an ARM target read from a recorded bundle, without a compiler: tests/fixtures/bundles/mnist_cnn_arm
(mnist_cnn on this machine's x86 CPU, on the Raspberry Pi 5's Cortex-A76 compiled ahead of time by XLA, and by TVM
for the same core; recorded by record_mnist_cnn_arm.py). What `inspect`, `compare`, `passport`, `passes`, `graph`,
`t`, the device pane, the compare screen and a lesson pack show of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from test_screens_compare import text_of

from explorer.course.pack import open_pack
from explorer.levels import LIST_LEVELS, TARGET_LEVELS
from explorer.model.bundle import Bundle
from explorer.views import passes, trace
from explorer.views.compare import layer_comparison
from explorer.views.compare.text import library_text, vector_text
from explorer.views.graphs.level import graph_of
from explorer.views.panes import device_lines, memory_facts
from explorer.views.rows import rows

from screens.app import create_app
from screens.cli import main
from screens.compare import CompareScreen

from pilot_support import open_by_key, sync
from tests.conftest import FIXTURES, ROOT

ARM_BUNDLE = FIXTURES / "bundles" / "mnist_cnn_arm"
ARM = "arm:cortex-a76"


@pytest.fixture(scope="module")
def bundle() -> Bundle:
    return Bundle.open(ARM_BUNDLE)


def test_the_bundle_holds_the_cpu_target_layout_for_the_arm_target(bundle):
    assert bundle.targets == ("cpu", ARM, "tvm:arm")
    for level in TARGET_LEVELS:
        assert bundle.status(level, ARM).status == "ok", level
        assert rows(bundle, level, ARM) if level in LIST_LEVELS else bundle.memory(ARM).allocations, level
    folder = bundle.target_dir(ARM)
    for name in ("hlo.txt", "optimized_hlo.txt", "buffer_assignment.txt", "memory_report.txt", "memory.json",
                 "kernels.json", "scopes.json"):
        assert (folder / name).is_file(), name


def test_inspect_lists_aarch64_kernels_with_their_neon_registers(capsys):
    assert main(["inspect", str(ARM_BUNDLE), "--level", "kernels", "--target", ARM]) == 0
    table = capsys.readouterr().out
    dot = next(line for line in table.splitlines() if line.startswith("dot "))
    assert "dense" in dot and " 128 " in dot and ".4s" in dot  # the registers column names v registers
    assert main(["inspect", str(ARM_BUNDLE), "--level", "kernels", "--target", ARM, "--json"]) == 0
    kernels = {k["name"]: k for k in json.loads(capsys.readouterr().out)["kernels"]}
    assert "fmla v" in kernels["dot"]["asm"] and kernels["dot"]["layer"] == "dense"


def test_the_passport_of_dense_goes_down_to_neon_registers(capsys):
    assert main(["passport", str(ARM_BUNDLE), "--layer", "dense", "--target", ARM, "--json"]) == 0
    hops = json.loads(capsys.readouterr().out)["hops"]
    machine = next(h for h in hops if h["level"] == "machine-code")
    assert machine["kind"] == "aarch64" and machine["registers"]
    assert all(register.startswith("v") for register in machine["registers"])
    assert main(["passport", str(ARM_BUNDLE), "--layer", "dense", "--target", ARM]) == 0
    text = capsys.readouterr().out
    registers_line = next(line for line in text.splitlines() if line.strip().startswith("registers:"))
    assert registers_line.split(":", 1)[1].strip().startswith("v")


def test_compare_sets_x86_and_arm_side_by_side(bundle):
    columns = {c.target: c for c in layer_comparison(bundle, "dense").targets}
    x86, arm = vector_text(columns["cpu"]), vector_text(columns[ARM])
    assert "256-bit (8 x 32-bit lanes" in x86 and "instructions" in x86
    assert arm.startswith("dot 128-bit (4 x 32-bit lanes") and "instructions" in arm
    conv = {c.target: c for c in layer_comparison(bundle, "conv2d").targets}
    # The convolution is a runtime call on ARM as on x86: both columns say so in the same words.
    assert library_text(conv["cpu"]) == library_text(conv[ARM]) == "runtime library (symbol not recorded)"
    assert columns[ARM].estimated_seconds is not None  # the board's derived peaks give a roofline ESTIMATE
    assert "derived from published figures" in columns[ARM].instructions[-1].estimate.note


def test_t_goes_from_the_x86_kernel_to_the_arm_one_and_on_to_tvm(bundle):
    assert trace.counterpart(bundle, "optimized-hlo", "dot_add_fusion", "cpu", ARM) == "dot"
    assert trace.counterpart(bundle, "kernels", "dot_add_fusion", "cpu", ARM) == "dot"
    assert trace.counterpart(bundle, "optimized-hlo", "dot", ARM, "tvm:arm") == "matmul"


def test_the_device_pane_puts_arm_beside_x86_in_the_cpu_tab(bundle):
    arm = device_lines(bundle, "layers", "dense", "cpu", ARM)
    assert arm[0] == f"{ARM}  (layer dense)"
    assert "  kernel dot [emitter] 128-bit, 4 x 32-bit lanes" in arm
    x86 = device_lines(bundle, "layers", "dense", "cpu", "cpu")
    assert any("256-bit, 8 x 32-bit lanes" in line for line in x86)


def test_memory_filmstrip_and_graph_of_the_arm_target(bundle):
    facts = memory_facts(bundle, "optimized-hlo", ARM, "dot")
    assert any("allocation" in line for line in facts)
    strip = passes.filmstrip(bundle, ARM)
    assert len(strip.rows()) >= 3 and any(row.pass_name == "fusion" for row in strip.rows())
    graph = graph_of(bundle, "optimized-hlo", ARM, select="dense")
    assert "dot" in {node.name for node in graph.nodes}


@sync
async def test_the_compare_screen_shows_x86_and_arm_columns():
    app = create_app(ARM_BUNDLE, level="layers", target=ARM, select="dense")
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_by_key(app, pilot, "x", CompareScreen)
        assert [t.target for t in screen.comparison.targets][:3] == ["cpu", ARM, "tvm:arm"]
        shown = " ".join(text_of(screen, "#compare-layer", width=400).split())
        assert "8 x 32-bit lanes" in shown and "4 x 32-bit lanes" in shown
        assert "Raspberry Pi 5" in shown


# An interpreter where no compiler (nor capstone, the workers' disassembler) can be imported: a UI-only install.
UI_ONLY = r"""
import importlib.abc, sys
class NoCompiler(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("tensorflow", "jax", "jaxlib", "keras", "libtpu", "tvm", "onnx", "tf2onnx",
                                  "capstone"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NoCompiler())
from explorer.levels import LEVELS, TARGET_LEVELS
from screens.cli import main
pack = sys.argv[1]
for level in LEVELS:
    for target in ("arm:cortex-a76", "tvm:arm") if level in TARGET_LEVELS else ("cpu",):
        assert main(["inspect", pack, "--level", level, "--target", target]) == 0, (level, target)
assert main(["screenshot", pack, "--level", "kernels", "--target", "arm:cortex-a76", "--select", "dot",
             "--out", sys.argv[2]]) == 0
assert main(["passport", pack, "--layer", "dense", "--target", "arm:cortex-a76"]) == 0
assert main(["compare", pack, "--layer", "dense"]) == 0
print("COMPILERS", sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "jax", "keras", "capstone")))
"""


def test_a_pack_of_the_arm_bundle_opens_on_a_ui_only_install(tmp_path):
    pack = tmp_path / "edge.twpack"
    assert main(["pack", str(ARM_BUNDLE), "--no-tours", "-o", str(pack)]) == 0
    assert ARM in Bundle.open(open_pack(pack).bundle_path()).targets
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TENSORWEG_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-c", UI_ONLY, str(pack), str(tmp_path / "shot.svg")],
                            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "COMPILERS []" in result.stdout and "registers: v" in result.stdout  # the passport's NEON registers
    assert (tmp_path / "shot.svg").read_text(encoding="utf-8").startswith("<svg")


def test_an_arm_kernel_finds_the_course_texts_for_aarch64_neon_and_ahead_of_time(bundle):
    from explorer.views.explain import explanation_keys, explanations

    groups = explanation_keys(bundle, "kernels", ARM, "dot")
    assert groups[0] == ("kernel:emitter",) and ("isa:aarch64",) in groups and ("isa:neon",) in groups
    assert ("compile:aot",) in groups
    for lang in ("en", "de"):
        texts = {text.key: text for text in explanations(bundle, "kernels", ARM, "dot", lang)}
        assert texts["kernel:emitter@arm"].fallback == "specific"
        assert "Raspberry Pi 5 (BCM2712)" in texts["isa:neon"].body  # the board's figures fill the text
    conv = next(k.name for k in bundle.kernels(ARM) if k.kind == "library")
    assert explanations(bundle, "kernels", ARM, conv, "en")[0].key == "kernel:library@arm"
    tvm = {text.key for text in explanations(bundle, "kernels", "tvm:arm", "fused_conv2d_relu", "en")}
    assert "isa:neon" in tvm and "compile:aot" not in tvm
