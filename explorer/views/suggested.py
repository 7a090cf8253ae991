"""Every command the app and the CLI suggest to a learner: built as an argument list, quoted once, here.

A suggestion names a model as a bundle's manifest or a tour names it: untrusted text. Joined into a
shell line unquoted, a bundle whose model is `mnist_cnn; touch PWNED; echo` made `tensorweg compare`
print `run: tensorweg capture mnist_cnn; touch PWNED; echo --targets cpu,gpu:h100`, and pasting it
ran the `touch` (issue 36). Here every suggestion is an argv, and `command_line` quotes it with
`shlex.join`: what a learner pastes runs exactly that argv, whatever a name holds.

A suggestion is also something the learner can do. An install without the compilers (the UI alone:
packs and bundles) cannot capture, so a capture's command comes after the line that says how to
install them; what a bundle already holds is never suggested (`c` on a pack that has every default
target says there is nothing to capture).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import replace
from pathlib import PurePath

from explorer.capture.options import capture_flags
from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.model.records import CaptureOptions
from explorer.targets import COMPILERS_INSTALL_HINT, DEFAULT_TARGETS, require_compilers

PROGRAM = "tensorweg"


def command_line(argv: Sequence[str]) -> str:
    """`tensorweg ARGV...` as one shell line: each argument quoted where the shell would read it."""
    return shlex.join([PROGRAM, *argv])


def compilers_installed() -> bool:
    """Whether this install can capture (the `compilers` extra), looked up without importing them."""
    try:
        require_compilers()
    except TensorwegError:
        return False
    return True


def runnable(command: str, lang: str = "en") -> str:
    """`command` as something to do here: "run: ..." where the compilers are installed, else the
    install line first (a UI-only install cannot run a capture)."""
    if compilers_installed():
        return label("suggest.run", lang).format(command=command)
    return label("suggest.install_then_run", lang).format(install=COMPILERS_INSTALL_HINT, command=command)


def model_argument(bundle, model_spec: str | None = None) -> str:
    """The model a command for this bundle names: as the learner typed it, else the sample's or
    module:function's name, else the model file's name (a capture stores its absolute path)."""
    if model_spec:
        return model_spec
    identity = bundle.manifest.model
    return identity.spec if identity.kind in ("sample", "function") else PurePath(identity.spec).name


def capture_argv(model: str, options: CaptureOptions) -> list[str]:
    """`capture MODEL FLAGS...`: the flags a learner types for `options` (defaults left out)."""
    return ["capture", model, *capture_flags(options, every=False)]


def grow_command(bundle, model: str, targets: tuple[str, ...]) -> str:
    """The command that grows this bundle's capture by `targets`: the bundle's own options (batch,
    mode, mesh, ...), so the cache adds the targets to this capture instead of making another."""
    options = replace(bundle.manifest.options, targets=tuple(dict.fromkeys((*bundle.targets, *targets))))
    return command_line(capture_argv(model, options))


def capture_hint(bundle, target: str, lang: str = "en") -> str:
    """How to get a target that is not in the bundle: the app's key and the command (`compare`,
    the device pane)."""
    command = grow_command(bundle, model_argument(bundle), (target,))
    if not compilers_installed():
        return runnable(command, lang)
    return label("suggest.capture_key_or_run", lang).format(command=command)


def open_with_passes(bundle, model: str) -> str:
    """`tensorweg open MODEL ... --passes`: the filmstrip's frames for the bundle's targets."""
    options = replace(bundle.manifest.options, passes=True, targets=bundle.targets)
    return command_line(["open", model, *capture_flags(options, every=False)])


def mesh_capture(model: str, wanted: CaptureOptions) -> str:
    """The command that captures `wanted` (a compare column's mesh, not captured yet): its every option
    a learner types (`--shard model`, or the `--layout-map FILE` that divides it), its one target."""
    return command_line(capture_argv(model, wanted))


def variant_hint(bundle, target: str, lang: str = "en") -> str:
    """The what-if screen with no other variant cached: the command that captures one."""
    return label("whatif.nothing", lang).format(target=target, todo=_variant_command(bundle, target, lang))


def only_variant_note(bundle, target: str, lang: str = "en") -> str:
    """`v` with one other variant cached: there is nothing to switch to, and how to capture more."""
    return label("whatif.only_one", lang).format(todo=_variant_command(bundle, target, lang))


def _variant_command(bundle, target: str, lang: str) -> str:
    command = command_line(["diff", model_argument(bundle), "--vary", "batch=1,64", "--target", target])
    return runnable(command, lang)


def tour_command(name: str, model: str) -> str:
    """The command that captures what a built-in lesson needs and opens it."""
    return command_line(["tour", name, model])


def capture_key_note(session, can_capture: bool) -> str | None:
    """What `c` (capture the default targets missing) says instead of capturing, or None when it
    captures: a bundle or pack is not captured into, and what it holds already is not suggested."""
    if can_capture:
        return None
    missing = session.missing_targets()
    if not missing:
        return label("suggest.nothing_to_capture", session.lang).format(targets=", ".join(DEFAULT_TARGETS))
    command = grow_command(session.bundle, _model_of(session), session.targets_to_capture()) \
        if session.bundle is not None else command_line(["capture", _model_of(session)])
    return label("suggest.capture_from_bundle", session.lang).format(targets=", ".join(missing),
                                                                     todo=runnable(command, session.lang))


def passes_key_note(session, can_capture: bool) -> str | None:
    """What `c` on a filmstrip without frames says instead of capturing, or None when it captures."""
    if can_capture:
        return None
    command = open_with_passes(session.bundle, _model_of(session)) if session.bundle is not None else \
        command_line(["open", _model_of(session), "--passes"])
    return label("suggest.passes_from_bundle", session.lang).format(todo=runnable(command, session.lang))


def _model_of(session) -> str:
    return model_argument(session.bundle, session.model_spec) if session.bundle is not None else \
        (session.model_spec or "MODEL")
