"""The what-if variants of a capture: a dtype policy, remat of chosen layers, and the XLA flags the
app knows and explains (`--xla-flag NAME=VALUE`).

Each variant is a field of `CaptureOptions`, so each is a cached bundle of its own. XLA flags are
curated: a flag XLA does not know makes the compiler abort, and a flag the course cannot explain
teaches nothing, so only the flags in XLA_FLAG_CHOICES pass, each with the targets it changes.
No compiler is imported here: the workers turn the checked values into `XLA_FLAGS`
(`worker_xla_flags`) and a Keras dtype policy (`explorer.capture.dtype_policy`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from explorer.errors import TensorwegError
from explorer.model.records import CaptureOptions
from explorer.targets import TARGETS


@dataclass(frozen=True)
class XlaFlag:
    """One flag the app passes to XLA.

    values: the values it takes ("true"/"false", or pass names for xla_disable_hlo_passes).
    kinds: the target kinds whose compiler reads it ("cpu", "gpu", "tpu").
    what: one line for the refusal message and `tensorweg diff`'s legend.
    """

    name: str
    values: tuple[str, ...]
    kinds: tuple[str, ...]
    what: str
    several: bool = False  # a comma-separated list of values (pass names)


@dataclass(frozen=True)
class HloPass:
    """A pass `xla_disable_hlo_passes` may switch off, with the target kinds that run it."""

    name: str
    kinds: tuple[str, ...]
    what: str


# Pass names as XLA's pass pipeline names them (the filmstrip lists them; `tensorweg passes`).
HLO_PASSES: dict[str, HloPass] = {p.name: p for p in (
    HloPass("fusion", ("cpu",), "XLA:CPU's instruction fusion: elementwise ops join their producer's loop"),
    HloPass("priority-fusion", ("gpu",), "XLA:GPU's fusion: merges producers into consumers by a cost model"),
    HloPass("algsimp", ("cpu", "gpu", "tpu"), "algebraic simplification: x*1, transpose of transpose, ..."),
    HloPass("cse", ("cpu", "gpu", "tpu"), "common subexpression elimination: one copy of identical work"),
    HloPass("reshape-mover", ("cpu", "gpu", "tpu"), "moves reshapes and transposes past elementwise ops"),
)}

XLA_FLAG_CHOICES: dict[str, XlaFlag] = {f.name: f for f in (
    XlaFlag("xla_disable_hlo_passes", tuple(HLO_PASSES), ("cpu", "gpu", "tpu"),
            "switch off the named HLO passes, e.g. xla_disable_hlo_passes=fusion", several=True),
    XlaFlag("xla_cpu_enable_fast_math", ("true", "false"), ("cpu",),
            "XLA:CPU may reorder and approximate floating point (LLVM fast-math)"),
    XlaFlag("xla_gpu_enable_triton_gemm", ("true", "false"), ("gpu",),
            "XLA:GPU writes matrix multiplications as Triton kernels instead of calling cuBLAS"),
)}


def _flag_list() -> str:
    return "; ".join(f"{f.name}={'|'.join(f.values)}" for f in XLA_FLAG_CHOICES.values())


def parse_xla_flags(texts: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """`--xla-flag NAME=VALUE` texts (repeatable) -> sorted (name, value) pairs, each checked.

    An unknown name or value raises TensorwegError naming the flags the app knows."""
    pairs: dict[str, str] = {}
    for text in texts:
        name, _, value = text.strip().partition("=")
        name = name.strip().lstrip("-")
        flag = XLA_FLAG_CHOICES.get(name)
        if flag is None or not value.strip():
            raise TensorwegError(f"bad --xla-flag '{text}': the app knows {_flag_list()}")
        if name in pairs:
            raise TensorwegError(f"bad --xla-flag '{text}': {name} is given twice")
        pairs[name] = _checked_value(flag, value.strip(), text)
    return tuple(sorted(pairs.items()))


def _checked_value(flag: XlaFlag, value: str, text: str) -> str:
    values = [v.strip() for v in value.split(",")] if flag.several else [value.lower()]
    unknown = [v for v in values if v not in flag.values]
    if unknown or len(set(values)) != len(values):
        raise TensorwegError(f"bad --xla-flag '{text}': {flag.name} takes {' or '.join(flag.values)}"
                             + (" (each once)" if not unknown else ""))
    return ",".join(sorted(values)) if flag.several else values[0]


def check_variant_targets(options: CaptureOptions) -> None:
    """Refuse a variant that no asked-for target would compile differently, or could not compile.

    A flag read by no asked-for target's compiler would make a second bundle identical to the
    first; a dtype policy TVM's ONNX export cannot carry would fail its levels after the capture."""
    kinds = {TARGETS[t].kind for t in options.targets if t in TARGETS and TARGETS[t].compiler == "xla"}
    for name, value in options.xla_flags:
        wanted = set(XLA_FLAG_CHOICES[name].kinds)
        if name == "xla_disable_hlo_passes":
            for pass_name in value.split(","):
                _check_kinds(f"{name}={pass_name}", set(HLO_PASSES[pass_name].kinds), kinds, options)
        else:
            _check_kinds(f"{name}={value}", wanted, kinds, options)
    tvm = [t for t in options.targets if t in TARGETS and TARGETS[t].compiler == "tvm"]
    if options.dtype and options.dtype != "float32" and tvm:
        raise TensorwegError(f"--dtype {options.dtype}: {', '.join(tvm)} compiles the float32 model "
                             "only (its ONNX export keeps no Keras dtype policy); leave it out of --targets")
    if options.quantize and tvm:
        raise TensorwegError(f"--quantize {options.quantize}: {', '.join(tvm)} compiles the float32 model only "
                             "(its ONNX export keeps no Keras quantization); leave it out of --targets")


def _check_kinds(flag: str, wanted: set[str], kinds: set[str], options: CaptureOptions) -> None:
    if options.targets and not wanted & kinds:
        raise TensorwegError(f"--xla-flag {flag}: only {' and '.join(sorted(wanted))} targets read it, "
                             f"and --targets is {','.join(options.targets)}")


def check_remat_layers(pattern: str) -> None:
    try:
        re.compile(pattern)
    except re.error as error:
        raise TensorwegError(f"bad --remat-layers '{pattern}': not a regular expression ({error})") from None


def worker_xla_flags(pairs: Iterable[Iterable[str]]) -> str:
    """The `XLA_FLAGS` words a worker appends for the request's checked flags (`--name=value`).

    Checked again here: the request comes over a pipe, and XLA aborts on a flag it does not know."""
    words = []
    for name, value in pairs:
        if name not in XLA_FLAG_CHOICES or not re.fullmatch(r"[A-Za-z0-9_,.-]+", value):
            raise ValueError(f"the worker passes only the app's XLA flags, not {name}={value}")
        words.append(f"--{name}={value}")
    return " ".join(words)
