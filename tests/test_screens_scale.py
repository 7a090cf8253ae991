"""Views that scale (issue 13): a 30,000-instruction module drives like the recorded one.

Pilot tests on a generated bundle (tests/large_bundle.py: the recorded bundle with its CPU
optimized HLO replaced by 30,000 instructions): cursor moves, the filter, folding, a jump to
the last instruction, the operand key and the vertical trace; that the list and the code view
draw only the rows on screen; that parameters, constants and computations fold as groups.
Speed itself is measured by bench/bench_large.py.
"""

from __future__ import annotations

import pytest
from large_bundle import PARAMETERS, fusion_count, last_fusion_name, write_large_bundle

from explorer.model.bundle import Bundle
from explorer.views import rows as rows_view

from screens.app import create_app
from screens.widgets.code_view import CodeView
from screens.widgets.item_table import FOLDED, ItemTable

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle
SIZE = (120, 40)
INSTRUCTIONS = 30_000


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    return write_large_bundle(tmp_path_factory.mktemp("scale") / "large", INSTRUCTIONS)


def table(app) -> ItemTable:
    return app.items_table


def cells_on_screen(app) -> list[str]:
    """The first cell of every row the list draws now (its own lines, read back)."""
    rows = table(app).table
    lines = [rows.render_line(y).text for y in range(1, rows.size.height)]
    return [line.split("  ")[0].strip() for line in lines if line.strip()]


def test_the_generated_module_is_as_large_as_asked(large):
    items = rows_view.rows(Bundle.open(large), "optimized-hlo", "cpu")
    assert len(items) == INSTRUCTIONS


@sync
async def test_the_list_opens_on_the_program_with_parameters_and_constants_folded(large):
    app = create_app(large, level="optimized-hlo", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        shown = cells_on_screen(app)
        assert shown[0] == f"{FOLDED}{PARAMETERS:,} parameters" and shown[1].startswith(f"{FOLDED}100 constants")
        assert table(app).current.name == "input"  # the first row of work, past the folds
        assert not any(name.startswith("arg") for name in shown)
        # The fused computations are folded below the entry: the list holds the entry's work (its
        # input and fusions) and the reduction region's three instructions.
        assert len(table(app).shown) == 1 + fusion_count(INSTRUCTIONS) + 3


@sync
async def test_only_the_rows_on_screen_are_drawn(large):
    app = create_app(large, level="optimized-hlo", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        rows, code = table(app).table, app.screen.query_one("#code", CodeView)
        drawn_rows, drawn_code = rows.lines_rendered, len(code._lines)
        assert 0 < drawn_rows <= rows.size.height * 2
        assert 0 < drawn_code <= code.size.height * 2  # lines highlighted: those shown, not 30,000
        before = rows.lines_rendered
        for _ in range(5):
            await pilot.press("down")
        await pilot.pause()
        # Each move redraws the rows the cursor left and entered, nothing else.
        assert rows.lines_rendered - before <= 2 * 5 + 2


@sync
async def test_cursor_moves_filter_and_jump_to_the_last_name(large):
    last = last_fusion_name(INSTRUCTIONS)
    app = create_app(large, level="optimized-hlo", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        start = table(app).current.name
        await pilot.press("down", "down", "up")
        await pilot.pause()
        assert table(app).current.name == "fusion.0" and app.selections["optimized-hlo"] == "fusion.0"
        assert start == "input"
        await pilot.press("end")  # the last row: the last fused computation's (folded) header
        await pilot.pause()
        last_group = f"fused_computation.{fusion_count(INSTRUCTIONS) - 1}"
        assert table(app).current is None and cells_on_screen(app)[-1] == f"{FOLDED}{last_group}"
        await pilot.press("slash", *"fusion.374", "enter")
        await pilot.pause()
        assert [item.name for item in table(app).shown] == ["fusion.374"]  # no fusion.3740 in 3,687
        assert table(app).current.name == "fusion.374"
        await pilot.press("escape")
        app.goto_level("optimized-hlo", last)
        await opened(pilot)
        assert table(app).current.name == last and table(app).filter_text == ""
        assert last in cells_on_screen(app)
        code = app.screen.query_one("#code", CodeView)
        line = table(app).current.line
        assert code._marked == {line} and code.top < line <= code.top + code.size.height


@sync
async def test_a_group_folds_and_unfolds_with_space_and_enter(large):
    app = create_app(large, level="optimized-hlo", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        items = table(app)
        key = next(iter(items.groups))
        assert items.folded(key)
        await pilot.press("home", "enter")  # Enter on a group's header unfolds it
        await pilot.pause()
        assert not items.folded(key) and app.level == "optimized-hlo"
        assert cells_on_screen(app)[1] == "arg0"
        await pilot.press("down", "down", "space")  # space in the group folds it, the cursor on its header
        await pilot.pause()
        assert items.folded(key) and items.current is None
        assert cells_on_screen(app)[0] == f"{FOLDED}{PARAMETERS:,} parameters"


@sync
async def test_selecting_an_item_in_a_folded_group_unfolds_it(large):
    app = create_app(large, level="optimized-hlo", target="cpu", select="add.7")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert table(app).current.name == "add.7"
        assert not table(app).folded("fused_computation.7")
        assert any(cell.startswith("add.7") for cell in cells_on_screen(app))


@sync
async def test_the_operand_key_and_backspace_on_the_large_module(large):
    app = create_app(large, level="optimized-hlo", target="cpu", select="fusion.2000")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("o")
        await opened(pilot)
        assert table(app).current.name == "fusion.1999"
        assert "fusion.1999" in "".join(cells_on_screen(app))
        await pilot.press("backspace")
        await opened(pilot)
        assert table(app).current.name == "fusion.2000"


@sync
async def test_the_jump_lands_a_third_down_the_view_at_once():
    """The jump is computed from the row count, known as the rows are set: no frame waits on
    the rows being measured (the flaky 120x40 TPU snapshot landed on the wrong rows)."""
    app = create_app(BUNDLE, level="optimized-hlo", target="tpu:v5e", select="fusion.11")
    async with app.run_test(size=SIZE) as pilot:
        await app.opened.wait()
        await pilot.pause()
        rows = table(app).table
        row = rows.cursor_row
        assert table(app).current.name == "fusion.11"
        assert rows.scroll_y == max(0, min(row - rows.visible_rows // 3, rows.max_scroll_y))
        assert rows.row_in_view(row)


@sync
async def test_small_lists_group_their_parameters_too():
    app = create_app(BUNDLE, level="hlo", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        groups = table(app).groups
        assert [group.cells[0] for group in groups.values()][:2] == ["5 parameters", "4 constants"]
        # Every parameter and constant of the entry (its rows carry no computation's name) is grouped.
        entry_literals = [item for item in table(app).items
                          if item.kind in ("parameter", "constant") and item.cells[0] == item.name]
        assert len(entry_literals) == 9 and all(item.group for item in entry_literals)
