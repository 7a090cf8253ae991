"""The compile targets tensorweg knows: the table (explorer/targets/table.py) and what is read from it.

No compiler is imported here: the UI and the CLI read this registry, and only the
capture workers turn a `TargetSpec` into a compile-only device. Every fact about a target
is in its row, each published figure once with the page it was read from
(explorer/targets/figures.py says how the vendors' words become bytes and FLOP/s).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from explorer.errors import TensorwegError
from explorer.targets.gpu import SmLimits, config_text
from explorer.targets.spec import Interconnect, TargetSpec
from explorer.targets.table import AOT_INSTALL_HINT, DEFAULT_TARGETS, TARGETS, TVM_INSTALL_HINT, TVM_MODULES

# What the rest of tensorweg imports from here; the figures' own types live in explorer.targets.figures.
__all__ = ["AOT_INSTALL_HINT", "DEFAULT_TARGETS", "DEVICE_KINDS", "MESH_TARGETS", "TARGETS", "TOUR_TARGETS",
           "TVM_INSTALL_HINT", "TVM_MODULES", "DeviceTab", "Interconnect", "SmLimits", "TargetSpec"]

# Which targets a tour's `target=` may name (explorer.course.tours.parser): the table says.
TOUR_TARGETS: tuple[str, ...] = tuple(name for name, spec in TARGETS.items() if spec.in_tours)
# Which targets `--mesh` compiles for: those whose chip has a published interconnect (TPU slices, GPU boxes).
MESH_TARGETS: tuple[str, ...] = tuple(name for name, spec in TARGETS.items() if spec.interconnect is not None)
# The device kinds, in the order screens show them (the device-mapping pane's tabs).
DEVICE_KINDS: tuple[str, ...] = ("cpu", "gpu", "tpu")


@dataclass(frozen=True)
class DeviceTab:
    """One device kind as a screen shows it: `title` names it, `default_target` is the target of
    that kind a learner captures first (a bare `gpu` on the command line means it too)."""

    kind: str
    title: str
    default_target: str


def device_tabs() -> tuple[DeviceTab, ...]:
    """One tab per device kind, in DEVICE_KINDS order."""
    return tuple(DeviceTab(kind, kind.upper(), default_target(kind)) for kind in DEVICE_KINDS)


def default_target(kind: str) -> str:
    """The default target of a device kind: the first of DEFAULT_TARGETS of that kind."""
    return next(name for name in DEFAULT_TARGETS if TARGETS[name].kind == kind)


def device_kind(target: str) -> str:
    """The device kind of a target, so `tvm:cpu` (TVM on this CPU) sits beside XLA's `cpu`; an
    unknown name by its prefix."""
    spec = TARGETS.get(target)
    return spec.kind if spec is not None else target.split(":", 1)[0]


NOT_AVAILABLE = "not available on this platform"
# What every capture needs (the TensorFlow worker traces each model; Keras on JAX compiles the GPU
# and TPU targets): the `compilers` extra. The base install opens lesson packs and bundles only.
COMPILER_MODULES = ("tensorflow", "keras")
COMPILERS_INSTALL_HINT = ('cannot capture: the compilers are not installed (this install opens lesson packs and '
                          'bundles only); install them with: pip install -e ".[compilers]"')



def get_target(name: str) -> TargetSpec:
    try:
        return TARGETS[name]
    except KeyError:
        known = ", ".join(TARGETS)
        family = name.split(":", 1)[0] if ":" in name else ""
        kin = [target for target in TARGETS if family and target.startswith(f"{family}:")]
        if kin:  # `arm:cortex-a99`: say which cores of that family tensorweg knows
            raise TensorwegError(f"unknown target {name!r}: the {family} targets are {', '.join(kin)} "
                                 f"(known: {known})") from None
        raise TensorwegError(f"unknown target {name!r} (known: {known})") from None


def parse_targets(text: str) -> tuple[str, ...]:
    """`"cpu,gpu:h100"` -> `("cpu", "gpu:h100")`; duplicates dropped, order kept.

    A bare `gpu` or `tpu` means the default of that kind, since that is what a
    learner types first.
    """
    names: list[str] = []
    for part in text.split(","):
        if not part.strip():
            continue
        name = parse_target(part)
        if name not in names:
            names.append(name)
    if not names:
        raise TensorwegError("no target given (known: " + ", ".join(TARGETS) + ")")
    return tuple(names)


def parse_target(text: str) -> str:
    """One target as a learner types it (`--target`): its name, or a bare device kind (`gpu`,
    `tpu`) for that kind's default chip; an unknown name raises TensorwegError (one line)."""
    name = text.strip().lower()
    name = default_target(name) if name in DEVICE_KINDS else name
    get_target(name)
    return name


