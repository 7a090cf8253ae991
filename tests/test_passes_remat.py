"""Following an instruction of a training step with --remat: jax.checkpoint's recomputation, on a real
XLA:CPU film (tests/fixtures/train_remat/README.md). XLA's own rematerialization pass changed nothing
for the samples on any target, so only JAX's recomputation is detected."""

from __future__ import annotations

from pathlib import Path

from explorer.model.bundle import Bundle
from explorer.model.passes import follow, read_filmstrip
from explorer.views import passes as pass_view

from pilot_support import BUNDLE

REMAT = Path(__file__).parent / "fixtures" / "train_remat" / "cpu"


def test_the_backward_passs_recomputation_says_it_was_rematerialised():
    steps = follow(read_filmstrip(REMAT), "conv_general_dilated.4")
    assert (steps[0].frame, steps[0].kind, steps[0].into) == (0, "rematerialised", "conv_general_dilated.3")
    assert steps[0].sentence == (
        "conv_general_dilated.4 (convolution) is the backward pass's recomputation of conv_general_dilated.3 "
        "(jit(train_step)/jvp(conv2d)/conv_general_dilated): jax.checkpoint rematerialised it before any XLA pass")


def test_the_forward_instruction_names_its_recomputation():
    steps = follow(read_filmstrip(REMAT), "conv_general_dilated.3")
    assert [(s.kind, s.into) for s in steps if s.kind == "rematerialised"] == [("rematerialised",
                                                                                "conv_general_dilated.4")]
    # The weight gradient's convolution reads the recomputation but repeats no forward work.
    assert not [s for s in follow(read_filmstrip(REMAT), "conv_general_dilated.5") if s.kind == "rematerialised"]


def test_without_remat_nothing_is_rematerialised():
    strip = pass_view.filmstrip(Bundle.open(BUNDLE), "cpu")
    names = [line.name for lines in strip.frame(0).computations.values() for line in lines]
    assert names and not any(step.kind == "rematerialised" for name in names for step in follow(strip, name)[:1])
