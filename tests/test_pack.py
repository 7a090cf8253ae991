"""Lesson packs (`tensorweg pack`, opening `*.twpack`): round trip without a compiler, and every bad pack.

All through the CLI the user runs (`screens.cli.main`); the packs are made from the recorded bundle.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from explorer.course.pack import PACK_MANIFEST, PACK_VERSION

from screens.cli import main

from tests.conftest import FIXTURES, ROOT

BUNDLE = FIXTURES / "bundles" / "mnist_cnn"


@pytest.fixture
def pack(tmp_path) -> Path:
    out = tmp_path / "course.twpack"
    assert main(["pack", str(BUNDLE), "--tours", "tensor_to_registers,tensor_bis_register", "-o", str(out)]) == 0
    return out


def _error(capsys, argv) -> str:
    """Run argv, expect exit 2 with exactly one `error:` line and no traceback; the line."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def _unpacked(cache: Path) -> list[str]:
    """What opening packs left in the cache (staging directories must not stay)."""
    packs = cache / "packs"
    return sorted(p.name for p in packs.iterdir()) if packs.is_dir() else []


def test_pack_holds_the_bundle_and_tours_and_a_versioned_manifest(pack):
    with zipfile.ZipFile(pack) as archive:
        manifest = json.loads(archive.read(PACK_MANIFEST))
        names = set(archive.namelist())
    assert manifest["format"] == "tensorweg-pack" and manifest["version"] == PACK_VERSION
    assert manifest["bundles"] == ["mnist_cnn"] and manifest["tours"] == ["tensor_to_registers", "tensor_bis_register"]
    assert "bundles/mnist_cnn/targets/tpu-v5e/optimized_hlo.txt" in names
    assert {"tours/tensor_to_registers.tour", "tours/tensor_bis_register.tour"} <= names
    assert set(manifest["files"]) == names - {PACK_MANIFEST}
    assert not [p for p in pack.parent.iterdir() if p.name.endswith(".partial")]


# A UI-only install (`pip install -e .`, no `compilers` extra), made in this interpreter: every compiler
# package fails to import and to be found, as when it is not installed (a fresh venv is too slow for a test).
ROUND_TRIP = r"""
import contextlib, importlib.abc, io, os, sys
class NoCompiler(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("tensorflow", "jax", "jaxlib", "keras", "libtpu", "tvm", "onnx", "tf2onnx"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NoCompiler())

from explorer.model.bundle import Bundle
from explorer.course.tours import parse_tour
from explorer.levels import LEVELS, TARGET_LEVELS
from explorer.course.pack import open_pack
from explorer.course import exercises
from explorer.course.tours import meets
from explorer.course.lessons import resolve_tour_step, tour_candidates
from explorer.views.rows import rows
from screens.cli import main

pack_path = sys.argv[1]
for level in LEVELS:
    for target in ("cpu", "gpu:h100", "tpu:v5e") if level in TARGET_LEVELS else ("cpu",):
        assert main(["inspect", pack_path, "--level", level, "--target", target]) == 0, (level, target)
for level in LEVELS:  # the UI draws every level from the pack (optimized-hlo last: the picture checked)
    for target in ("cpu", "gpu:h100", "tpu:v5e") if level in TARGET_LEVELS else ("cpu",):
        assert main(["screenshot", pack_path, "--level", level, "--target", target, "--out", sys.argv[2]]) == 0
assert main(["screenshot", pack_path, "--level", "optimized-hlo", "--out", sys.argv[2]]) == 0
pack = open_pack(pack_path)
bundle, original = Bundle.open(pack.bundle_path()), Bundle.open(sys.argv[3])
shown = questions = 0
for name in pack.tours:
    tour = parse_tour(pack.tour_text(name), name)
    for step in tour.steps:  # every step shows from the pack what it shows from the bundle packed
        assert rows(bundle, step.level, step.target) == rows(original, step.level, step.target), (name, step.line)
        shown += len(rows(bundle, step.level, step.target))
        assert resolve_tour_step(bundle, step) == resolve_tour_step(original, step), (name, step.line)
        if step.question is not None:  # every exercise can be answered, and is checked, from the pack
            questions += 1
            if step.question.kind == "select":
                right = [c.name for c in tour_candidates(bundle, step.level, step.target)
                         if meets(step.question.selection, c)]
                assert right and exercises.check(bundle, step, right[0]).correct, (name, step.line)
            else:
                assert exercises.expected(bundle, step, resolve_tour_step(bundle, step)) is not None
assert shown > 100 and questions == 2, (shown, questions)
# Asked to capture a model, every command says in one line how to install the compilers (exit 2).
for argv in (["capture", "mlp"], ["inspect", "mlp", "--level", "layers"], ["mnist_cnn"], ["tour", "basics", "mlp"],
             ["pack", "mlp", "-o", "m.twpack"], ["serve", "mlp", "--allow-capture"]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(argv) == 2, argv
    assert err.getvalue().startswith("error: cannot capture: the compilers are not installed"), (argv, err.getvalue())
    assert err.getvalue().count("\n") == 1 and 'pip install -e ".[compilers]"' in err.getvalue(), err.getvalue()
assert not os.path.exists("m.twpack")  # nothing half-written
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "jax", "jaxlib", "keras"))
print("COMPILERS", loaded)
"""


