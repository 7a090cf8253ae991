"""The `tensorweg` console script: the commands that open the UI, and `main`.

`explorer.cli` parses every subcommand and runs the headless ones; the ones
that need Textual (`open`, `tour`, `screenshot`, `serve`, `handout`) are handed to it from here,
so the dependency points one way: the UI imports the core, never the reverse.
Everything a user can get wrong is checked before the terminal is taken over.
Importing this module loads no command: each loads what it uses when it runs, so
`tensorweg MODEL` loads only the checks of its own command line before the UI.
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.cli import main as core_cli
from explorer.errors import TensorwegError

from screens.serve import policy as serve_policy

if TYPE_CHECKING:
    from explorer.course.tours import Tour

# How long a thread may hold the interpreter's lock while another waits for it, in the explorer
# (Python's default is 5 ms): the UI thread waits at most this after each turn of its loop.
UI_SWITCH_INTERVAL_S = 0.0001


def _require_terminal() -> None:
    """The explorer draws on a terminal and reads keys from it; without one it would wait forever."""
    if serve_policy.in_browser():  # a `tensorweg serve` tab: textual-serve is the terminal
        return
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise TensorwegError("the explorer needs a terminal (stdin and stdout); "
                             "for a picture without one use `tensorweg screenshot MODEL --out FILE.svg`")


def _run_explorer(args: argparse.Namespace, tour: Tour | None = None, tour_step: int = 0) -> int:
    """Open the explorer on a bundle directory, or capture MODEL in it; bad input fails before the UI."""
    # Start-up makes some hundred thousand objects that live as long as the app: the cyclic collector's
    # passes over them, a tenth of the time to the first rows, wait until the app has drawn its first
    # frame (`TensorwegApp.on_mount`), which also sets the start-up's objects aside for good.
    gc.disable()
    # The threads that read and index a level share the interpreter's lock with the UI thread, which
    # gives it up at every turn of its event loop (each `select`) and then waited for the interpreter's
    # switch interval (5 ms) to get it back: a key during a deep model's load took most of a second.
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(UI_SWITCH_INTERVAL_S)
    try:
        return _open_explorer(args, tour, tour_step)
    finally:
        sys.setswitchinterval(switch_interval)
        gc.enable()


def _open_explorer(args: argparse.Namespace, tour: Tour | None, tour_step: int) -> int:
    """The body of `_run_explorer`."""
    from explorer.capture.model_source import resolve  # noqa: PLC0415 (start-up: each command loads what it uses)
    from explorer.cli.commands import capture_options, default_language  # noqa: PLC0415 (start-up: as resolve)
    from explorer.course.pack import bundle_argument  # noqa: PLC0415 (start-up: as resolve)
    from explorer.targets import require_compilers  # noqa: PLC0415 (start-up: as resolve)

    options = capture_options(args)
    lang = args.lang or default_language()
    bundle_path = bundle_argument(args.model, tour)  # a bundle, or a lesson pack's (the tour's) bundle
    if bundle_path is None:
        if serve_policy.captures_forbidden():
            raise TensorwegError(f"{args.model}: this server opens lesson packs and bundles only")
        source = resolve(args.model)  # its file hashed here, once: the app reads the cache with it
        require_compilers()  # a UI-only install says how to get the compilers, before the UI
    _require_terminal()
    from screens.app import create_app, plain_terminal  # noqa: PLC0415 (Textual loads only for a valid command line)
    from screens.keymap import read_keymap  # noqa: PLC0415 (as create_app)

    keymap = read_keymap()  # a bad keymap is one error line, before the terminal is taken over
    plain = plain_terminal() and not serve_policy.in_browser()
    policy = serve_policy.policy_from_environment()
    if bundle_path is not None:
        app = create_app(bundle_path=bundle_path, lang=lang, tour=tour, plain=plain, tour_step=tour_step,
                         policy=policy, keymap=keymap)
    else:
        app = create_app(model_spec=args.model, options=options, lang=lang, tour=tour, plain=plain,
                         policy=policy, tour_step=tour_step, model_source=source, keymap=keymap)
    app.run()
    if app.failure is not None:  # a TensorwegError inside the app: one line, like any other
        raise app.failure
    return app.return_code or 0


def cmd_open(args: argparse.Namespace) -> int:
    """A lesson pack with tours opens in its first lesson, in the UI's language (what `tensorweg
    course.twpack` is for; `--lang` picks the twin)."""
    from explorer.cli.commands import default_language  # noqa: PLC0415 (start-up: each command loads what it uses)
    from explorer.course.pack import is_pack, open_pack  # noqa: PLC0415 (start-up: as default_language)

    pack = open_pack(Path(args.model)) if is_pack(Path(args.model)) else None
    tour = pack.start_tour(args.lang or default_language()) if pack is not None else None
    return _run_explorer(args, tour)


def _step_index(tour: Tour, step: int) -> int:
    """`--step N` (1-based) as an index into the tour's steps."""
    if not 1 <= step <= len(tour.steps):
        raise TensorwegError(f"--step {step}: the tour has steps 1 to {len(tour.steps)}")
    return step - 1


def cmd_tour(args: argparse.Namespace) -> int:
    """Parse the tour first (a bad tour fails before any capture), then open like `open`.

    With a lesson pack, TOUR may name one of the pack's tours. `--lang` picks a built-in lesson's twin.
    """
    from explorer.cli.commands import load_tour_argument, with_capture_options  # noqa: PLC0415 (start-up: each command loads what it uses)
    from explorer.course.pack import is_pack, open_pack  # noqa: PLC0415 (start-up: as the commands)
    from explorer.course.tours import twin_in  # noqa: PLC0415 (start-up: as the commands)

    name = twin_in(args.tour, args.lang) if args.lang else args.tour
    if is_pack(Path(args.model)) and (tour := open_pack(Path(args.model)).tour(name)) is not None:
        return _run_explorer(args, tour, _step_index(tour, args.step))
    tour = load_tour_argument(name)
    args = with_capture_options(args, tour)  # a training lesson captures a training step
    args.targets = with_tour_targets(args.targets, tour)
    return _run_explorer(args, tour, _step_index(tour, args.step))


def with_tour_targets(targets: str, tour: Tour) -> str:
    """`--targets` plus every target the tour's steps visit (the two-compiler lesson needs `tvm:cpu`),
    so a capture for the tour has them; a bundle opened as it is keeps its own."""
    from explorer.course.tours import visited_targets  # noqa: PLC0415 (start-up: the tours load only with a tour)

    asked = [target.strip() for target in targets.split(",") if target.strip()]
    return ",".join(dict.fromkeys([*asked, *visited_targets(tour)]))


def step_picture_targets(args: argparse.Namespace, tour: Tour, index: int) -> str:
    """What `screenshot MODEL --tour T` captures: the targets the tour's `# capture:` header names and
    its steps visit. A tour whose steps show only layers and graph visits none, but a capture compiles
    at least one target (a bundle has one): the pictured step's own (`cpu` unless the tour names another)."""
    return with_tour_targets(getattr(args, "targets", ""), tour) or tour.steps[index].target


