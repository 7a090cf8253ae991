"""Capture option values, as a user writes them, checked and turned into a `CaptureOptions`, and back.

One builder for every place that names capture options: the command line (`explorer.cli.commands`
adapts its argparse values), a tour's `# capture:` header (`explorer.course.tours`) and `--vary`
(`explorer.capture.vary`), so all refuse the same values with the same messages. What each option
is (its checks, its conversion, its flag) is its row in `explorer.capture.option_table`; the rules
between options are here. No argparse here: the values come as keywords, one per row with a flag.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from explorer.capture.option_table import CAPTURE_OPTIONS, GIVEN, CaptureOption, Kind
from explorer.capture.variants import check_variant_targets
from explorer.errors import TensorwegError
from explorer.model.records import CaptureOptions
from explorer.targets import TARGETS


def build_capture_options(**given: Any) -> CaptureOptions:
    """The checked options; a keyword is a field of a row with a flag (explorer.capture.option_table),
    its value as the command line gives it, and a keyword not given takes its row's default (the
    command line's: `tensorweg capture MODEL`).

    targets: "cpu,tpu:v5e" as `--targets` writes it, or the names. input_shapes: `--input-shape`
    texts (NAME=1x128). optimizer: None for "adam in train mode". layout_map: the `--layout-map`
    file, read here. remat_layers: a regex; only the leaf layers it finds are rematerialised
    (implies remat). xla_flags: `--xla-flag NAME=VALUE` texts. donate: None = not given: the step
    donates (train mode only). Anything no capture could compile raises TensorwegError (one line).
    """
    unknown = sorted(set(given) - {row.field for row in GIVEN})
    if unknown:
        raise TypeError(f"build_capture_options() got unexpected keywords: {', '.join(unknown)}")
    values = {row.field: given.get(row.field, row.default) for row in GIVEN}
    for row in GIVEN:
        _check_value(row, values[row.field])
    fields = {row.field: row.convert(values[row.field]) if row.convert else values[row.field] for row in GIVEN}
    # The rules between options: the optimizer only in train mode, --remat-layers implies --remat,
    # --donate given or not, --layout-map sets --shard model, --quantize for inference only.
    mode, remat_layers, donate = values["mode"], values["remat_layers"], values["donate"]
    fields.update(optimizer=_optimizer(mode, values["optimizer"]), remat=values["remat"] or bool(remat_layers),
                  donate=donate is not False, **_sharding(values["shard"], values["mesh"], values["layout_map"]))
    options = CaptureOptions(**fields)
    if donate is not None and options.mode != "train":
        raise TensorwegError(f"{'--donate' if donate else '--no-donate'} needs --mode train "
                             "(only a training step has arguments to donate)")
    if options.remat and options.mode != "train":
        raise TensorwegError(f"{'--remat-layers' if remat_layers else '--remat'} needs --mode train")
    if options.quantize and options.mode == "train":
        raise TensorwegError(f"--quantize {options.quantize} compiles the inference call a deployment runs; "
                             "leave out --mode train")
    check_variant_targets(options)
    _check_train_targets(options)
    if options.mesh or options.shard:  # check_mesh_options passes any other options
        from explorer.model.sharding import check_mesh_options  # noqa: PLC0415 (start-up: the mesh's HLO scanners load only with --mesh or --shard)

        check_mesh_options(options)  # refuses tvm:cpu with --mesh too: it is one device
    return options


def _check_value(row: CaptureOption, value: Any) -> None:
    """Refuse a value the row's choices or check refuse (argparse's `choices` does on the command line;
    a tour's `# capture:` header and `--vary` have no argparse); its default always passes (not given)."""
    if value == row.default:
        return
    if row.choices and value not in row.choices:
        raise TensorwegError(f"bad {row.flag} '{value}': expected {' or '.join(row.choices)}")
    if row.check is not None:
        row.check(value)


