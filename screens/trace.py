"""Moving one item up and down the levels (the vertical trace).

The real linking lives in `explorer.index` (CrossIndex, owned by the core).
Until that module is importable, `ScopeTrace` gives the same five calls from
the rules in docs/architecture.md (longest scope prefix -> layer, equal
`op_name` graph -> HLO -> optimized HLO, `KernelRecord.hlo` -> kernel), so
the UI works either way; `source` says which one is in use.
"""

from __future__ import annotations

import json
from functools import cached_property
from typing import Protocol

from explorer.bundle import Bundle
from explorer.errors import TensorwegError
from explorer.hlo.model import HloModule

NEXT_DOWN = {"layers": "graph", "graph": "hlo", "hlo": "optimized-hlo", "optimized-hlo": "kernels"}
NEXT_UP = {v: k for k, v in NEXT_DOWN.items()}


class Trace(Protocol):
    source: str

    def layer_of(self, level: str, name: str, target: str) -> str: ...
    def items_for_layer(self, layer: str, level: str, target: str) -> list[str]: ...
    def down(self, level: str, name: str, target: str) -> list[str]: ...
    def up(self, level: str, name: str, target: str) -> list[str]: ...
    def created_by_compiler(self, level: str, target: str) -> set[str]: ...


def build_trace(bundle: Bundle) -> Trace:
    """CrossIndex from explorer.index when available, else the scope-rule fallback."""
    try:
        from explorer.index import build_index  # noqa: PLC0415 (optional while being written)
    except ImportError:
        return ScopeTrace(bundle)
    try:
        index = build_index(bundle)
    except Exception:  # noqa: BLE001 (a broken index must not take the UI down)
        return ScopeTrace(bundle)
    index.source = "explorer.index"
    return index


def _longest_prefix(name: str, scopes: dict[str, str]) -> str:
    best, layer = -1, ""
    for scope, scope_layer in scopes.items():
        if (name == scope or name.startswith(scope + "/")) and len(scope) > best:
            best, layer = len(scope), scope_layer
    return layer


