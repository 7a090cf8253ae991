"""The Textual app: one factory for the CLI and the tests, state, and the trail.

The app owns all state (bundle, target, selections per level, the trail of
descents); screens read it and call `descend` / `go_back` / `goto_level`.
Captures run in a thread worker that only posts `screens.messages` events,
so the first frame never waits for a compiler.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App
from textual.binding import Binding

from explorer.bundle import TARGET_LEVELS, Bundle
from explorer.course.labels import label
from explorer.errors import TensorwegError
from explorer.records import CaptureOptions

from screens.commands import ItemCommands
from screens.items import LEVEL_ORDER, LEVEL_TITLES
from screens.messages import BundleLoaded, CaptureFailed, LevelCaptured, LevelStarted
from screens.trace import NEXT_DOWN, Trace, build_trace

if TYPE_CHECKING:
    from explorer.course.tours import Tour

CSS_DIR = Path(__file__).parent


def _screen_factories() -> dict:
    # Imported here so `import screens.app` stays cheap until a screen is shown.
    from screens.graph import GraphScreen
    from screens.hlo import HloScreen
    from screens.kernels import KernelsScreen
    from screens.layers import LayersScreen
    from screens.memory_map import MemoryMapScreen
    from screens.optimized_hlo import OptimizedHloScreen

    return {
        "layers": LayersScreen, "graph": GraphScreen, "hlo": HloScreen,
        "optimized-hlo": OptimizedHloScreen, "kernels": KernelsScreen, "memory": MemoryMapScreen,
    }


class TensorwegApp(App):
    CSS_PATH = CSS_DIR / "app.tcss"
    TITLE = "tensorweg"
    COMMANDS = App.COMMANDS | {ItemCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("1", "goto_level('layers')", "Layers", id="app.level1", tooltip="Level 1: Keras layers"),
        Binding("2", "goto_level('graph')", "Graph", id="app.level2", tooltip="Level 2: TensorFlow graph ops"),
        Binding("3", "goto_level('hlo')", "HLO", id="app.level3", tooltip="Level 3: HLO before optimisation"),
        Binding("4", "goto_level('optimized-hlo')", "Opt HLO", id="app.level4",
                tooltip="Level 4: HLO after XLA's optimisation passes"),
        Binding("5", "goto_level('kernels')", "Kernels", id="app.level5", tooltip="Level 5: emitted kernels"),
        Binding("m", "goto_level('memory')", "Memory", id="app.memory",
                tooltip="Memory map of the optimized level: allocations and live ranges"),
        Binding("t", "next_target", "Target", id="app.target", tooltip="Show the next captured target"),
        Binding("c", "capture_missing", "Capture", show=False, id="app.capture",
                tooltip="Capture the targets not in this bundle (needs a model, not only a bundle)"),
        Binding("question_mark", "help", "Help", id="app.help", tooltip="Help for this screen"),
        Binding("G", "glossary", "Glossary", id="app.glossary", tooltip="Open the glossary (searchable)"),
        Binding("L", "toggle_language", "Lang", id="app.language",
                tooltip="Switch language (English/German): interface labels and explanations"),
        Binding("T", "tours", "Tours", id="app.tours", tooltip="Choose a built-in guided tour"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit tensorweg"),
        Binding("x", "compare_targets", "Compare targets", id="app.compare",
                tooltip="The selected layer on every target side by side: fusions, kernels, layouts, est. time"),
    ]

    def action_compare_targets(self) -> None:
        from screens.compare import CompareScreen, layer_for_selection  # noqa: PLC0415

        if not isinstance(self.screen, CompareScreen):
            self.push_screen(CompareScreen(layer_for_selection(self)))

    def __init__(self, bundle_path: Path | None = None, model_spec: str | None = None,
                 options: CaptureOptions | None = None, level: str = "layers", target: str = "cpu",
                 select: str | None = None, lang: str = "en") -> None:
        super().__init__()
        for mode, factory in _screen_factories().items():
            self.add_mode(mode, factory)
        self.animation_level = "none"
        self.theme = "textual-dark"
        self.bundle_path = Path(bundle_path) if bundle_path else None
        self.model_spec = model_spec
        self.options = options or CaptureOptions(targets=(target,))
        self.start_level = level
        self.target = target
        self.lang = lang
        self.bundle: Bundle | None = None
        self.trace: Trace = build_trace(None)
        self.generation = 0
        self.selections: dict[str, str] = {}
        self.trail: list[tuple[str, str]] = []
        self.progress: dict[tuple[str, str], str] = {}  # (level, target) -> running/ok/failed: msg
        self.load_error = ""
        self._cancel = threading.Event()
        if select:
            self.selections[level] = select

    # --- start and data -------------------------------------------------------

    def on_mount(self) -> None:
        if self.bundle_path is not None:
            self._open(self.bundle_path)
        self.switch_mode(self.start_level)
        self.screen_change_signal.subscribe(self, self._relabel_later)
        self._relabel_later(self.screen)
        if getattr(self, "start_tour", None) is not None:
            self.begin_tour(self.start_tour)
        if self.bundle is None and self.model_spec:
            self.run_capture()

    def on_unmount(self) -> None:
        self._cancel.set()

    def _open(self, path: Path) -> None:
        try:
            bundle = Bundle.open(path)
        except TensorwegError as exc:
            self.load_error = str(exc)
            return
        self.load_error = ""
        self.bundle = bundle
        if self.target not in bundle.targets and bundle.targets:
            self.target = bundle.targets[0]
        self.trace = build_trace(bundle)
        self.generation += 1

    @work(thread=True, exclusive=True, group="capture")
    def run_capture(self) -> None:
        """Run the orchestrator; only posts messages (the app's handlers own state)."""
        from explorer.capture.orchestrator import capture  # noqa: PLC0415 (heavy, only when capturing)

        def on_event(event) -> None:
            staging = Path(event.staging_dir) if event.staging_dir else None
            if event.kind == "level_started":
                self.post_message(LevelStarted(event.level, event.target))
            elif event.kind == "level_done":
                self.post_message(LevelCaptured(event.level, event.target, event.seconds, staging))
            elif event.kind == "level_failed":
                self.post_message(CaptureFailed(event.level, event.target, event.error))

        try:
            path = capture(self.model_spec, self.options, on_event=on_event, cancel=self._cancel)
        except TensorwegError as exc:
            self.post_message(CaptureFailed("", "", str(exc)))
            return
        self.post_message(BundleLoaded(path))

    @on(LevelStarted)
    def _level_started(self, event: LevelStarted) -> None:
        self.progress[(event.level, event.target)] = "running"
        self._sync_screen()

    @on(LevelCaptured)
    def _level_captured(self, event: LevelCaptured) -> None:
        self.progress[(event.level, event.target)] = "ok"
        if event.staging_dir is not None and event.staging_dir.is_dir():
            # A fresh reader: the old one cached "not captured yet" for missing files.
            staging = Bundle(event.staging_dir)
            self.bundle = staging
            self.trace = build_trace(staging)
            self.generation += 1
        self._sync_screen()

    @on(CaptureFailed)
    def _capture_failed(self, event: CaptureFailed) -> None:
        if event.level:
            self.progress[(event.level, event.target)] = f"failed: {event.error}"
        else:
            self.load_error = event.error
        self._sync_screen()

    @on(BundleLoaded)
    def _bundle_loaded(self, event: BundleLoaded) -> None:
        self.progress.clear()
        self._open(event.path)
        self._sync_screen()

    def _sync_screen(self) -> None:
        sync = getattr(self.screen, "sync", None)
        if sync is not None:
            sync()

    # --- what screens ask ------------------------------------------------------

    @property
    def can_capture(self) -> bool:
        return bool(self.model_spec)

    def has_manifest(self) -> bool:
        return self.bundle is not None and (self.bundle._manifest is not None
                                            or (self.bundle.path / "manifest.json").is_file())

    def captured_targets(self) -> tuple[str, ...]:
        """Targets of the bundle; while capturing, the ones requested."""
        return self.bundle.targets if self.has_manifest() else self.options.targets

    def level_status(self, level: str) -> tuple[str, str]:
        """(status, error) for `level` on the current target, from the capture or the manifest."""
        key_target = self.target if level in TARGET_LEVELS else ""
        if (level, key_target) in self.progress:
            state = self.progress[(level, key_target)]
            return ("failed", state[8:]) if state.startswith("failed: ") else (state, "")
        if self.bundle is None:
            return ("failed", self.load_error) if self.load_error else ("pending", "")
        if not self.has_manifest():
            return ("pending", "")  # a staging directory: only what was reported is known
        status = self.bundle.status(level, self.target)
        return status.status, status.error

    def level_ready(self, level: str) -> bool:
        return self.bundle is not None and self.level_status(level)[0] == "ok"

    def level_notice(self, level: str) -> str:
        """One line under the title when the level cannot be shown (yet)."""
        status, error = self.level_status(level)
        if status == "ok":
            return ""
        usable = [LEVEL_TITLES[lvl] for lvl in LEVEL_ORDER if lvl != level and self.level_status(lvl)[0] == "ok"]
        still = f" Still usable: {', '.join(usable)} (keys 1-5)." if usable else ""
        if status == "failed":
            return f"{LEVEL_TITLES[level]} failed for {self.target}: {error}.{still}"
        if status == "running":
            return f"Capturing {LEVEL_TITLES[level]} for {self.target}...{still}"
        if status == "unavailable":
            return f"{LEVEL_TITLES[level]} is unavailable for {self.target}: {error}.{still}"
        return f"{LEVEL_TITLES[level]} not captured yet for {self.target}.{still}"

    def title_line(self, level: str) -> str:
        model = self.bundle.model_name if self.has_manifest() else (self.model_spec or "no model")
        number = LEVEL_ORDER.index(level) + 1 if level in LEVEL_ORDER else 4
        trail = " > ".join(name.rsplit("/", 1)[-1] for _, name in self.trail[-3:])
        return f"{model} | {number} {self.level_title(level)} | {self.target}" + (f" | trail: {trail}" if trail else "")

    def progress_line(self) -> str:
        if not self.progress:
            return ""
        marks = {"running": "..", "ok": "ok"}
        parts = [f"{level}{'@' + target if target else ''} {marks.get(state, 'FAILED')}"
                 for (level, target), state in self.progress.items()]
        return "capture: " + "  ".join(parts)

    # --- navigation -------------------------------------------------------------

    def goto_level(self, level: str, select: str | None = None) -> None:
        if select:
            self.selections[level] = select
        if self.current_mode == level:
            self._sync_screen()
        else:
            self.switch_mode(level)

    def action_goto_level(self, level: str) -> None:
        self.goto_level(level)

    def descend(self, level: str, name: str) -> None:
        """Enter: from `name` to the first item one level down that implements it."""
        below = NEXT_DOWN.get(level)
        if below is None:
            self.notify("This is the lowest level.", severity="information")
            return
        found = self.trace.down(level, name, self.target)
        if not found:
            self.notify(f"Nothing one level down implements {name} (compiler-created or removed).",
                        severity="warning")
            return
        self.trail.append((level, name))
        if len(found) > 1:
            self.notify(f"{len(found)} items implement {name}: {', '.join(found[:4])}")
        # Land on the first item that itself leads further down (the Conv2D op, not the
        # ReadVariableOp feeding it), so repeated Enter follows the computation.
        first = found[0]
        if below in NEXT_DOWN:
            first = next((n for n in found[:50] if self.trace.down(below, n, self.target)), first)
        self.goto_level(below, first)

    def go_back(self) -> None:
        """Backspace/Escape: back to where the last descent started, selection restored."""
        if not self.trail:
            return
        level, name = self.trail.pop()
        self.goto_level(level, name)

    def action_next_target(self) -> None:
        targets = self.captured_targets()
        if len(targets) < 2:
            self.notify("Only one target captured.")
            return
        self.target = targets[(targets.index(self.target) + 1) % len(targets)] if self.target in targets else targets[0]
        self.generation += 1
        self._sync_screen()

    def action_capture_missing(self) -> None:
        if not self.can_capture:
            self.notify("Opened from a bundle: run a capture with the extra targets to add them.")
            return
        self.run_capture()

    # --- course: glossary, language, tours --------------------------------------

    def level_title(self, level: str) -> str:
        # English keeps the short titles the level screens use; German comes from the course labels.
        return LEVEL_TITLES[level] if self.lang == "en" else label(f"level.{level}", self.lang)

    def _relabel_later(self, screen) -> None:
        screen.call_after_refresh(self._relabel, screen)

    def _relabel(self, screen) -> None:
        """Pane titles of a level screen in the current language (screens compose them in English)."""
        for pane_id, key in (("#memory-box", "pane.memory_layout"), ("#device-box", "pane.device_mapping"),
                             ("#explain-box", "pane.explanation")):
            for pane in screen.query(pane_id):
                pane.border_title = label(key, self.lang)

    def action_toggle_language(self) -> None:
        self.lang = "de" if self.lang == "en" else "en"
        for screen in self.screen_stack:  # the level screen under a tour or glossary too
            self._relabel(screen)
            if (sync := getattr(screen, "sync", None)) is not None:
                sync()  # re-selecting re-renders the explanation in the new language

    def action_glossary(self) -> None:
        from screens.glossary import GlossaryScreen  # noqa: PLC0415

        self.push_screen(GlossaryScreen(self.lang))

    def action_tours(self) -> None:
        from screens.tour import TourListScreen  # noqa: PLC0415

        self.push_screen(TourListScreen(self.lang), lambda tour: tour and self.begin_tour(tour))

    def begin_tour(self, tour: Tour) -> None:
        from screens.tour import start_tour  # noqa: PLC0415

        start_tour(self, tour)

    def action_help(self) -> None:
        from screens.help import HelpScreen  # noqa: PLC0415

        self.push_screen(HelpScreen(self.screen))


def create_app(bundle_path: Path | str | None = None, model_spec: str | None = None,
               options: CaptureOptions | None = None, level: str = "layers", target: str = "cpu",
               select: str | None = None, lang: str = "en", size: tuple[int, int] | None = None,
               tour: Tour | None = None) -> TensorwegApp:
    """The app as the CLI and the tests build it.

    `size` is recorded for headless runs (`run_test(size=app.requested_size)`);
    a real terminal decides its own size.
    """
    app = TensorwegApp(Path(bundle_path) if bundle_path else None, model_spec, options, level, target, select, lang)
    app.requested_size = size
    app.start_tour = tour  # an explorer.course.tours.Tour to start in, or None
    return app
