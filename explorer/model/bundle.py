"""Reading a capture bundle (layout: docs/architecture.md).

`Bundle` is what the CLI's `inspect` and the UI read. It never imports a
compiler: parsed data comes from the bundle's JSON files, loaded lazily and
cached, so opening a bundle costs one small JSON read (the manifest).
A bundle that is still being written (a staging directory during capture)
can be read too: missing files read as "not captured yet".
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

from explorer.errors import BundleError, DataError, ParseError
from explorer.levels import GRAPH, KERNELS, LAYERS, MEMORY, TARGET_LEVELS, hlo_level, level_named
from explorer.model.built import about_to_read
from explorer.model.graph_file import load_graph_level
from explorer.model.records import (
    CostAnalysis,
    GraphLevel,
    KernelRecord,
    LayerRecord,
    LevelStatus,
    Manifest,
    MemoryLevel,
)
from explorer.model.serial import from_jsonable, load_json
from explorer.targets import TARGETS, target_dirname

if TYPE_CHECKING:  # start-up: the HLO data model loads with the first module parsed, TVM's with its program
    from explorer.hlo.model import HloModule
    from explorer.model.tvm_program import TvmProgram

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
T = TypeVar("T")
_MISSING = object()  # a cache slot not read yet (None is a value: "not captured")


def is_bundle(path: Path) -> bool:
    return (path / MANIFEST).is_file()


class Bundle:
    """A capture bundle on disk.

    Parsed data is kept per bundle object (one entry per file, so the cache is
    bounded by the bundle's size). A damaged file raises `DataError` naming it;
    a file that is not there reads as "not captured".
    """

    def __init__(self, path: Path, manifest: Manifest | None = None,
                 parsed: dict[tuple[str, str], object] | None = None) -> None:
        self.path = Path(path)
        self._manifest = manifest
        self._parsed: dict[tuple[str, str], object] = dict(parsed or {})
        # One lock per file: the UI thread asking for what the open worker is reading waits for
        # that read instead of parsing the same module a second time beside it.
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._locks_lock = threading.Lock()

    @classmethod
    def open(cls, path: Path) -> Bundle:
        path = Path(path)
        return cls(path, read_manifest(path))

    def after_level(self, level: str, target: str = "") -> Bundle:
        """A reader of the same (growing) directory once `level` of `target` is written.

        What this reader parsed before is kept, except that level's files and what is
        derived from them; the new level is read now, on the caller's thread (a capture's
        worker thread), so the UI thread gets it ready to show.
        """
        parsed = dict(self._parsed)  # one C-level copy: the UI thread may be adding to the original
        manifest = read_manifest(self.path) if is_bundle(self.path) else None
        fresh = Bundle(self.path, manifest,
                       {key: value for key, value in parsed.items() if not _belongs_to(key, level, target)})
        fresh.load_level(level, target)
        return fresh

    def load_level(self, level: str, target: str = "") -> None:
        """Parse `level` (of `target`) now, so later reads are cache hits."""
        # The properties parse and cache on first read; the values themselves are not needed here.
        this = level_named(level)
        if this.lists_layers:
            _ = self.layers
        elif this.lists_ops:
            _ = self.graph, self.scopes
        elif this.is_hlo:
            _ = self.hlo_module(target, this.optimized), self.scopes
        elif this.lists_kernels:
            self.kernels(target)
        elif this.maps_buffers:
            _ = self.memory(target), self.cost(target)

    # --- identity and status ------------------------------------------------

    @property
    def manifest(self) -> Manifest:
        if self._manifest is None:
            self._manifest = read_manifest(self.path)
        return self._manifest

    def has_manifest(self) -> bool:
        """Whether the bundle is finished: a capture's staging reader has no manifest until it ends."""
        return self._manifest is not None or is_bundle(self.path)

    @property
    def model_name(self) -> str:
        return self.manifest.model.name

    @property
    def targets(self) -> tuple[str, ...]:
        return self.manifest.options.targets

    def status(self, level: str, target: str = "") -> LevelStatus:
        """Status of a level; target-independent levels (layers, graph) ignore `target`."""
        if level in TARGET_LEVELS:
            return self.manifest.status(level, target)
        return self.manifest.status(level, "")

    # --- target-independent levels ------------------------------------------

    @property
    def layers(self) -> tuple[LayerRecord, ...]:
        return self._cached("layers", "", lambda: tuple(self._load(list[LayerRecord], LAYERS.file) or ()))

    @property
    def graph(self) -> GraphLevel | None:
        return self._cached("graph", "", lambda: self._load(GraphLevel, GRAPH.file))

    @property
    def scopes(self) -> dict[str, dict[str, str]]:
        """{"graph": {scope: layer}, "<target>": {scope: layer}} merged from the bundle."""
        return self._cached("scopes", "", self._read_scopes)

    def _read_scopes(self) -> dict[str, dict[str, str]]:
        scopes: dict[str, dict[str, str]] = dict(self._load(dict[str, dict[str, str]], "scopes.json") or {})
        for target in self.targets:
            own = self._load(dict[str, str], f"targets/{target_dirname(target)}/scopes.json")
            if own is not None:
                scopes[target] = own
        return scopes

    @property
    def index(self):
        """The cross-level index (explorer.model.index.CrossIndex), built from the bundle's data."""
        return self._cached("index", "", self._build_index)

    def _build_index(self):
        from explorer.model.index_build import LazyIndex  # noqa: PLC0415 (the index is only needed once a screen asks)

        # Each target's modules are read and linked when a query first names that target.
        return LazyIndex(list(self.layers), lambda: self.graph, self.scopes, self.targets,
                         self.hlo_module, self.kernels, self._variable_paths)

    def _variable_paths(self, target: str):
        """The step's variables (train mode or a mesh), which say whose each weight parameter is."""
        from explorer.model.training import STEP_FILE, StepLayout, variable_paths  # noqa: PLC0415 (only a train step needs it)

        return variable_paths(self._load(StepLayout, f"targets/{target_dirname(target)}/{STEP_FILE}"))

    # --- per-target levels ----------------------------------------------------

    def target_dir(self, target: str) -> Path:
        return self.path / "targets" / target_dirname(target)

    def hlo_text(self, target: str, optimized: bool = False) -> str:
        """The module's text ("" when not captured), read once: the code view and the parser share it."""
        level = hlo_level(optimized)
        return self._cached(f"{level.name} text", target, lambda: self._read_text(self.target_dir(target) / level.file))

    def hlo_module(self, target: str, optimized: bool = False) -> HloModule | None:
        return self._cached(hlo_level(optimized).name, target, lambda: self._read_module(target, optimized))

    def _read_module(self, target: str, optimized: bool) -> HloModule | None:
        """The module parsed from its text (None when the level has no text: not captured).

        Bundles written before the text was the only record also hold `<stem>.json`, the parsed
        module; it is not read: the text parses about four times faster than the JSON decodes
        (a 30,000-instruction module in 0.5 s rather than 2.3 s).
        """
        from explorer.hlo.parser import parse_module  # noqa: PLC0415 (with the first module read)

        spec = TARGETS.get(target)
        if spec is not None and spec.compiler != "xla":
            return None  # e.g. TVM's Relax: its text is in the same file, but it is not HLO
        level = hlo_level(optimized)
        text = self.hlo_text(target, optimized)
        if not text:
            # Captured, then the text went missing (a staging bundle has no manifest yet: not captured).
            if (self.path / MANIFEST).is_file() and self.status(level.name, target).status == "ok":
                raise DataError(f"{self._target_file(target, level.file)}: missing")
            return None
        try:
            return parse_module(text)
        except ParseError as exc:
            raise DataError(f"{self._target_file(target, level.file)}: {exc}") from None

    def memory(self, target: str) -> MemoryLevel | None:
        # The UI asks on every key press; a ResNet's memory.json takes a while to parse.
        return self._cached("memory", target, lambda: self._load(MemoryLevel, self._target_file(target, MEMORY.file)))

    def kernels(self, target: str) -> tuple[KernelRecord, ...]:
        return self._cached("kernels", target, lambda: tuple(
            self._load(list[KernelRecord], self._target_file(target, KERNELS.file)) or ()))

    def cost(self, target: str) -> CostAnalysis | None:
        return self._cached("cost", target, lambda: self._load(CostAnalysis, self._target_file(target, "cost.json")))

    def passes(self, target: str):
        """The target's filmstrip (`explorer.model.passes.Filmstrip`), or None without `--passes`;
        target "grappler": the TensorFlow graph after each Grappler optimizer."""
        def load():
            from explorer.model.passes import read_filmstrip  # noqa: PLC0415 (only the filmstrip needs it)
            from explorer.model.passes_grappler import GRAPPLER, read_grappler_filmstrip  # noqa: PLC0415 (only the filmstrip needs it)

            if target == GRAPPLER:  # the TensorFlow graph's film: one per bundle, not per target
                return read_grappler_filmstrip(self.path)
            memory = self.memory(target)
            temp = sum(a.size for a in memory.allocations if "temp" in a.kind) if memory else None
            return read_filmstrip(self.target_dir(target), temp)

        # "Not there" is not kept: during a capture the passes are written after the levels.
        strip = self._parsed.get(("passes", target))
        if strip is None and (strip := load()) is not None:
            self._parsed[("passes", target)] = strip
        return strip

    def tvm_program(self, target: str) -> TvmProgram | None:
        """The TVM program of a `tvm:*` target (its Relax bindings and TIR functions), or None when it
        was not captured (read on each call, as before the level is written it is not there)."""
        from explorer.model.tvm_program import TVM_PROGRAM_FILE, TvmProgram  # noqa: PLC0415 (start-up: only a TVM target reads it)

        return self._load(TvmProgram, self._target_file(target, TVM_PROGRAM_FILE))

    # --- helpers ----------------------------------------------------------------

    def _cached(self, kind: str, target: str, load: Callable[[], T]) -> T:
        # The casts: a key's slot holds what that key's `load` returned (one load per kind of value).
        key = (kind, target)
        found = self._parsed.get(key, _MISSING)
        if found is not _MISSING:
            return cast(T, found)
        about_to_read(f"{kind} {target}".strip())  # the UI thread asks for what is read only (explorer.model.built)
        with self._locks_lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:  # a load never asks for its own key, so one lock per key cannot deadlock
            if key not in self._parsed:
                self._parsed[key] = load()
            return cast(T, self._parsed[key])

    @staticmethod
    def _target_file(target: str, name: str) -> str:
        return f"targets/{target_dirname(target)}/{name}"

    def _load(self, cls: type[T], relative: str) -> T | None:
        """`relative` parsed as `cls`, or None when the file is not there (not captured)."""
        path = self.path / relative
        if not path.is_file():
            return None
        if cls is GraphLevel:  # its lines are kept once in a table (explorer.model.graph_file)
            return cast(T, load_graph_level(path, relative))  # T is GraphLevel here
        return load_json(cls, path, relative)

    def _read_text(self, path: Path) -> str:
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
        except (OSError, UnicodeDecodeError) as exc:
            where = path.relative_to(self.path).as_posix()
            raise DataError(f"{where}: unreadable ({exc.__class__.__name__})") from None