def _tour_screenshot(args: argparse.Namespace, size: tuple[int, int]) -> int:
    """`screenshot --tour TOUR --step N`: the step as the learner sees it (a handout's step-NN.svg)."""
    from explorer.atomic_file import write_whole  # noqa: PLC0415 (start-up: each command loads what it uses)
    from explorer.cli.commands import capture_options, open_or_capture, with_capture_options  # noqa: PLC0415 (start-up: as write_whole)
    from explorer.cli.handout_command import find_tour  # noqa: PLC0415 (start-up: as write_whole)

    if args.select is not None:
        raise TensorwegError("--select: a tour step selects its own item; leave out --select with --tour")
    tour, _ = find_tour(args.tour, args.model)
    index = _step_index(tour, 1 if args.step is None else args.step)  # `or 1` drew step 0 as step 1
    args = with_capture_options(args, tour)
    bundle = open_or_capture(args.model, capture_options(args, targets=step_picture_targets(args, tour, index)))
    from screens.screenshot import render_tour_screenshots  # noqa: PLC0415 (loads only for the command that uses it)

    svg, = render_tour_screenshots(bundle.path, tour, range(index, index + 1), size, args.lang)
    write_whole(args.out, svg, overwrite=True)
    print(args.out)
    return 0


def cmd_screenshot(args: argparse.Namespace) -> int:
    from explorer.atomic_file import write_whole  # noqa: PLC0415 (start-up: each command loads what it uses)
    from explorer.cli.commands import (  # noqa: PLC0415 (start-up: as write_whole)
        capture_options,
        check_output_file,
        open_or_capture,
        screenshot_size,
        shown_target,
        target_argument,
    )

    size = screenshot_size(args.size)
    check_output_file(args.out, ".svg")
    if args.tour is not None:
        return _tour_screenshot(args, size)
    if args.step is not None:
        raise TensorwegError("--step: pictures a tour's step; name the tour with --tour")
    asked = target_argument(args.target)
    bundle = open_or_capture(args.model, capture_options(args, targets=asked or "cpu"))
    target = shown_target(bundle, asked)
    if target not in bundle.targets:
        raise TensorwegError(f"--target {target}: not in this bundle (captured: {', '.join(bundle.targets)})")
    from explorer.views.select_option import resolve_select  # noqa: PLC0415 (loads only for the command that uses it)

    from screens.screenshot import render_screenshot  # noqa: PLC0415 (loads only for the command that uses it)

    select = resolve_select(bundle, args.level, target, args.select).name if args.select is not None else None
    svg = render_screenshot(bundle.path, args.level, target, select, size, args.lang or "en")
    write_whole(args.out, svg, overwrite=True)
    print(args.out)
    return 0