def require_compilers() -> None:
    """A capture on an install without the compilers (the UI alone) is bad input: one line saying
    how to install them. Looks for the packages without importing them."""
    if not all(_has_module(module) for module in COMPILER_MODULES):
        raise TensorwegError(COMPILERS_INSTALL_HINT)


def require_installed(names: tuple[str, ...]) -> None:
    """The compilers, and a target whose row needs modules that are not installed (TVM's extra, XLA's
    ahead-of-time compiler), are bad input: one line saying how to get them (a GPU/TPU wheel missing
    is only `unavailable`)."""
    require_compilers()
    for name in names:
        spec = get_target(name)
        if spec.needs_modules and not all(_has_module(module) for module in spec.needs_modules):
            raise TensorwegError(f"target {name}: {spec.install_hint}")


def target_dirname(name: str) -> str:
    """The bundle directory for a target: `gpu:h100` -> `gpu-h100`."""
    return name.replace(":", "-")


def gpu_target_config_text(spec: TargetSpec) -> str:
    """A `GpuTargetConfigProto` in protobuf text format for a compile-only GPU."""
    return config_text(spec.name, spec.gpu_device)


def availability(name: str) -> str | None:
    """None when `name` can be compiled here, else why not (one line).

    Checks that the wheels are installed without importing them (importing
    libtpu or the CUDA plugin is slow and noisy).
    """
    spec = get_target(name)
    if spec.needs_modules:
        return None if all(_has_module(module) for module in spec.needs_modules) else spec.install_hint
    if spec.kind == "cpu":
        return None
    if importlib.util.find_spec("jax") is None:
        return NOT_AVAILABLE
    if spec.kind == "tpu":
        return None if importlib.util.find_spec("libtpu") is not None else NOT_AVAILABLE
    if spec.on_this_machine:
        # A real GPU works with whichever CUDA plugin its JAX was installed with.
        if not any(_has_module(f"jax_plugins.xla_{cuda}") for cuda in ("cuda12", "cuda13")):
            return NOT_AVAILABLE
        return None if _has_nvidia_driver() else "no NVIDIA GPU driver on this machine"
    # Compile-only GPU targets use the CUDA 12 plugin this project pins.
    return None if _has_module("jax_plugins.xla_cuda12") else NOT_AVAILABLE


def _has_module(name: str) -> bool:
    """Whether `name` could be imported, without importing it or its parent packages: `find_spec` of a
    dotted name imports the parents (`tensorflow` takes seconds), so a submodule is looked for as a file
    in its top package's folders. A name set to None in sys.modules is Python's mark of a module that
    must not import (an install without it, as tests make one)."""
    if name in sys.modules and sys.modules[name] is None:
        return False
    top, _, rest = name.partition(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ModuleNotFoundError, ValueError):
        return False
    if spec is None or not rest:
        return spec is not None
    folders = [Path(folder) for folder in (spec.submodule_search_locations or ())]
    *packages, module = rest.split(".")
    for package in packages:
        folders = [folder / package for folder in folders if (folder / package).is_dir()]
    return any(_module_file(folder, module) for folder in folders)


def _module_file(folder: Path, module: str) -> bool:
    """A module file (`x.py`, an extension `x.cpython-311-x86_64-linux-gnu.so`, `x.so`) or package `x/`."""
    return (folder / module).is_dir() or (folder / f"{module}.py").is_file() or any(
        path.suffix in (".so", ".pyd") for path in folder.glob(f"{module}.*"))


def _has_nvidia_driver() -> bool:
    return os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/dev/nvidiactl")
