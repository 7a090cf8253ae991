"""(e2e) `t` keeps the layer on a fresh capture of tiny_transformer (cpu, gpu:h100, tpu:v5e).

The capture is shared with the course and tour coverage tests (`test_course.sample_bundle`).
"""

from __future__ import annotations

import pytest

from explorer.views import rows, trace

from pilot_support import opened, sync, target_key_keeps_layers

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def transformer(tmp_path_factory):
    from test_course import sample_bundle

    return sample_bundle(tmp_path_factory, "tiny_transformer")


def test_every_item_keeps_its_layer_on_every_other_target(transformer):
    for level in ("hlo", "optimized-hlo", "kernels"):
        for target in transformer.targets:
            for item in rows.rows(transformer, level, target):
                layer = trace.layer_of(transformer, level, item.name, target)
                for other in (t for t in transformer.targets if t != target and layer):
                    owned = [n for n in trace.items_for_layer(transformer, layer, level, other)
                             if trace.layer_of(transformer, level, n, other) == layer]
                    found = trace.counterpart(transformer, level, item.name, target, other)
                    if owned:
                        assert trace.layer_of(transformer, level, found, other) == layer, (level, item.name, other)


def test_entry_parameters_are_linked_to_inputs_and_weights(transformer):
    for target in transformer.targets:
        module = transformer.hlo_module(target, optimized=False)
        parameters = [i.name for i in module.entry.instructions if i.opcode == "parameter"]
        roles = [rows.parameter_role(transformer, "hlo", target, name) for name in parameters]
        assert all(role.startswith(("input", "model input", "weight ")) for role in roles), (target, roles)


@sync
async def test_target_key_keeps_the_layer_for_every_layer(transformer):
    from screens.app import create_app

    app = create_app(transformer.path, level="optimized-hlo", target=transformer.targets[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        assert await target_key_keeps_layers(app, pilot) >= 20