class ScopeTrace:
    """Fallback linker following the documented scope rules (see module doc)."""

    source = "scope rules (explorer.index not available)"

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self._memo: dict[tuple[str, str, str], dict[str, str]] = {}

    def _cached(self, what: str, level: str, target: str, build) -> dict[str, str]:
        key = (what, level, target)
        if key not in self._memo:
            self._memo[key] = build(level, target)
        return self._memo[key]

    # --- per level lookups, built once ------------------------------------

    @cached_property
    def _graph_layer(self) -> dict[str, str]:
        graph = self.bundle.graph
        scopes = self._scopes.get("graph", {})
        if graph is None:
            return {}
        return {op.name: op.layer or _longest_prefix(op.name, scopes) for op in graph.ops}

    def _module(self, level: str, target: str) -> HloModule | None:
        return self.bundle.hlo_module(target, optimized=level == "optimized-hlo")

    def _op_names(self, level: str, target: str) -> dict[str, str]:
        return self._cached("op_names", level, target, self._build_op_names)

    def _enclosing(self, level: str, target: str) -> dict[str, str]:
        return self._cached("enclosing", level, target, self._build_enclosing)

    def _hlo_layers(self, level: str, target: str) -> dict[str, str]:
        """instruction -> layer, computed once per level and target (keeps key presses fast)."""
        def build(level: str, target: str) -> dict[str, str]:
            return {n: self._scope_layer(op, target) if op else "" for n, op in self._op_names(level, target).items()}
        return self._cached("layers", level, target, build)

    def _build_op_names(self, level: str, target: str) -> dict[str, str]:
        """instruction -> its metadata op_name ("" when the compiler made it up)."""
        module = self._module(level, target)
        if module is None:
            return {}
        return {ins.name: ins.metadata.op_name for _, ins in module.all_instructions()}

    def _build_enclosing(self, level: str, target: str) -> dict[str, str]:
        """instruction inside a called computation -> the entry instruction calling it."""
        module = self._module(level, target)
        if module is None or module.entry is None:
            return {}
        owner: dict[str, str] = {}

        def walk(computation_name: str, caller: str) -> None:
            computation = module.computation(computation_name)
            if computation is None:
                return
            for ins in computation.instructions:
                owner[ins.name] = caller
                for called in ins.called_computations:
                    walk(called, caller)

        for ins in module.entry.instructions:
            owner[ins.name] = ins.name
            for called in ins.called_computations:
                walk(called, ins.name)
        return owner

    @cached_property
    def _scopes(self) -> dict[str, dict[str, str]]:
        try:
            return self.bundle.scopes
        except TensorwegError:  # a staging directory has no manifest yet: graph scopes only
            path = self.bundle.path / "scopes.json"
            return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}

    def _hlo_from_tf(self, target: str) -> bool:
        """Whether this target's HLO came from the TF graph (op_names are TF op names)."""
        ops = set(self._graph_layer)
        return any(op in ops for op in self._op_names("hlo", target).values())

    def _scope_layer(self, op_name: str, target: str) -> str:
        scopes = {**self._scopes.get("graph", {}), **self._scopes.get(target, {})}
        layer = _longest_prefix(op_name, scopes)
        if layer:
            return layer
        return self._graph_layer.get(op_name, "")

    # --- the Trace calls -----------------------------------------------------

    def layer_of(self, level: str, name: str, target: str) -> str:
        if level == "layers":
            return name
        if level == "graph":
            return self._graph_layer.get(name, "")
        if level in ("hlo", "optimized-hlo"):
            return self._hlo_layers(level, target).get(name, "")
        if level == "kernels":
            for kernel in self.bundle.kernels(target):
                if kernel.name == name:
                    for hlo in kernel.hlo:
                        if layer := self.layer_of("optimized-hlo", hlo, target):
                            return layer
        return ""

    def items_for_layer(self, layer: str, level: str, target: str) -> list[str]:
        if level == "layers":
            return [layer]
        if level == "graph":
            return [op for op, op_layer in self._graph_layer.items() if op_layer == layer]
        if level in ("hlo", "optimized-hlo"):
            return [n for n, n_layer in self._hlo_layers(level, target).items() if n_layer == layer]
        if level == "kernels":
            return [k.name for k in self.bundle.kernels(target) if self.layer_of("kernels", k.name, target) == layer]
        return []

    def down(self, level: str, name: str, target: str) -> list[str]:
        if level == "layers":
            if self.bundle.graph is not None:
                return self.items_for_layer(name, "graph", target)
            return self.items_for_layer(name, "hlo", target)
        if level == "graph":
            found = [n for n, op in self._op_names("hlo", target).items() if op == name or op.startswith(name + "/")]
            if found or self._hlo_from_tf(target):
                return found
            # Keras-on-JAX targets never saw the TF graph: their HLO links to layers only.
            layer = self._graph_layer.get(name, "")
            return self.items_for_layer(layer, "hlo", target) if layer else []
        if level == "hlo":
            op_name = self._op_names("hlo", target).get(name, "")
            if not op_name:
                return []
            owner = self._enclosing("optimized-hlo", target)
            found = [n for n, op in self._op_names("optimized-hlo", target).items() if op == op_name]
            return list(dict.fromkeys(owner.get(n, n) for n in found))
        if level == "optimized-hlo":
            entry = self._enclosing("optimized-hlo", target).get(name, name)
            return [k.name for k in self.bundle.kernels(target) if entry in k.hlo or name in k.hlo]
        return []

    def up(self, level: str, name: str, target: str) -> list[str]:
        if level == "graph":
            layer = self.layer_of("graph", name, target)
            return [layer] if layer else []
        if level == "hlo":
            op_name = self._op_names("hlo", target).get(name, "")
            ops = [op for op in self._graph_layer if op_name and (op_name == op or op_name.startswith(op + "/"))]
            return ops or ([layer] if (layer := self.layer_of("hlo", name, target)) else [])
        if level == "optimized-hlo":
            op_names = {op for n, op in self._op_names("optimized-hlo", target).items()
                        if self._enclosing("optimized-hlo", target).get(n) == name and op}
            return [n for n, op in self._op_names("hlo", target).items() if op in op_names]
        if level == "kernels":
            for kernel in self.bundle.kernels(target):
                if kernel.name == name:
                    return list(kernel.hlo)
        return []

    def created_by_compiler(self, level: str, target: str) -> set[str]:
        if level not in ("hlo", "optimized-hlo"):
            return set()
        return {n for n, layer in self._hlo_layers(level, target).items() if not layer}