def read_word(row: CaptureOption, text: str) -> Any:
    """One word of the option as argparse reads it on the command line (its type, its choices):
    `--batch 8` -> 8. Raises TensorwegError (one line) for a word argparse would refuse."""
    try:
        value = row.type(text)
    except ValueError:
        raise TensorwegError(f"bad {row.flag} '{text}': expected a whole number") from None
    if row.choices and value not in row.choices:
        raise TensorwegError(f"bad {row.flag} '{text}': expected {' or '.join(row.choices)}")
    return value


def _check_train_targets(options: CaptureOptions) -> None:
    """The TVM and ahead-of-time workers compile the inference graph only: in train mode they would store
    that graph under a bundle that says train. Refused until they capture a training step."""
    if options.mode != "train":
        return
    inference = [name for name in options.targets if name in TARGETS and TARGETS[name].inference_only]
    if inference:
        raise TensorwegError(f"--mode train: {', '.join(inference)} compiles the inference graph only; "
                             "leave it out of --targets")


def _sharding(shard: str | None, mesh: str, layout_map: Path | None) -> dict:
    """--shard, or --layout-map FILE: model parallel by the file's rules (it replaces --shard; needs --mesh)."""
    if layout_map is None:
        return {"shard": shard or "", "layout_map": ()}
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


@cache
def _plain() -> CaptureOptions:
    """What the command line captures without a capture option."""
    return build_capture_options()


def capture_flags(options: CaptureOptions, every: bool = True, files: Mapping[str, Path] | None = None) -> list[str]:
    """The command-line flags that capture with `options`, one or more per row with a flag.

    every: each flag with a value, defaults included (a `tensorweg serve` tab must capture exactly
    what serve did); else only those a learner has to type, the ones that differ from the defaults.
    files: the file a FILE option was read from, by field (serve's tabs read the very file); else the
    file's name as the options keep it (what a learner types again beside it).
    """
    flags: list[str] = []
    for row in GIVEN:
        flag = row.flag
        assert flag is not None  # GIVEN holds the rows with a flag
        value, plain = getattr(options, row.field), getattr(_plain(), row.field)
        if row.set_by and getattr(options, row.set_by):
            continue  # the other option's flag sets it
        if row.kind is Kind.SWITCH:
            flags += [flag] if value else []
        elif row.kind is Kind.EITHER:
            flags += [] if value == plain else [flag if value else f"--no-{flag[2:]}"]
        elif row.kind is Kind.FILE:
            name = (files or {}).get(row.field) or getattr(options, row.name_field)
            flags += [flag, str(name)] if value else []
        elif row.kind is Kind.LIST or (value not in ("", None) and (every or value != plain)):
            flags += [word for text in row.words(value) for word in (flag, text)]
    return flags


def variant_words(options: CaptureOptions) -> tuple[str, ...]:
    """The variant parts of `options` that differ from a plain capture, as a title shows them
    (the rows' `title`: `dtype bfloat16`, `no donation`)."""
    plain = CaptureOptions()
    return tuple(word for row in CAPTURE_OPTIONS if row.title is not None
                 and getattr(options, row.field) != getattr(plain, row.field)
                 for word in row.title(getattr(options, row.field)))


def option_differences(base: CaptureOptions, other: CaptureOptions) -> tuple[str, ...]:
    """What `other` compiles differently from `base`, as words (`batch 64`, `dtype bfloat16`,
    `xla_disable_hlo_passes=fusion`, `no xla flags`): the label of a sibling variant (the rows' `compared`)."""
    words = []
    for row in CAPTURE_OPTIONS:
        mine, theirs = getattr(base, row.field), getattr(other, row.field)
        if not row.compared or mine == theirs:
            continue
        if row.difference is not None:
            words.append(row.difference(theirs))
        elif isinstance(theirs, bool):
            words.append(row.field.replace("_", "-") if theirs else f"no {row.field.replace('_', '-')}")
        else:
            words.append(f"{row.field.replace('_', ' ')} {theirs or 'none'}")
    return tuple(words)

