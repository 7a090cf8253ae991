"""Records survive the JSON round trip with their types (tuples, optionals, nesting)."""

from explorer.hlo.model import HloComputation, HloInstruction, HloModule, Layout, Metadata, Shape, Tile
from explorer.model.records import (
    Allocation,
    AssignedValue,
    CaptureOptions,
    LayerRecord,
    LevelStatus,
    Manifest,
    ModelIdentity,
)
from explorer.model.serial import from_jsonable, to_jsonable


def test_hlo_module_round_trip_keeps_tuples_and_nested_shapes():
    layout = Layout((0, 1), (Tile((8, 128)), Tile((2, 1))), memory_space=1)
    shape = Shape("tuple", tuple_shapes=(Shape("bf16", (16, 256), (False, False), layout), Shape("token")))
    instruction = HloInstruction("copy.1", "copy", shape, ("p0",), metadata=Metadata("Conv2D", "m/conv2d/conv"),
                                 attributes=(("kind", "kLoop"),), is_root=True, line=7)
    module = HloModule("m", (HloComputation("main", (instruction,), is_entry=True),))
    restored = from_jsonable(HloModule, to_jsonable(module))
    assert restored == module
    assert isinstance(restored.computations[0].instructions[0].shape.tuple_shapes[0].layout.tiles[0].dims, tuple)


def test_records_with_optionals_round_trip():
    layer = LayerRecord("dense", "dense", "Dense", ((1, 8),), ((1, 10),), "float32", 90, 0, 360, 40, None, ("flatten",))
    assert from_jsonable(LayerRecord, to_jsonable(layer)) == layer
    allocation = Allocation(3, 1024, "temp", ("preallocated-temp",), None, (AssignedValue("fusion", "{}", 0, 512),))
    assert from_jsonable(Allocation, to_jsonable(allocation)) == allocation


def test_manifest_status_lookup():
    manifest = Manifest(1, ModelIdentity("mnist_cnn", "sample", "mnist_cnn"), CaptureOptions(), (("keras", "3"),),
                        (("", "layers", LevelStatus("ok")), ("cpu", "hlo", LevelStatus("failed", "boom"))))
    restored = from_jsonable(Manifest, to_jsonable(manifest))
    assert restored.status("hlo", "cpu").error == "boom"
    assert restored.status("kernels", "cpu").status == "pending"