def test_pack_opens_every_level_and_tour_with_no_compiler_importable(pack, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", ROUND_TRIP, str(pack), str(tmp_path / "shot.svg"), str(BUNDLE)],
                            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "COMPILERS []" in result.stdout
    assert (tmp_path / "shot.svg").read_text().startswith("<svg")


def test_pack_opens_from_a_read_only_folder_and_unpacks_once(pack, tmp_path, capsys):
    cache = Path(os.environ["TENSORWEG_CACHE_DIR"])
    before = sorted(p.name for p in pack.parent.iterdir())
    pack.parent.chmod(0o555)
    try:
        assert main(["inspect", str(pack), "--level", "layers"]) == 0
        unpacked = _unpacked(cache)
        assert len(unpacked) == 1
        stamp = (cache / "packs" / unpacked[0] / PACK_MANIFEST).stat().st_mtime_ns
        assert main(["inspect", str(pack), "--level", "layers"]) == 0
        assert (cache / "packs" / unpacked[0] / PACK_MANIFEST).stat().st_mtime_ns == stamp
        assert sorted(p.name for p in pack.parent.iterdir()) == before  # nothing written beside the pack
    finally:
        pack.parent.chmod(0o755)
    assert "conv2d" in capsys.readouterr().out


def test_a_pack_without_a_terminal_is_checked_first(pack, capsys):
    """`tensorweg course.twpack` opens the pack before asking for a terminal (pytest has none)."""
    assert "needs a terminal" in _error(capsys, [str(pack)])


def _rewrite(pack: Path, out: Path, *, manifest=None, extra=(), drop=(), raw=None) -> Path:
    """A copy of `pack` with its manifest replaced, members added ((name, bytes)) or dropped."""
    with zipfile.ZipFile(pack) as source, zipfile.ZipFile(out, "w") as target:
        original = json.loads(source.read(PACK_MANIFEST))
        new_manifest = original if manifest is None else manifest(original)
        target.writestr(PACK_MANIFEST, raw if raw is not None else json.dumps(new_manifest))
        for info in source.infolist():
            if info.filename != PACK_MANIFEST and info.filename not in drop:
                target.writestr(info, source.read(info))
        for name, data in extra:
            if isinstance(name, zipfile.ZipInfo):
                target.writestr(name, data)
            else:
                target.writestr(name, data)
    return out


def _with_files(original: dict, *names: str) -> dict:
    return {**original, "files": original["files"] + list(names)}


def _symlink(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (0o120777 << 16)
    return info


def _bad_bundle_manifest(pack: Path, out: Path) -> Path:
    with zipfile.ZipFile(pack) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "bundles/mnist_cnn/manifest.json":
                data = b'{"schema_version": 99}'
            target.writestr(info, data)
    return out


BAD_TOUR = b"# title: x\nstep: level=nope\n"
BAD_PACKS = {
    "not a zip": (lambda pack, out: (out.write_text("hello"), out)[1], "not a tensorweg lesson pack"),
    "empty file": (lambda pack, out: (out.write_bytes(b""), out)[1], "not a tensorweg lesson pack"),
    "truncated": (lambda pack, out: (out.write_bytes(pack.read_bytes()[: pack.stat().st_size // 2]), out)[1],
                  "truncated"),
    "a zip without a pack manifest": (lambda pack, out: _rewrite(pack, out, drop=(), raw=None,
                                                                 manifest=lambda m: m) and _no_manifest(out),
                                      "no twpack.json"),
    "another format": (lambda pack, out: _rewrite(pack, out, manifest=lambda m: {**m, "format": "other"}),
                       "not a tensorweg lesson pack"),
    "manifest not json": (lambda pack, out: _rewrite(pack, out, raw="{nope"), "not JSON"),
    "newer version": (lambda pack, out: _rewrite(pack, out, manifest=lambda m: {**m, "version": PACK_VERSION + 1}),
                      "newer tensorweg"),
    "zip slip ..": (lambda pack, out: _rewrite(pack, out, extra=[("bundles/../../evil.txt", b"x")],
                                               manifest=lambda m: _with_files(m, "bundles/../../evil.txt")),
                    "unsafe path"),
    "absolute path": (lambda pack, out: _rewrite(pack, out, extra=[("/tmp/evil.txt", b"x")],
                                                 manifest=lambda m: _with_files(m, "/tmp/evil.txt")), "unsafe path"),
    "backslash path": (lambda pack, out: _rewrite(pack, out, extra=[("tours\\..\\evil.tour", b"x")],
                                                  manifest=lambda m: _with_files(m, "tours\\..\\evil.tour")),
                       "unsafe path"),
    "outside the pack's areas": (lambda pack, out: _rewrite(pack, out, extra=[("evil.py", b"x")],
                                                            manifest=lambda m: _with_files(m, "evil.py")),
                                 "unsafe path"),
    "symlink member": (lambda pack, out: _rewrite(pack, out, extra=[(_symlink("tours/link.tour"), b"/etc/passwd")],
                                                  manifest=lambda m: _with_files(m, "tours/link.tour")),
                       "not a plain file"),
    "unsafe bundle name": (lambda pack, out: _rewrite(pack, out, manifest=lambda m: {**m, "bundles": ["../x"]}),
                           "unsafe name"),
    "member not in manifest": (lambda pack, out: _rewrite(pack, out, extra=[("tours/extra.tour", b"x")]),
                               "do not match"),
    "member missing": (lambda pack, out: _rewrite(pack, out, drop=("bundles/mnist_cnn/layers.json",)),
                       "do not match"),
    "damaged bundle": (_bad_bundle_manifest, "bundle 'mnist_cnn'"),
    "bad tour inside": (lambda pack, out: _rewrite(pack, out, drop=("tours/tensor_to_registers.tour",),
                                                   extra=[("tours/tensor_to_registers.tour", BAD_TOUR)]),
                        "tensor_to_registers.tour:"),
    "corrupt data": (lambda pack, out: _corrupt(pack, out), "damaged pack"),
}


def _no_manifest(out: Path) -> Path:
    with zipfile.ZipFile(out) as source:
        members = [(i, source.read(i)) for i in source.infolist() if i.filename != PACK_MANIFEST]
    with zipfile.ZipFile(out, "w") as target:
        for info, data in members:
            target.writestr(info, data)
    return out


def _corrupt(pack: Path, out: Path) -> Path:
    """Flip bytes inside the largest member's compressed data (its CRC no longer matches)."""
    data = bytearray(pack.read_bytes())
    with zipfile.ZipFile(pack) as archive:
        info = max(archive.infolist(), key=lambda i: i.compress_size)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for offset in range(start + 100, start + 110):
        data[offset] ^= 0xFF
    out.write_bytes(bytes(data))
    return out


@pytest.mark.parametrize("case", list(BAD_PACKS), ids=list(BAD_PACKS))
def test_a_bad_pack_is_one_line_exit_2_and_leaves_nothing_unpacked(pack, tmp_path, capsys, case):
    make, message = BAD_PACKS[case]
    bad = make(pack, tmp_path / "bad.twpack")
    cache = Path(os.environ["TENSORWEG_CACHE_DIR"])
    for argv in (["inspect", str(bad), "--level", "layers"], [str(bad)], ["tour", "tensor_to_registers", str(bad)]):
        assert message in _error(capsys, argv)
    assert _unpacked(cache) == []
    assert not (tmp_path / "evil.txt").exists()


def test_pack_refuses_bad_arguments_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "course.twpack"
    assert "twpack" in _error(capsys, ["pack", str(BUNDLE), "-o", str(tmp_path / "course.zip")])
    assert "unknown tour" in _error(capsys, ["pack", str(BUNDLE), "--tours", "nope", "-o", str(out)])
    assert "twice" in _error(capsys, ["pack", str(BUNDLE), "--tours", "basics,basics", "-o", str(out)])
    assert "does not exist" in _error(capsys, ["pack", str(BUNDLE), "-o", str(tmp_path / "no" / "c.twpack")])
    assert list(tmp_path.iterdir()) == []


def test_pack_takes_tour_files_and_opens_them_by_name(tmp_path, capsys, monkeypatch):
    tour = tmp_path / "mine.tour"
    tour.write_text("# title: Mine\n# model: mnist_cnn\n# lang: en\n\nstep: level=layers select=conv2d\ntext: Hi.\n")
    out = tmp_path / "course.twpack"
    assert main(["pack", str(BUNDLE), "--tours", str(tour), "-o", str(out)]) == 0
    from explorer.course.pack import open_pack

    opened = open_pack(out)
    assert opened.tours == ("mine",) and "Hi." in opened.tour_text("mine")
    assert opened.tour().title == "Mine" and opened.tour("other") is None  # `tensorweg course.twpack` starts "Mine"
    # `tensorweg tour mine course.twpack` finds the pack's tour (then wants a terminal).
    assert "needs a terminal" in _error(capsys, ["tour", "mine", str(out)])


@pytest.mark.e2e
def test_pack_captures_a_model_it_is_given(tmp_path, capsys):
    """`tensorweg pack mlp --targets cpu` compiles mlp first, then packs it with the lesson written for it."""
    out = tmp_path / "mlp.twpack"
    assert main(["pack", "mlp", "--targets", "cpu", "--tours", "basics", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["inspect", str(out), "--level", "optimized-hlo"]) == 0
    assert "dot" in capsys.readouterr().out
    from explorer.course.pack import open_pack

    assert open_pack(out).tour("basics").model == "mlp"


def test_pack_refuses_a_lesson_whose_capture_no_packed_bundle_has(tmp_path, capsys):
    """The four-chip lesson selects in mlp's training step on a 2x2 mesh: an inference bundle of
    mnist_cnn would open it with nothing to select, so the pack says which capture to add."""
    out = tmp_path / "course.twpack"
    err = _error(capsys, ["pack", str(BUNDLE), "--tours", "tensor_to_registers,four_chips", "-o", str(out)])
    assert err.startswith("error: --tours four_chips: no packed bundle has the capture it needs "
                          "(mlp --mode train --optimizer sgd --mesh 2x2 --shard model --batch 8)")
    assert "`tensorweg capture mlp --mode train --optimizer sgd --mesh 2x2 --shard model --batch 8 " \
           "--targets tpu:v5e`" in err
    # the two-compiler lesson visits tvm:cpu, which the recorded bundle has not captured
    assert "(--targets tvm:cpu)" in _error(capsys, ["pack", str(BUNDLE), "--tours", "two_compilers", "-o", str(out)])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.e2e
def test_a_packed_lesson_opens_on_the_bundle_with_its_capture(tmp_path, capsys):
    """Packed beside the capture its header names, the four-chip lesson opens on that bundle
    (`tensorweg tour four_chips course.twpack`), not on the pack's first one."""
    from explorer.course.pack import bundle_argument, open_pack
    from explorer.course.tours import builtin_tour

    chips = tmp_path / "chips"
    assert main(["capture", "mlp", "--mode", "train", "--optimizer", "sgd", "--mesh", "2x2", "--shard", "model",
                 "--batch", "8", "--targets", "tpu:v5e", "-o", str(chips)]) == 0
    out = tmp_path / "course.twpack"
    assert main(["pack", str(BUNDLE), str(chips), "--tours", "tensor_to_registers,four_chips", "-o", str(out)]) == 0
    capsys.readouterr()
    pack = open_pack(out)
    assert bundle_argument(str(out), builtin_tour("four_chips")) == pack.bundle_path(pack.bundles[1])
    assert bundle_argument(str(out), builtin_tour("tensor_to_registers")) == bundle_argument(str(out)) \
        == pack.bundle_path(pack.bundles[0])


# --- limits: files in a pack, bytes of the unpacked packs in the cache ---------------------------


def test_a_pack_with_more_files_than_allowed_is_refused_before_unpacking(pack, monkeypatch, capsys):
    """`serve --max-pack-members` (default MAX_MEMBERS): a zip of a million empty files fills inodes."""
    from screens.serve import command as serve_module

    monkeypatch.setattr(serve_module, "_server_class", lambda: pytest.fail("must not listen"))
    cache = Path(os.environ["TENSORWEG_CACHE_DIR"])
    with zipfile.ZipFile(pack) as archive:
        files = len(archive.namelist()) - 1  # and the manifest
    error = _error(capsys, ["serve", str(pack), "--max-pack-members", str(files - 1)])
    assert error == f"error: course.twpack: refused: {files} files in the pack (at most {files - 1})\n"
    assert _unpacked(cache) == []
    monkeypatch.setattr(serve_module, "_server_class", lambda: _NoServer)
    assert main(["serve", str(pack), "--max-pack-members", str(files)]) == 0  # as many is fine
    assert len(_unpacked(cache)) == 1


class _NoServer:
    """Stands in for serve's server: nothing listens."""

    def __init__(self, *_args, **_kwargs) -> None:
        pass

    def serve(self) -> None:
        pass


def test_a_pack_that_would_take_the_cache_past_its_disk_limit_is_refused(pack, tmp_path, monkeypatch, capsys):
    from screens.serve import command as serve_module

    monkeypatch.setattr(serve_module, "_server_class", lambda: pytest.fail("must not listen"))
    cache = Path(os.environ["TENSORWEG_CACHE_DIR"])
    other = tmp_path / "other.twpack"
    assert main(["pack", str(BUNDLE), "--tours", "tensor_to_registers", "-o", str(other)]) == 0
    assert main(["inspect", str(other), "--level", "layers"]) == 0  # one pack unpacked already
    capsys.readouterr()
    (unpacked,) = _unpacked(cache)
    used = sum(f.stat().st_size for f in (cache / "packs" / unpacked).rglob("*") if f.is_file())
    with zipfile.ZipFile(pack) as archive:
        size = sum(info.file_size for info in archive.infolist())
    limit = (used + size - 1) / (1 << 30)  # one byte short of room for both
    error = _error(capsys, ["serve", str(pack), "--max-pack-disk", repr(limit)])
    assert error.startswith(f"error: course.twpack: refused: it unpacks to {size:,} bytes and the packs unpacked "
                            f"in the cache take {used:,} of at most {used + size - 1:,}; delete the ones no longer "
                            "needed in ")
    assert _unpacked(cache) == [unpacked]


# --- which lesson a pack starts (issue 39, item 1) ------------------------------------------------


class _AppRecorder:
    """Stands in for screens.app.create_app's app: the lesson and language `tensorweg PACK` opens with."""

    opened: list = []
    failure = None
    return_code = 0

    def __init__(self, **kwargs):
        _AppRecorder.opened.append(kwargs)

    def run(self):
        pass


def _opened_tour(monkeypatch, argv: list[str], locale: str = "en_GB.UTF-8"):
    """Run `tensorweg ARGV` (open, tour, or a serve tab's command) up to the app it builds: (tour, lang)."""
    import screens.app
    import screens.cli

    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", locale)
    monkeypatch.setattr(screens.cli, "_require_terminal", lambda: None)
    monkeypatch.setattr(screens.app, "create_app", _AppRecorder)
    _AppRecorder.opened.clear()
    assert main(argv) == 0
    (opened,) = _AppRecorder.opened
    return opened["tour"], opened["lang"]


def test_a_pack_opens_the_lesson_in_the_languages_of_the_ui(pack, tmp_path, monkeypatch):
    """The pack lists `tensor_bis_register` before `tensor_to_registers` (alphabetically, as `pack`
    without --tours writes them): an English UI starts the English twin, a German one the German."""
    default = tmp_path / "default.twpack"
    assert main(["pack", str(BUNDLE), "-o", str(default)]) == 0
    from explorer.course.pack import open_pack

    assert open_pack(default).tours[0] == "tensor_bis_register"
    for course in (pack, default):
        tour, lang = _opened_tour(monkeypatch, [str(course)])
        assert (tour.lang, tour.title, lang) == ("en", "A tensor's way down to the registers", "en")
        tour, lang = _opened_tour(monkeypatch, ["open", str(course), "--lang", "en"], locale="de_DE.UTF-8")
        assert (tour.lang, lang) == ("en", "en")
        tour, lang = _opened_tour(monkeypatch, [str(course)], locale="de_DE.UTF-8")
        assert (tour.title, lang) == ("Ein Tensor auf dem Weg bis in die Register", "de")
        tour, lang = _opened_tour(monkeypatch, ["open", str(course), "--lang", "de"])
        assert (tour.lang, lang) == ("de", "de")


def test_pack_says_which_bundles_and_tours_went_in(tmp_path, capsys):
    """`tensorweg pack` prints the pack, then each bundle and each tour it packed (name, language,
    title), so the instructor sees which lessons a learner can start; none is said too."""
    out = tmp_path / "course.twpack"
    assert main(["pack", str(BUNDLE), "-o", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        str(out), "  bundle mnist_cnn",
        "  tour tensor_bis_register (de): Ein Tensor auf dem Weg bis in die Register",
        "  tour tensor_to_registers (en): A tensor's way down to the registers"]
    assert main(["pack", str(BUNDLE), "--no-tours", "-o", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == [str(out), "  bundle mnist_cnn", "  no tours"]
    one_chip = FIXTURES / "bundles" / "mlp_one_chip"  # no built-in lesson is written for its capture
    assert main(["pack", str(one_chip), str(BUNDLE), "--no-tours", "-o", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[1:3] == ["  bundle mlp", "  bundle mnist_cnn"]
    assert main(["pack", str(one_chip), "-o", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[2] == (
        "  no tours: no built-in lesson is written for these bundles' capture (--tours adds a tour file)")


def test_a_pack_of_one_language_opens_its_lesson_in_either_ui(tmp_path, monkeypatch):
    """A pack with only the German lesson has no English twin: an English UI still starts it."""
    out = tmp_path / "de.twpack"
    assert main(["pack", str(BUNDLE), "--tours", "tensor_bis_register", "-o", str(out)]) == 0
    tour, lang = _opened_tour(monkeypatch, [str(out)])
    assert (tour.lang, lang) == ("de", "en")


def test_tour_lang_picks_the_twin_of_a_packed_or_built_in_lesson(pack, monkeypatch):
    """`tensorweg tour tensor_bis_register course.twpack --lang en` is the English twin; without
    --lang the lesson named is the lesson opened."""
    tour, _ = _opened_tour(monkeypatch, ["tour", "tensor_bis_register", str(pack), "--lang", "en"])
    assert tour.title == "A tensor's way down to the registers"
    tour, _ = _opened_tour(monkeypatch, ["tour", "tensor_to_registers", str(BUNDLE), "--lang", "de"])
    assert tour.lang == "de"
    tour, _ = _opened_tour(monkeypatch, ["tour", "tensor_bis_register", str(pack)])
    assert tour.lang == "de"


def test_every_served_tab_starts_the_lesson_in_the_servers_language(pack, monkeypatch):
    """`tensorweg serve course.twpack`: each tab runs the command serve hands textual-serve; run here
    as the tab would, it starts the lesson in the language serve names (the locale's, or --lang)."""
    import shlex

    from screens.serve import command as serve_module

    from tests.serve_support import ServerRecorder

    monkeypatch.setattr(serve_module, "_server_class", lambda: ServerRecorder)
    for serve_argv, locale, lang in ((["serve", str(pack)], "en_US.UTF-8", "en"),
                                     (["serve", str(pack)], "de_AT.UTF-8", "de"),
                                     (["serve", str(pack), "--lang", "en"], "de_DE.UTF-8", "en")):
        monkeypatch.setenv("LANG", locale)
        ServerRecorder.calls.clear()
        assert main(serve_argv) == 0
        tab = shlex.split(ServerRecorder.calls[-1].command)
        tour, shown = _opened_tour(monkeypatch, tab[tab.index("open"):], locale=locale)
        assert (tour.lang, shown) == (lang, lang)
