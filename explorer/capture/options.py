"""Capture option values, as a user writes them, checked and turned into a `CaptureOptions`.

One builder for every place that names capture options: the command line (`explorer.cli.commands`
adapts its argparse values) and a tour's `# capture:` header (`explorer.course.tours`), so both
refuse the same values with the same messages. No argparse here: the values come as keywords.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from explorer.capture.variants import check_remat_layers, check_variant_targets, parse_xla_flags
from explorer.errors import TensorwegError
from explorer.model.records import DTYPES, MAX_INPUT_ELEMENTS, MODES, OPTIMIZERS, SHARDINGS, CaptureOptions
from explorer.targets import DEFAULT_TARGETS, TARGETS

_SHAPE = re.compile(r"^([^=]+)=(\d+(?:[x,]\d+)*)$")
# The options with a fixed set of values, by build_capture_options' keyword.
CHOICES: dict[str, tuple[str, ...]] = {"mode": MODES, "optimizer": OPTIMIZERS, "shard": SHARDINGS, "dtype": DTYPES}


def build_capture_options(*, targets: str | Iterable[str] = DEFAULT_TARGETS, batch: int = 1,
                          input_shapes: Iterable[str] = (), unsafe: bool = False, passes: bool = False,
                          mode: str = "inference", optimizer: str | None = None, mesh: str = "",
                          shard: str | None = None, remat: bool = False,
                          layout_map: Path | None = None, dtype: str = "", remat_layers: str = "",
                          xla_flags: Iterable[str] = (), donate: bool | None = None) -> CaptureOptions:
    """The checked options; the defaults are the command line's (`tensorweg capture MODEL`).

    targets: "cpu,tpu:v5e" as `--targets` writes it, or the names. input_shapes: `--input-shape`
    texts (NAME=1x128). optimizer: None for "adam in train mode". layout_map: the `--layout-map`
    file, read here. dtype: a Keras dtype policy for every layer ("" = the model's own).
    remat_layers: a regex; only the leaf layers it finds are rematerialised (implies remat).
    xla_flags: `--xla-flag NAME=VALUE` texts (explorer.capture.variants.XLA_FLAG_CHOICES).
    donate: `--donate` / `--no-donate` (train mode only); None = not given: the step donates.
    Anything no capture could compile raises TensorwegError (one line).
    """
    for name, value in (("mode", mode), ("optimizer", optimizer), ("shard", shard), ("dtype", dtype or None)):
        if value is not None:
            check_choice(name, value)
    if batch < 1:
        raise TensorwegError(f"bad --batch {batch}: must be at least 1")
    check_remat_layers(remat_layers)
    names = targets.split(",") if isinstance(targets, str) else targets
    options = CaptureOptions(
        targets=tuple(t.strip() for t in names if t.strip()),
        batch=batch,
        input_shapes=parse_input_shapes(input_shapes),
        unsafe=unsafe,
        passes=passes,
        mode=mode,
        optimizer=_optimizer(mode, optimizer),
        mesh=mesh,
        remat=remat or bool(remat_layers),
        **_sharding(shard, mesh, layout_map),
        dtype=dtype,
        remat_layers=remat_layers,
        xla_flags=parse_xla_flags(xla_flags),
        donate=donate is not False,
    )
    if donate is not None and options.mode != "train":
        raise TensorwegError(f"{'--donate' if donate else '--no-donate'} needs --mode train "
                             "(only a training step has arguments to donate)")
    if options.remat and options.mode != "train":
        raise TensorwegError(f"{'--remat-layers' if remat_layers else '--remat'} needs --mode train")
    check_variant_targets(options)
    _check_train_targets(options)
    if options.mesh or options.shard:  # check_mesh_options passes any other options
        from explorer.model.sharding import check_mesh_options  # noqa: PLC0415 (start-up: the mesh's HLO scanners load only with --mesh or --shard)

        check_mesh_options(options)  # refuses tvm:cpu with --mesh too: it is one device
    return options


def _check_train_targets(options: CaptureOptions) -> None:
    """The TVM and ahead-of-time workers compile the inference graph only: in train mode they would store
    that graph under a bundle that says train. Refused until they capture a training step."""
    if options.mode != "train":
        return
    inference = [name for name in options.targets if name in TARGETS and TARGETS[name].inference_only]
    if inference:
        raise TensorwegError(f"--mode train: {', '.join(inference)} compiles the inference graph only; "
                             "leave it out of --targets")


def check_choice(name: str, value: str) -> None:
    """Refuse a value outside CHOICES[name] (argparse's `choices` does on the command line; a tour's
    `# capture:` header has no argparse); any value of another option passes."""
    choices = CHOICES.get(name)
    if choices is not None and value not in choices:
        raise TensorwegError(f"bad --{name.replace('_', '-')} '{value}': expected {' or '.join(choices)}")


def parse_input_shapes(values: Iterable[str]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """`NAME=1x128` or `NAME=128` (repeatable) -> ((name, dims), ...).

    The dims may include the batch dim or not; the capture worker, which knows
    the input's rank, decides which (explorer.capture.tf_loading.input_signature).
    """
    shapes = []
    for value in values:
        match = _SHAPE.match(value.strip())
        if not match:
            raise TensorwegError(f"bad --input-shape '{value}': expected NAME=DIMxDIM..., e.g. image=1x224x224x3")
        dims = tuple(int(d) for d in re.split(r"[x,]", match.group(2)))
        if any(d <= 0 for d in dims):
            raise TensorwegError(f"bad --input-shape '{value}': dimensions must be positive")
        elements = 1
        for dim in dims:
            elements *= dim
        if elements > MAX_INPUT_ELEMENTS:
            raise TensorwegError(f"bad --input-shape '{value}': {elements:,} elements; "
                                 f"at most {MAX_INPUT_ELEMENTS:,} are captured")
        shapes.append((match.group(1).strip(), dims))
    return tuple(shapes)


def _sharding(shard: str | None, mesh: str, layout_map: Path | None) -> dict:
    """--shard, or --layout-map FILE: model parallel by the file's rules (it replaces --shard; needs --mesh)."""
    if layout_map is None:
        return {"shard": shard or ""}
    if shard:
        raise TensorwegError("--layout-map replaces --shard: give one of them")
    if not mesh:
        raise TensorwegError("--layout-map needs --mesh, e.g. --mesh 2x2")
    from explorer.capture.layout_map import load_layout_map  # noqa: PLC0415 (why: start-up; tomllib and the rules only with --layout-map)

    return {"shard": "model", "layout_map": load_layout_map(layout_map), "layout_map_file": layout_map.name}


def _optimizer(mode: str, optimizer: str | None) -> str:
    """The training step's optimizer: adam unless named; none for inference."""
    if mode != "train":
        if optimizer:
            raise TensorwegError(f"--optimizer {optimizer} needs --mode train")
        return ""
    return optimizer or "adam"


def capture_flags(options: CaptureOptions, every: bool = True) -> list[str]:
    """The command-line flags that capture with `options`.

    every: each flag, defaults included (a `tensorweg serve` tab must capture exactly what serve
    did); else only those a learner has to type, the ones that differ from the defaults.
    """
    valued = [("--targets", ",".join(options.targets), options.targets != DEFAULT_TARGETS),
              ("--batch", str(options.batch), options.batch != 1),
              ("--mode", options.mode, options.mode != "inference")]
    flags = [word for flag, value, differs in valued if every or differs for word in (flag, value)]
    for name, dims in options.input_shapes:
        flags += ["--input-shape", f"{name}={'x'.join(str(d) for d in dims)}"]
    flags += [flag for flag, on in (("--unsafe", options.unsafe), ("--passes", options.passes),
                                    ("--remat", options.remat)) if on]
    for flag, value in (("--optimizer", options.optimizer), ("--mesh", options.mesh), ("--shard", options.shard)):
        flags += [flag, value] if value else []
    return flags
