"""How a list fits its columns into its width (`explorer.views.columns`): the content's widths when
they fit, the name column first, readable minimums, and an ellipsis wherever a cell is cut."""

from __future__ import annotations

from explorer.views.columns import ELLIPSIS, FLOOR, NAME_FLOOR, cut, fit_widths


def test_columns_that_fit_keep_their_content_widths():
    assert fit_widths([20, 12, 14, 30], [11, 6, 5, 7], 80) == [20, 12, 14, 30]


def test_short_of_room_the_name_comes_first_and_the_longest_words_last():
    # optimized HLO at 80 columns: name 28, a custom call's opcode 41, a tuple shape 35, op_name 60
    widths = fit_widths([28, 41, 35, 60], [11, 6, 5, 7], 72)
    assert sum(widths) == 72
    assert widths[0] == 28  # the instruction's whole name
    assert widths[1] >= 16 and widths[2] >= 16  # kind and shape readable before op_name grows
    assert widths[3] == min(widths)


def test_every_column_keeps_its_floor_and_its_title_and_the_list_scrolls_beyond_that():
    widths = fit_widths([60, 30, 30, 30], [11, 6, 5, 12], 20)
    assert widths == [NAME_FLOOR, FLOOR, FLOOR, 12]  # a title is never cut
    assert fit_widths([10, 3, 30], [5, 1, 5], 20)[:2] == [10, 3]  # a narrow column keeps its width


def test_a_cut_is_never_silent():
    assert cut("loop_multiply_fusion", 20) == "loop_multiply_fusion"
    assert cut("loop_multiply_fusion", 17, middle=True) == "loop_mul" + ELLIPSIS + "y_fusion"
    assert cut("f32[1,26,26,8]{3,2,1,0}", 10) == "f32[1,26," + ELLIPSIS
    assert all(len(cut("x" * 40, width, middle)) == width for width in range(1, 30) for middle in (True, False))