def cmd_handout(args: argparse.Namespace) -> int:
    """The words come from `explorer.course.handout`, the pictures from the screens; one folder, whole or absent."""
    from explorer.cli.commands import capture_options, open_or_capture, with_capture_options  # noqa: PLC0415 (loads only for the command that uses it)
    from explorer.cli.handout_command import find_tour  # noqa: PLC0415 (loads only for the command that uses it)
    from explorer.course.handout import HANDOUT_FILES, HTML_FILE, MARKDOWN_FILE, handout_steps, render_html  # noqa: PLC0415 (loads only for the command that uses it)
    from explorer.course.handout_markdown import render_markdown  # noqa: PLC0415 (loads only for the command that uses it)
    from explorer.course.output_folder import check_output_folder, write_output_folder  # noqa: PLC0415 (loads only for the command that uses it)

    check_output_folder(args.output, HANDOUT_FILES, args.force)
    tour, name = find_tour(args.tour, args.model, args.lang)
    args = with_capture_options(args, tour)  # a training lesson's handout shows a training step
    bundle = open_or_capture(args.model, capture_options(args, targets=with_tour_targets(args.targets, tour)))
    steps = handout_steps(bundle, tour, name, args.model)
    from screens.screenshot import render_tour_screenshots  # noqa: PLC0415 (loads only for the command that uses it)

    pictures = render_tour_screenshots(bundle.path, tour)
    files = {MARKDOWN_FILE: render_markdown(bundle, tour, steps), HTML_FILE: render_html(bundle, tour, steps)}
    files.update((step.picture, svg) for step, svg in zip(steps, pictures, strict=True))
    files.update((step.graph, step.graph_svg) for step in steps if step.graph)  # the selections' graphs
    check_output_folder(args.output, HANDOUT_FILES, args.force)  # the pictures took a while: check again
    write_output_folder(args.output, files)
    print(args.output)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from screens.serve.command import serve  # noqa: PLC0415 (textual-serve loads only for `serve`)

    return serve(args)


UI_HANDLERS = {"open": cmd_open, "tour": cmd_tour, "screenshot": cmd_screenshot, "serve": cmd_serve,
               "handout": cmd_handout}


def main(argv: list[str] | None = None) -> int:
    return core_cli.main(argv, UI_HANDLERS)


if __name__ == "__main__":
    sys.exit(main())
