"""The target table (explorer/targets/table.py): every fact about a target in its row, once.

Walks the table: every compile-only target carries every figure its kind needs, each with the
page it was read from; every consumer (texts, mesh panes, roofline, tour parser, capture
options) reads the row; and no module outside explorer/targets writes a figure, an old
figure table or a hand-kept list of target names again.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from explorer.course.tours.parser import parse_tour
from explorer.errors import ParseError, TensorwegError
from explorer.model.records import CaptureOptions
from explorer.model.sharding import Collective, check_mesh_options, device_memory, transfer_seconds
from explorer.targets import MESH_TARGETS, TARGETS, TOUR_TARGETS
from explorer.targets.figures import Figure, Source, capacity, clock, compute, rate
from explorer.targets.spec import REQUIRED_FIGURES
from explorer.texts.chip_figures import chip_figures, format_bandwidth, format_capacity, format_clock

ROOT = Path(__file__).resolve().parents[1]
CHIPS = [name for name, spec in TARGETS.items() if spec.chip is not None]


# --- the rows ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", TARGETS)
def test_a_target_is_this_machines_device_or_a_chip_with_published_figures(name):
    spec = TARGETS[name]
    if spec.on_this_machine:  # tensorweg knows no figures of the machine it runs on
        assert spec.chip is None and not spec.topology and spec.gpu_device is None
        return
    # The compile-only device: a JAX topology (GPU, TPU) or an LLVM triple and CPU (an ARM board).
    assert spec.chip is not None and (spec.topology or (spec.llvm("mtriple") and spec.llvm("mcpu"))), name
    missing = [field for field in REQUIRED_FIGURES[spec.kind] if not getattr(spec.chip, field)]
    assert not missing, (name, missing)
    if spec.kind == "gpu":
        assert spec.gpu_device is not None and spec.sm_limits is not None and spec.sm_limits.source
    if spec.kind == "cpu":  # a board, not a core design: it has a clock, cores and a memory of its own
        assert spec.isa == "aarch64" and spec.needs_modules and spec.install_hint, name


@pytest.mark.parametrize("name", CHIPS)
def test_every_figure_says_which_page_wrote_it_and_in_which_words(name):
    figures = list(TARGETS[name].chip.figures())
    assert len(figures) >= 5
    for place, figure in figures:
        assert isinstance(figure, Figure) and figure.value > 0, (name, place)
        assert figure.published.strip(), (name, place)
        assert isinstance(figure.source, Source) and figure.source.title, (name, place)
        assert figure.source.url.startswith("https://"), (name, place)
        assert figure.published in figure.citation and figure.source.url in figure.citation


def test_the_vendors_words_are_read_with_one_rule_per_unit():
    v5e = Source("Google Cloud TPU v5e", "https://cloud.google.com/tpu/docs/v5e")
    assert capacity("16 GB", v5e).value == 16 * 2**30  # a capacity: binary, whatever the page's spelling
    assert capacity("32 GiB", v5e).value == capacity("32 GB", v5e).value
    assert capacity("50 MB", v5e).value == 50 * 2**20
    assert rate("819 GBps", v5e).value == 819e9  # a rate: decimal
    assert rate("3.35TB/s", v5e).value == 3.35e12
    assert rate("1,600 Gbps", v5e).value == 200e9  # bits
    assert compute("197 TFLOPs", v5e).value == compute("197 teraflops", v5e).value == 197e12
    for words, read in (("16 Gb", capacity), ("819 MB/s", rate), ("67 GFLOPS", compute), ("many TOPs", compute)):
        with pytest.raises(ValueError, match="cannot read"):
            read(words, v5e)


def test_an_arm_peak_is_derived_and_its_citation_shows_the_arithmetic_from_the_rows_own_figures():
    """Arm publishes no peak FLOP/s: cores x clock x FP/ASIMD pipes x lanes x 2, the pipes from the
    Software Optimization Guide; the arithmetic is the figure's words, computed from the row's cores and clock."""
    for name in ("arm:cortex-a76", "arm:neoverse-n1"):
        chip = TARGETS[name].chip
        f32 = dict(chip.peaks)["f32"]
        assert f32.derived and f32.citation.startswith("derived, not published: ")
        assert "Software Optimization Guide" in f32.source.title
        assert f32.value == chip.cores.value * chip.clock.value * 2 * (chip.vector_width.value // 32) * 2
        assert f"{int(chip.cores.value)} cores x {chip.clock.published}" in f32.published
        assert dict(chip.peaks)["int8"].value == 4 * f32.value  # SDOT: 16 int8 products where FMLA has 4 lanes
        assert chip.memory.capacity is None and chip.memory.bandwidth.derived  # boards sold in several sizes
    assert TARGETS["arm:cortex-a76"].chip.clock.value == 2.4e9 and TARGETS["arm:cortex-a76"].chip.cores.value == 4
    assert TARGETS["tvm:arm"].chip is TARGETS["arm:cortex-a76"].chip  # one board, two compilers
    assert TARGETS["tvm:arm"].llvm_target == TARGETS["arm:cortex-a76"].llvm_target


def test_the_vendors_clock_words_are_read_as_hertz():
    pi = Source("Raspberry Pi 5 product brief", "https://datasheets.raspberrypi.com/rpi5/raspberry-pi-5-product-brief.pdf")
    assert clock("2.4GHz", pi).value == 2.4e9 and clock("2500MHz", pi).value == 2.5e9
    with pytest.raises(ValueError, match="cannot read"):
        clock("2.4 Gbps", pi)


def test_googles_16_gb_for_v5e_is_16_gib_and_says_so():
    memory = TARGETS["tpu:v5e"].chip.memory
    assert memory.capacity.published == "16 GB" and memory.capacity.value == 16 * 2**30
    assert memory.capacity.source.url == "https://cloud.google.com/tpu/docs/v5e"
    assert TARGETS["tpu:v4"].chip.memory.capacity.published == "32 GiB"  # Google's own binary spelling


@pytest.mark.parametrize("name", [n for n in CHIPS if TARGETS[n].kind == "gpu"])
def test_the_compile_only_gpu_agrees_with_the_datasheet_where_both_give_a_figure(name):
    """XLA's device description (what CUDA reports for the board) and NVIDIA's pages are two sources;
    where they describe the same quantity they must agree, within what a datasheet rounds."""
    spec = TARGETS[name]
    device = dict(spec.gpu_device.fields)
    assert device["memory_bandwidth"] == pytest.approx(spec.memory_bandwidth, rel=1e-3)
    # The driver keeps some memory for itself: a little less than the published capacity.
    assert 0.97 * spec.memory_capacity.value < device["device_memory_size"] < spec.memory_capacity.value
    assert device["shared_memory_per_core"] == spec.sm_limits.shared_memory_per_sm
    assert device["threads_per_core_limit"] == spec.sm_limits.max_threads_per_sm
    assert device.get("registers_per_core_limit", spec.sm_limits.registers_per_sm) == spec.sm_limits.registers_per_sm


# --- every consumer reads the row -----------------------------------------------------------

@pytest.mark.parametrize("name", CHIPS)
def test_the_course_texts_quote_every_figure_of_the_row(name):
    spec, figures = TARGETS[name], chip_figures(name)
    chip = spec.chip
    assert figures["chip"] == chip.name and figures["hbm_kind"] == chip.memory.kind
    if chip.memory.capacity is not None:  # an ARM board is sold in several sizes
        assert figures["hbm_capacity"] == format_capacity(chip.memory.capacity.value)
    else:
        assert "hbm_capacity" not in figures
    assert figures["hbm_bandwidth"] == format_bandwidth(chip.memory.bandwidth.value)
    assert {f"peak_{dtype}" for dtype, _figure in chip.peaks} <= set(figures)
    if chip.matrix_units is not None:
        assert figures["mxu_count"] == chip.matrix_units.value
    if chip.cores is not None and spec.kind == "gpu":
        assert figures["sm_count"] == chip.cores.value
    if spec.kind == "cpu":
        assert figures["core_count"] == chip.cores.value and figures["simd_bits"] == chip.vector_width.value
        assert figures["clock"] == format_clock(chip.clock.value)


@pytest.mark.parametrize("name", [n for n, s in TARGETS.items() if s.chip is None])
def test_a_target_without_a_chip_gives_the_texts_no_figures(name):
    assert chip_figures(name) == {}


@pytest.mark.parametrize("name", TARGETS)
def test_the_mesh_panes_take_memory_and_link_from_the_row(name):
    spec = TARGETS[name]
    collective = Collective("ar", "all-reduce", "f32[1024]", 4096, "[1,4]<=[4]", 4)
    if spec.chip is None:
        assert device_memory(name) is None and transfer_seconds(collective, name) is None
        return
    capacity = spec.chip.memory.capacity
    assert device_memory(name) == ((capacity.value, capacity.citation) if capacity is not None else None)
    link = spec.chip.interconnect
    if link is None:  # one device (an ARM board): no mesh, no collective
        assert transfer_seconds(collective, name) is None
        return
    assert transfer_seconds(collective, name) == collective.ring_bytes() / link.bandwidth.value


@pytest.mark.parametrize("name", TARGETS)
def test_mesh_options_accept_exactly_the_targets_with_an_interconnect(name):
    options = CaptureOptions(targets=(name,), mesh="2x2", shard="data", batch=8)
    if TARGETS[name].interconnect is not None:
        assert name in MESH_TARGETS
        check_mesh_options(options)
    else:
        with pytest.raises(TensorwegError, match=f"{re.escape(name)} is one device"):
            check_mesh_options(options)


@pytest.mark.parametrize("name", TARGETS)
def test_a_tour_may_name_the_targets_the_table_lets_it(name):
    text = f"# title: t\n# model: mlp\n# lang: en\n\nstep: level=hlo target={name}\ntext: x\n"
    assert TARGETS[name].in_tours and name in TOUR_TARGETS
    assert parse_tour(text).steps[0].target == name


def test_a_tour_naming_a_target_outside_the_table_is_refused_with_the_tables_names():
    text = "# title: t\n# model: mlp\n# lang: en\n\nstep: level=hlo target=arm:cortex-a99\ntext: x\n"
    with pytest.raises(ParseError, match=re.escape(f"(known: {', '.join(TOUR_TARGETS)})")):
        parse_tour(text)


# --- nothing outside the table writes a target fact -------------------------------------------

_OLD_TABLES = {"INTERCONNECT", "TPU_HBM_BYTES", "_EXTRA", "KNOWN_TARGETS", "TARGET"}


def _scanned_modules() -> list[Path]:
    files = [*sorted((ROOT / "explorer").rglob("*.py")), *sorted((ROOT / "screens").rglob("*.py"))]
    return [path for path in files if "targets" not in path.relative_to(ROOT).parts[:2]]


def _figure_numbers() -> set[float]:
    """Every large figure of the table, in base units and as the page's number scaled to giga or tera:
    what a second copy would be written as (`819e9`, `16 * 2**30` folds to the same, `1600e9 / 8`)."""
    numbers: set[float] = set()
    for name in CHIPS:
        for _place, figure in TARGETS[name].chip.figures():
            if figure.value >= 1e6:
                number = float(re.search(r"\d[\d,]*(?:\.\d+)?", figure.published).group().replace(",", ""))
                numbers |= {figure.value, number * 1e9, number * 1e12}
    for spec in TARGETS.values():
        if spec.gpu_device is not None:
            numbers |= {float(v) for _field, v in spec.gpu_device.fields if v >= 1e6}
    return numbers


_ARITHMETIC = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
               ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b if abs(b) < 64 else None}


def _folded(node: ast.AST) -> float | None:
    """The value of a numeric constant or of arithmetic on constants (`16 * 2**30`, `1600e9 / 8`), else None."""
    if isinstance(node, ast.Constant):
        value = node.value
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _folded(node.left), _folded(node.right)
        if left is None or right is None or (isinstance(node.op, ast.Div) and right == 0):
            return None
        return _ARITHMETIC[type(node.op)](left, right)
    return None


def test_no_module_outside_the_table_writes_a_figure_or_a_list_of_targets():
    numbers, names = _figure_numbers(), set(TARGETS)
    published = {figure.published for name in CHIPS for _place, figure in TARGETS[name].chip.figures()
                 if any(ch.isdigit() for ch in figure.published) and " " in figure.published}
    found = []
    for path in _scanned_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(ROOT)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found += [f"{where}:{node.lineno} defines {t.id}" for t in targets
                          if isinstance(t, ast.Name) and t.id in _OLD_TABLES]
            if isinstance(node, (ast.BinOp, ast.Constant)) and (value := _folded(node)) is not None \
                    and value in numbers:
                found.append(f"{where}:{node.lineno} writes the figure {value:g}")
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found += [f"{where}:{node.lineno} quotes {words!r}" for words in published
                          if re.search(rf"(?<![\d.]){re.escape(words)}", node.value)]
            if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                items = node.keys if isinstance(node, ast.Dict) else node.elts
                listed = [i.value for i in items if isinstance(i, ast.Constant) and i.value in names]
                if len(listed) >= 3:
                    found.append(f"{where}:{node.lineno} lists targets {listed}")
    assert not found, "\n".join(found)
