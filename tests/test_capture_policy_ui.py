"""A `serve` tab that may not capture starts no capture from any key or screen (issue 34): `c`, the
filmstrip's `c`, the compare screen's `M` (which used to call the orchestrator itself, with the bundle's
own model), `V` and a lesson's steps. Each says so in one status line, and nothing reaches the
orchestrator or a capture job."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from explorer.course.tours import builtin_tour
from explorer.session.capturing import CaptureJob, MeshJob
from explorer.session.policy import CapturePolicy

from screens.app import create_app
from screens.screenshot import workers_done

from pilot_support import BUNDLE, needs_bundle, opened, sync

MESH_BUNDLE = Path(__file__).parent / "fixtures" / "bundles" / "mlp_mesh_2x2"
FORBIDDEN = "This explorer shows what was captured"
pytestmark = needs_bundle


@pytest.fixture
def captures(monkeypatch) -> list:
    """Every capture anything asked for: the orchestrator's calls and the jobs that would run."""
    asked: list = []
    monkeypatch.setattr("explorer.capture.orchestrator.capture", lambda *args, **kwargs: asked.append(args))
    monkeypatch.setattr(CaptureJob, "run", lambda self, emit: asked.append(self))
    monkeypatch.setattr(MeshJob, "run", lambda self, emit: asked.append(self))
    return asked


def tab(bundle: Path, **where):
    """A tab of `tensorweg serve PACK`: the bundle as it is, captures forbidden (`serve`'s policy)."""
    return create_app(bundle, policy=CapturePolicy(allowed=False), **where)


@sync
async def test_c_and_the_filmstrips_c_capture_nothing(tmp_path, captures):
    copy = tmp_path / "bundle"
    shutil.copytree(BUNDLE, copy)
    shutil.rmtree(copy / "targets" / "tpu-v5e" / "passes")  # the filmstrip would offer `c`
    app = tab(copy, level="optimized-hlo", target="tpu:v5e")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert app.status.startswith(FORBIDDEN)
        await pilot.press("f", "c")
        await pilot.pause()
        await workers_done(app)
    assert captures == []


@sync
async def test_m_on_the_compare_screen_captures_no_mesh(captures):
    from screens.compare import CompareScreen

    app = tab(MESH_BUNDLE, level="layers", target="tpu:v5e", select="dense")
    async with app.run_test(size=(160, 60)) as pilot:
        await opened(pilot)
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen) and not app.screen.mesh_columns[0].captured
        await pilot.press("M")
        await pilot.pause()
        await workers_done(app)
        assert not app.screen.capturing_meshes
        assert app.status.startswith(FORBIDDEN)
        assert FORBIDDEN in str(app.screen.query_one("#status").render())  # said on the compare screen
    assert captures == []


@sync
async def test_v_and_a_lessons_steps_capture_nothing(captures):
    app = tab(BUNDLE, tour=builtin_tour("what_if"))  # a lesson written on a variant this bundle lacks
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        for _ in range(4):
            await pilot.press("n")
            await pilot.pause()
        await pilot.press("q", "V")
        await pilot.pause()
        await workers_done(app)
    assert captures == []
