"""Every capture option, once: one row per field of `CaptureOptions`, and what each consumer makes of it.

A capture option used to live in ten hand-kept lists (the parser's flags, the checks, the cache key,
the workers' requests, `--vary`, the tours' `# capture:` header, the flags a `serve` tab is started
with, ...); one that forgot it did so silently (a cache key that ignores an option serves the wrong
bundle). Now each of them walks CAPTURE_OPTIONS:

- the command line (`explorer.cli.parser`): the row's flag, help, kind, type, choices and metavar,
  in the table's order (`--targets` last, and only where the command has one);
  `explorer.cli.commands.capture_keywords` reads the parsed value back by the flag's destination;
- the checks (`explorer.capture.options.build_capture_options`, whose keywords are the fields): the
  row's choices and `check` on the value as given, its `convert` to the field's value; what spans
  several options (`--remat` needs `--mode train`, `--layout-map` sets `--shard model`) stays there;
- the cache key (`explorer.capture.cache`): the row's `key`;
- the workers' requests (`explorer.capture.worker_requests`): the row's `workers`, under the field's
  name, written by `request` (and read back into `CaptureOptions` by the target workers);
- `--vary KEY=A,B` (`explorer.capture.vary`): the row's `vary` key and how one value parses;
- a tour's `# capture:` header (`explorer.course.tours`): the row's `tour` (never a file, never
  `--unsafe`: a tour cannot point a capture at a file or at a model's own code) and `lesson`;
- `serve`'s tabs and the command a screen shows (`explorer.capture.options.capture_flags`): every row
  with a flag, written by its kind and `words`, so a tab asks for the very bundle serve captured;
- a variant's label and the title's words (`explorer.capture.variants`): `compared`, `difference`, `title`.

A field's Python type and the default a manifest falls back to are its `CaptureOptions` declaration
(`explorer.model.records`: the bundle's schema, read by type hints); a row's `default` is the keyword's
value when the option is not given (argparse's default). Adding an option is one field there, one row
here, and the worker code that applies it; tests/test_capture_option_table.py walks the table through
every consumer above.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from explorer.capture.option_values import (
    check_batch,
    input_shape_words,
    input_shapes_request,
    parse_input_shapes,
    split_targets,
    vary_as_given,
    vary_or_empty,
    vary_switch,
    vary_whole_number,
    vary_xla_flag,
    xla_flag_words,
)
from explorer.capture.variants import XLA_FLAG_CHOICES, check_remat_layers, parse_xla_flags
from explorer.model.records import DTYPES, MODES, OPTIMIZERS, QUANTIZATIONS, SHARDINGS
from explorer.model.serial import to_jsonable
from explorer.targets import DEFAULT_TARGETS


class Kind(Enum):
    """How the command line writes an option (argparse's action)."""

    VALUE = "value"  # --flag VALUE
    SWITCH = "switch"  # --flag alone: on (store_true)
    LIST = "list"  # --flag VALUE, repeatable (append); the header's words add up too
    EITHER = "either"  # --flag or --no-flag, or neither: None (argparse.BooleanOptionalAction)
    FILE = "file"  # --flag FILE: the file is read when the options are built; the options keep what was read


class Key(Enum):
    """Whether an option is part of the cache key (explorer.capture.cache)."""

    YES = "yes"
    # Added after bundles were first cached: at its default it stays out of the key, so a plain capture
    # keeps the key (and the cached bundle) it had before the option existed. Every new option is this.
    UNLESS_DEFAULT = "unless default"
    # Not in the key: a bundle grows by it (targets, explorer.capture.growth); its value in the key is empty.
    NO = "no"


class Worker(Enum):
    """The capture workers whose request carries an option (explorer.capture.worker_requests)."""

    TENSORFLOW = "tensorflow"  # tf_worker: layers, graph and the cpu target
    ACCELERATOR = "accelerator"  # jax_worker / tvm_worker / aot_worker: one GPU, TPU, TVM or ARM target


@dataclass(frozen=True)
class Vary:
    """`--vary KEY=A,B` for an option: the key, how one value becomes build_capture_options' argument
    (given the key, the value and the other options' keywords), and one line for the list of keys."""

    key: str
    value: Callable[[str, str, Any], Any]
    what: str
    lists: bool = False  # a value may hold commas of its own (an XLA flag's pass list)


def _word(value: Any) -> list[str]:
    return [str(value)]


@dataclass(frozen=True)
class CaptureOption:
    """One capture option: one field of `CaptureOptions` (module docstring: who reads which column).

    flag: the command line's flag (also the `# capture:` header's word); None for a field that another
        option sets (the layout map's file name).
    default: build_capture_options' keyword when the option is not given, and argparse's default.
    type: how the command line and the tour header read a word (VALUE).
    check: refuses a value as given (one TensorwegError line); choices are checked without it.
    convert: the value as given -> the field's value (else the value itself).
    words: the field's value as the flag's words, one per use of the flag (capture_flags).
    tour: a tour's `# capture:` header may name it. lesson: a lesson with that header was written for
        its value, named or not: a bundle that differs in it lacks what the steps select.
    compared: a sibling variant that differs in it is labelled by it (`batch 64`); difference: that
        label where the generic one does not do. title: the app title's words for a value other than
        the default (the what-if variants).
    workers: the workers whose request carries it, as `request` writes it (under the field's name).
    name_field: FILE: the field that keeps the file's name (the options keep what was read, not the path).
    set_by: the field of another option that, given, sets this one (`--layout-map` sets `--shard model`):
        capture_flags writes only that one.
    """

    field: str
    flag: str | None
    help: str = ""
    kind: Kind = Kind.VALUE
    default: Any = None
    type: Callable[[str], Any] = str
    choices: tuple[str, ...] = ()
    metavar: str | None = None
    check: Callable[[Any], None] | None = None
    convert: Callable[[Any], Any] | None = None
    words: Callable[[Any], list[str]] = _word
    key: Key = Key.YES
    vary: Vary | None = None
    tour: bool = False
    lesson: bool = False
    compared: bool = True
    difference: Callable[[Any], str] | None = None
    title: Callable[[Any], list[str]] | None = None
    workers: tuple[Worker, ...] = ()
    request: Callable[[Any], Any] = to_jsonable
    name_field: str = ""
    set_by: str = ""

    @property
    def dest(self) -> str:
        """Where argparse keeps it (`--input-shape` -> input_shape); the header's option names too."""
        return self.flag[2:].replace("-", "_") if self.flag else self.field


_BOTH = (Worker.TENSORFLOW, Worker.ACCELERATOR)

# In the command line's order (`tensorweg capture --help`).
CAPTURE_OPTIONS: tuple[CaptureOption, ...] = (
    CaptureOption("batch", "--batch", "size of None batch dimensions (default 1)", default=1, type=int,
                  check=check_batch, vary=Vary("batch", vary_whole_number, "the batch size, e.g. batch=1,64"),
                  tour=True, workers=(Worker.TENSORFLOW,)),
    CaptureOption("input_shapes", "--input-shape", "shape for an input with None dimensions (repeatable)",
                  Kind.LIST, default=(), metavar="NAME=1x224x224x3", convert=parse_input_shapes,
                  words=input_shape_words, workers=(Worker.TENSORFLOW,), request=input_shapes_request),
    CaptureOption("unsafe", "--unsafe", "allow Lambda layers (runs code stored in the model file)", Kind.SWITCH,
                  default=False, compared=False, workers=_BOTH),
    # Not `compared`: the passes' snapshots are kept beside the same program, so a bundle captured with
    # --passes is no what-if variant (V offered it as "passes", with identical figures: issue 39).
    CaptureOption("passes", "--passes", "also keep the HLO after every compiler pass "
                  "(the filmstrip; capture about 1.1-1.3x slower)", Kind.SWITCH, default=False, compared=False,
                  workers=_BOTH),
    CaptureOption("mode", "--mode", "compile one inference call (default) or one training step",
                  default="inference", choices=MODES,
                  vary=Vary("mode", vary_as_given, "inference or a training step: mode=inference,train"),
                  tour=True, lesson=True, workers=(Worker.ACCELERATOR,)),
    CaptureOption("optimizer", "--optimizer", "the training step's optimizer (train mode; default adam)",
                  choices=OPTIMIZERS,
                  vary=Vary("optimizer", vary_as_given, "the training step's optimizer: optimizer=sgd,adam"),
                  tour=True, lesson=True, workers=(Worker.ACCELERATOR,)),
    CaptureOption("remat", "--remat", "train mode: recompute the forward pass in the backward pass (jax.checkpoint)",
                  Kind.SWITCH, default=False,
                  vary=Vary("remat", vary_switch, "train mode: rematerialise every layer, remat=off,on"),
                  tour=True, lesson=True, workers=(Worker.ACCELERATOR,)),
    CaptureOption("mesh", "--mesh", "compile for a TPU slice of this many chips (with --shard)", default="",
                  metavar="2x2", vary=Vary("mesh", vary_or_empty, "one chip or a mesh (--shard or --layout-map "
                                           "divides the meshed one): mesh=none,2x2"),
                  tour=True, lesson=True, workers=(Worker.ACCELERATOR,)),
    CaptureOption("shard", "--shard", "divide the work over the mesh by the batch (data) or the weights (model)",
                  choices=SHARDINGS, tour=True, lesson=True, workers=(Worker.ACCELERATOR,), set_by="layout_map"),
    CaptureOption("layout_map", "--layout-map", "with --mesh, instead of --shard: a TOML or JSON file mapping "
                  'weight-path regexes to a mesh axis or null per dimension, e.g. {"dense/kernel": [null, "model"]} '
                  "(a Keras LayoutMap; docs/layout-map.md)", Kind.FILE, type=Path, metavar="FILE",
                  lesson=True, compared=False, workers=(Worker.ACCELERATOR,), name_field="layout_map_file"),
    CaptureOption("layout_map_file", None, "the --layout-map file's name, for messages and labels", default="",
                  workers=(Worker.ACCELERATOR,)),
    CaptureOption("dtype", "--dtype", "a Keras dtype policy for every layer (default: the model's own)", default="",
                  choices=DTYPES, key=Key.UNLESS_DEFAULT,
                  vary=Vary("dtype", vary_as_given, "a Keras dtype policy, e.g. dtype=float32,bfloat16"),
                  tour=True, lesson=True, title=lambda dtype: [f"dtype {dtype}"], workers=_BOTH),
    CaptureOption("remat_layers", "--remat-layers",
                  "train mode: rematerialise only the layers whose name matches (implies --remat)", default="",
                  metavar="REGEX", check=check_remat_layers, key=Key.UNLESS_DEFAULT,
                  vary=Vary("remat-layers", vary_or_empty,
                            "train mode: rematerialise matching layers, remat-layers=none,conv"),
                  title=lambda pattern: [f"remat {pattern}"], workers=(Worker.ACCELERATOR,)),
    CaptureOption("xla_flags", "--xla-flag", "pass one of the XLA flags the app explains (repeatable): "
                  + ", ".join(XLA_FLAG_CHOICES), Kind.LIST, default=(), metavar="NAME=VALUE", convert=parse_xla_flags,
                  words=xla_flag_words, key=Key.UNLESS_DEFAULT,
                  vary=Vary("xla-flag", vary_xla_flag,
                            "an XLA flag the app knows: xla-flag=none,xla_disable_hlo_passes=fusion", lists=True),
                  tour=True, lesson=True, difference=lambda pairs: ", ".join(xla_flag_words(pairs)) or "no xla flags",
                  title=xla_flag_words, workers=_BOTH),
    CaptureOption("donate", "--donate", "train mode: donate the step's weights and optimizer state so XLA may "
                  "update them in place (default), or not (--no-donate)", Kind.EITHER, key=Key.UNLESS_DEFAULT,
                  vary=Vary("donate", vary_switch, "train mode: donate the step's arguments, donate=on,off"),
                  title=lambda donate: [] if donate else ["no donation"], workers=(Worker.ACCELERATOR,)),
    CaptureOption("quantize", "--quantize", "quantize the model as a deployment would (Keras model.quantize): "
                  "int8 weights where Keras can (Dense), the rest as trained", default="", choices=QUANTIZATIONS,
                  key=Key.UNLESS_DEFAULT,
                  vary=Vary("quantize", vary_or_empty, "the int8 variant a deployment runs: quantize=none,int8"),
                  tour=True, lesson=True, title=lambda mode: [f"quantize {mode}"], workers=_BOTH),
    CaptureOption("targets", "--targets", "comma-separated targets (default {default})",
                  default=",".join(DEFAULT_TARGETS), convert=split_targets, words=lambda targets: [",".join(targets)],
                  key=Key.NO, tour=True, compared=False),
)

# The options the command line (and build_capture_options' keywords) name; the others are set with one of them.
GIVEN: tuple[CaptureOption, ...] = tuple(row for row in CAPTURE_OPTIONS if row.flag is not None)