# What a finished level makes stale in a reader: its own files and what is derived from them.
_DERIVED = {"layers": ("layers",), "graph": ("graph", "scopes"), "hlo": ("scopes",)}


def _belongs_to(key: tuple[str, str], level: str, target: str) -> bool:
    kind, key_target = key
    if kind == "index":
        return True
    if kind in _DERIVED.get(level, ()):
        return True
    if level_named(level).maps_buffers and kind == "cost":  # the cost analysis comes with the buffers
        return key_target == target
    return kind.split(" ", 1)[0] == level and key_target == target  # a level and its text


def read_manifest(path: Path) -> Manifest:
    """The manifest of the bundle at `path`, checked; BundleError/DataError (one line) when unusable."""
    manifest_path = path / MANIFEST
    if not manifest_path.is_file():
        raise BundleError(f"{path.name}: not a tensorweg bundle (no {MANIFEST})")
    try:
        raw = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise BundleError(f"{path.name}: unreadable manifest ({exc.__class__.__name__})") from None
    version = raw.get("schema_version") if isinstance(raw, dict) else None
    if version != SCHEMA_VERSION:
        raise BundleError(
            f"{path.name}: bundle schema {version!r} is not the supported {SCHEMA_VERSION}; capture again"
        )
    try:
        manifest = from_jsonable(Manifest, raw)
    except DataError as exc:
        raise BundleError(f"{path.name}: damaged manifest: {exc}") from None
    # Target names become paths inside the bundle: only known names are read.
    unknown = [t for t in manifest.options.targets if t not in TARGETS]
    unknown += [t for t, _level, _status in manifest.levels if t and t not in TARGETS]
    if unknown:
        raise BundleError(f"{path.name}: damaged manifest: unknown target {unknown[0]!r}")
    return manifest
