"""The table of levels (explorer/levels.py): each row's facts hold where the rest of the program reads them."""

from __future__ import annotations

import pytest

from explorer.capture.placement import level_present
from explorer.labels import label
from explorer.levels import ALL, LEVELS, LIST_LEVELS, Level, hlo_level, level_named
from explorer.model.bundle import Bundle

from pilot_support import BUNDLE


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_level_has_its_title_help_and_key_labels_in_both_languages(lang):
    for level in ALL:
        for key in (level.title_key, level.help_key, f"binding.{level.binding}", f"tooltip.{level.binding}"):
            assert label(key, lang).strip(), key  # label() raises on a key it does not have


def test_each_level_has_its_own_key_and_binding():
    assert len({level.key for level in ALL}) == len({level.binding for level in ALL}) == len(ALL)


def test_down_and_up_walk_the_list_levels_in_order_and_memory_sits_beside_them():
    walked, at = [], level_named(LIST_LEVELS[0])
    while at is not None:
        walked.append(at.name)
        assert at.down is None or at.down.up is at
        at = at.down
    assert tuple(walked) == LIST_LEVELS
    assert level_named("memory").down is None and level_named("memory").up is None


def test_a_name_no_level_has_is_refused_with_the_names_there_are():
    with pytest.raises(KeyError, match="unknown level 'mesh'.*optimized-hlo"):
        level_named("mesh")
    assert [level_named(name).name for name in LEVELS] == list(LEVELS)


def test_the_two_hlo_modules_are_the_lowered_and_the_optimized_level():
    assert hlo_level(False).lowered and not hlo_level(False).optimized
    assert hlo_level(True).optimized and hlo_level(True).is_hlo and not hlo_level(True).lowered


def test_a_row_that_holds_no_known_kind_of_item_is_refused():
    with pytest.raises(ValueError, match="holds 'bytes'"):
        Level("bytes", "b", "app.bytes", "bytes.json", "bytes", per_target=True)


def test_each_captured_level_of_a_recorded_bundle_is_in_its_file():
    """`file` is where the capture wrote each level: the cache's completeness check reads it."""
    bundle = Bundle(BUNDLE)
    checked = [(level.name, target) for level in ALL for target in (bundle.targets if level.per_target else ("",))
               if bundle.status(level.name, target).status == "ok"]
    assert len(checked) > len(ALL)  # every level, on more than one target
    assert all(level_present(bundle, name, target) for name, target in checked)
