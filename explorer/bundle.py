"""Reading a capture bundle (layout: docs/architecture.md).

`Bundle` is what the CLI's `inspect` and the UI read. It never imports a
compiler: parsed data comes from the bundle's JSON files, loaded lazily and
cached, so opening a bundle costs one small JSON read (the manifest).
A bundle that is still being written (a staging directory during capture)
can be read too: missing files read as "not captured yet".
"""

from __future__ import annotations

import json
from functools import cached_property, lru_cache
from pathlib import Path

from explorer.errors import TensorwegError
from explorer.hlo.model import HloModule
from explorer.levels import LEVELS, TARGET_LEVELS
from explorer.records import (
    CostAnalysis,
    GraphLevel,
    KernelRecord,
    LayerRecord,
    LevelStatus,
    Manifest,
    MemoryLevel,
)
from explorer.serial import from_jsonable, load_json

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"


def target_dirname(target: str) -> str:
    """`gpu:h100` -> `gpu-h100` (a target name made safe for paths)."""
    return target.replace(":", "-")


def is_bundle(path: Path) -> bool:
    return (path / MANIFEST).is_file()


class Bundle:
    """A capture bundle on disk."""

    def __init__(self, path: Path, manifest: Manifest | None = None) -> None:
        self.path = Path(path)
        self._manifest = manifest

    @classmethod
    def open(cls, path: Path) -> "Bundle":
        path = Path(path)
        manifest_path = path / MANIFEST
        if not manifest_path.is_file():
            raise TensorwegError(f"{path.name}: not a tensorweg bundle (no {MANIFEST})")
        try:
            raw = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise TensorwegError(f"{path.name}: unreadable manifest ({exc.__class__.__name__})") from None
        version = raw.get("schema_version") if isinstance(raw, dict) else None
        if version != SCHEMA_VERSION:
            raise TensorwegError(
                f"{path.name}: bundle schema {version!r} is not the supported {SCHEMA_VERSION}; capture again"
            )
        return cls(path, from_jsonable(Manifest, raw))

    # --- identity and status ------------------------------------------------

    @property
    def manifest(self) -> Manifest:
        if self._manifest is None:
            self._manifest = Bundle.open(self.path).manifest
        return self._manifest

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

    def log_text(self) -> str:
        return self._read_text(self.path / "capture.log")

    # --- target-independent levels ------------------------------------------

    @cached_property
    def layers(self) -> tuple[LayerRecord, ...]:
        path = self.path / "layers.json"
        return tuple(load_json(list[LayerRecord], path)) if path.is_file() else ()

    @cached_property
    def graph(self) -> GraphLevel | None:
        path = self.path / "graph.json"
        return load_json(GraphLevel, path) if path.is_file() else None

    @cached_property
    def scopes(self) -> dict[str, dict[str, str]]:
        """{"graph": {scope: layer}, "<target>": {scope: layer}} merged from the bundle."""
        scopes: dict[str, dict[str, str]] = {}
        path = self.path / "scopes.json"
        if path.is_file():
            scopes.update(json.loads(path.read_text(encoding="utf-8")))
        for target in self.targets:
            target_path = self.target_dir(target) / "scopes.json"
            if target_path.is_file():
                scopes[target] = json.loads(target_path.read_text(encoding="utf-8"))
        return scopes

    @cached_property
    def index(self):
        """The cross-level index (explorer.index.CrossIndex), built from the bundle's data."""
        try:
            from explorer.index import build_index
        except ImportError:  # the index module is optional for reading a bundle
            return None
        modules = {}
        for target in self.targets:
            for level, optimized in (("hlo", False), ("optimized-hlo", True)):
                module = self.hlo_module(target, optimized)
                if module is not None:
                    modules[(target, level)] = module
        kernels = {target: list(self.kernels(target)) for target in self.targets}
        return build_index(list(self.layers), self.graph, self.scopes, modules, kernels)

    # --- per-target levels ----------------------------------------------------

    def target_dir(self, target: str) -> Path:
        return self.path / "targets" / target_dirname(target)

    def hlo_text(self, target: str, optimized: bool = False) -> str:
        name = "optimized_hlo.txt" if optimized else "hlo.txt"
        return self._read_text(self.target_dir(target) / name)

    def hlo_module(self, target: str, optimized: bool = False) -> HloModule | None:
        return self._load_module(target, optimized)

    def memory(self, target: str) -> MemoryLevel | None:
        return self._load_memory(target)

    def kernels(self, target: str) -> tuple[KernelRecord, ...]:
        return self._load_kernels(target)

    def cost(self, target: str) -> CostAnalysis | None:
        path = self.target_dir(target) / "cost.json"
        return load_json(CostAnalysis, path) if path.is_file() else None

    def raw_file(self, target: str, name: str) -> str:
        """A raw (normalised) artifact such as `buffer_assignment.txt`; "" if absent."""
        return self._read_text(self.target_dir(target) / name)

    # --- helpers ----------------------------------------------------------------

    @lru_cache(maxsize=16)
    def _load_module(self, target: str, optimized: bool) -> HloModule | None:
        stem = "optimized_hlo" if optimized else "hlo"
        json_path = self.target_dir(target) / f"{stem}.json"
        if json_path.is_file():
            return load_json(HloModule, json_path)
        return None

    @lru_cache(maxsize=16)
    def _load_memory(self, target: str) -> MemoryLevel | None:
        # The UI asks on every key press; a ResNet's memory.json takes a while to parse.
        path = self.target_dir(target) / "memory.json"
        return load_json(MemoryLevel, path) if path.is_file() else None

    @lru_cache(maxsize=16)
    def _load_kernels(self, target: str) -> tuple[KernelRecord, ...]:
        path = self.target_dir(target) / "kernels.json"
        return tuple(load_json(list[KernelRecord], path)) if path.is_file() else ()

    @staticmethod
    def _read_text(path: Path) -> str:
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
