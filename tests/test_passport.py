"""The tensor's passport on the recorded mnist_cnn bundle (cpu, gpu:h100, tpu:v5e): every hop,
its evidence and where it guesses; the layers that compute nothing; the command line."""

from __future__ import annotations

import json

import pytest

from explorer.cli.main import main
from explorer.errors import TensorwegError
from explorer.hlo.stack_frames import read_stack_frames
from explorer.model.bundle import Bundle
from explorer.views.passport import passport
from explorer.views.passport.text import as_json, as_text

from tests.conftest import files_under

LEVELS = ["python", "layers", "graph", "hlo", "optimized-hlo", "kernels", "machine-code", "memory"]


@pytest.fixture(scope="module")
def bundle(recorded_bundle) -> Bundle:
    return Bundle.open(recorded_bundle)


def hops(found):
    return {hop.level: hop for hop in found.hops}


@pytest.mark.parametrize("target", ["cpu", "gpu:h100", "tpu:v5e"])
def test_hops_come_in_order_each_naming_its_evidence(bundle, target):
    found = passport(bundle, target, "conv2d")
    assert [hop.level for hop in found.hops] == LEVELS
    assert all(hop.evidence for hop in found.hops)
    assert found.went == ""


def test_cpu_conv2d_reads_from_the_keras_line_to_the_ymm_registers_and_the_buffer(bundle):
    found = hops(passport(bundle, "cpu", "conv2d"))
    python = dict(found["python"].details)
    assert python["file"] == "keras/src/layers/convolutional/base_conv.py" and python["line"] == 256
    assert python["text"] == "outputs = self.convolution_op(inputs, self.kernel)"
    # cpu's own lines, from the TF ops' tracebacks graph.json records (TF's HLO metadata names ops.py only)
    assert found["python"].evidence == "op_traceback" and python["source_target"] == "cpu"
    assert not found["python"].heuristic
    emitting = {line["text"]: line["instructions"] for line in python["source_lines"] if line["instructions"]}
    assert emitting["result = tf.nn.convolution("] == ["convolution.1"]
    assert dict(found["layers"].details) == {"class_name": "Conv2D", "output_shapes": [[1, 26, 26, 8]]}
    assert found["graph"].name == "mnist_cnn_1/conv2d_1/convolution"  # the Conv2D op, not a variable read
    assert [op["op"] for op in dict(found["graph"].details)["ops"]] == ["Conv2D", "Reshape", "Squeeze", "BiasAdd",
                                                                        "Relu"]
    assert found["hlo"].name == "convolution.1"
    assert found["optimized-hlo"].name == "broadcast_maximum_fusion"
    assert dict(found["optimized-hlo"].details)["fused"] == ["broadcast", "add", "maximum"]
    assert found["kernels"].name == "broadcast_maximum_fusion"
    machine = dict(found["machine-code"].details)
    assert machine["kind"] == "x86" and any(r.startswith("ymm") for r in machine["registers"])
    assert {line["access"] for line in machine["code_lines"]} == {"load", "store", "compute"}
    assert not any("rsp" in a for a in machine["addressing"])  # spills are not the tensor
    assert found["machine-code"].heuristic
    memory = dict(found["memory"].details)
    assert (memory["allocation"], memory["offset"], memory["size"]) == (17, 0, 21632)


def test_the_gpu_convolutions_buffer_is_its_outputs_not_cudnns_workspace(recorded_bundle, capsys):
    """cuDNN's convolution returns (f32[1,26,26,8] output, u8[0] scratch workspace): each tuple element
    is its own value, the workspace (index 1) in allocation 3 with 0 bytes, the output (index 0) at
    offset 54,272 of the temp allocation 18 (the fixture's buffer_assignment.txt). The passport follows
    element 0, as the data flow reads it (get-tuple-element.1.0, index=0); it named the workspace."""
    assert main(["passport", str(recorded_bundle), "--layer", "conv2d", "--target", "gpu:h100", "--json"]) == 0
    memory = next(hop for hop in json.loads(capsys.readouterr().out)["hops"] if hop["level"] == "memory")
    assert memory["tensor"] == "cudnn-conv-bias-activation.3"
    assert (memory["shape_index"], memory["allocation"], memory["offset"], memory["size"], memory["live_range"]) \
        == ("{0}", 18, 54272, 21632, [6, 8])
    assert main(["passport", str(recorded_bundle), "--layer", "conv2d", "--target", "gpu:h100"]) == 0
    text = capsys.readouterr().out.split("8. buffer:", 1)[1]
    assert "its tuple element {0}, f32[1,26,26,8]{3,2,1,0}" in text
    assert "offset 54,272 size 21,632 B (21.1 KiB) {0}" in text and "live   positions 6..8" in text
    assert "allocation 3 " not in text and "size 0 B" not in text


def test_python_lines_read_from_the_module_stack_frames_name_the_instructions_they_emitted(bundle):
    lines = dict(hops(passport(bundle, "gpu:h100", "conv2d"))["python"].details)["source_lines"]
    emitting = {line["file"]: line["instructions"] for line in lines if line["instructions"]}
    assert emitting["keras/src/backend/jax/nn.py"] in (["conv_general_dilated.1"], ["jit_relu_.1"])
    assert not any(line["file"].startswith(("/", "<")) for line in lines)  # relative to the package


def test_stack_frames_follow_parents_to_the_root(bundle):
    frames = read_stack_frames(bundle.hlo_text("gpu:h100"))
    chain = frames.chain(27)
    assert chain[0].function == "softmax" and chain[-1].function == "_run_module_as_main"
    assert not read_stack_frames(bundle.hlo_text("cpu"))  # TF's module carries no tables


def test_h100_dense_goes_down_to_sass_registers(bundle):
    found = hops(passport(bundle, "gpu:h100", "dense"))
    machine = dict(found["machine-code"].details)
    assert machine["kind"] == "sass" and machine["registers_per_thread"] > 0
    assert any(line["text"].split()[1].startswith("STG") for line in machine["code_lines"])
    assert all(r.startswith(("R", "UR", "P")) for r in machine["registers"])


def test_h100_conv2d_is_a_cudnn_call_without_machine_code(bundle):
    found = hops(passport(bundle, "gpu:h100", "conv2d"))
    assert found["kernels"].name == "cudnn-conv-bias-activation.3"
    assert "library" in found["machine-code"].missing


def test_v5e_conv2d_ends_in_a_tiled_layout_in_vmem(bundle):
    found = hops(passport(bundle, "tpu:v5e", "conv2d"))
    machine = found["machine-code"]
    assert machine.evidence == "layout" and dict(machine.details)["kind"] == "tpu"
    assert any("T(8,128)" in line for line in machine.lines) and any("VMEM" in line for line in machine.lines)


@pytest.mark.parametrize(("layer", "where"), [("image", "entry parameter 0"), ("flatten", "bitcast")])
def test_a_layer_without_computation_says_where_its_tensor_went(bundle, layer, where):
    found = passport(bundle, "cpu", layer)
    assert where in found.went and found.tensor == ""
    assert hops(found)["memory"].name  # the buffer it lives in after all


def test_an_item_below_the_layers_is_followed_from_its_layer(bundle):
    found = passport(bundle, "cpu", level="kernels", item="broadcast_maximum_fusion")
    assert found.layer == "conv2d" and found.tensor == "broadcast_maximum_fusion"


def test_german_words(bundle):
    text = as_text(passport(bundle, "cpu", "conv2d", lang="de"), "de")
    assert "Steckbrief von conv2d auf cpu" in text and "Beleg:" in text and "Puffer" in text  # not "Pass" (issue 37)


@pytest.mark.parametrize(("target", "layer", "message"), [("gpu:a100", "conv2d", "not in this bundle"),
                                                          ("cpu", "nope", "unknown layer")])
def test_bad_input_raises_one_line(bundle, target, layer, message):
    with pytest.raises(TensorwegError, match=message):
        passport(bundle, target, layer)


def test_json_keeps_the_hops_in_order(bundle):
    data = json.loads(as_json(passport(bundle, "tpu:v5e", "conv2d")))
    assert [hop["level"] for hop in data["hops"]] == LEVELS
    assert all({"level", "name", "evidence"} <= set(hop) for hop in data["hops"])
    first = data["hops"][0]
    assert first["file"].startswith("keras/") and first["line"] and first["text"]


def test_command_prints_text_and_json(recorded_bundle, capsys):
    assert main(["passport", str(recorded_bundle), "--layer", "conv2d", "--lang", "en"]) == 0
    assert "8. buffer: broadcast_maximum_fusion" in capsys.readouterr().out
    assert main(["passport", str(recorded_bundle), "--layer", "dense", "--target", "gpu:h100", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tensor"] == "triton_softmax.2"


def test_command_writes_markdown_and_html_escaped(recorded_bundle, tmp_path, capsys):
    out = tmp_path / "pass"
    assert main(["passport", str(recorded_bundle), "--layer", "conv2d", "-o", str(out), "--lang", "de"]) == 0
    assert sorted(files_under(out)) == ["passport.html", "passport.md"]
    markdown = (out / "passport.md").read_text(encoding="utf-8")
    assert markdown.startswith("# Steckbrief von conv2d auf cpu") and "base\\_conv.py" in markdown
    assert "<pre>" in (out / "passport.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("args", [["--layer", "nope"], ["--layer", "conv2d", "--target", "gpu:a100"],
                                  ["--layer", "conv2d", "--target", "tpu:v9"]])
def test_command_bad_input_is_one_error_line_and_writes_nothing(recorded_bundle, tmp_path, capsys, args):
    out = tmp_path / "pass"
    assert main(["passport", str(recorded_bundle), *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert not out.exists()


def test_tvm_conv2d_reaches_the_fused_multiply_adds_in_llvm_s_att_assembly(recorded_bundle):
    tvm = Bundle.open(recorded_bundle.parent / "mnist_cnn_tvm")
    found = hops(passport(tvm, "tvm:cpu", "conv2d"))
    assert found["optimized-hlo"].name == found["kernels"].name == "fused_conv2d_relu"
    machine = dict(found["machine-code"].details)
    assert any(line["text"].startswith("vfmadd") for line in machine["code_lines"])
    assert any(r.startswith("ymm") for r in machine["registers"])


@pytest.mark.parametrize(("line", "access", "registers", "memory"), [
    ("      a0:  vmovups xmm4, xmmword ptr [rax + rdx + 0xa0]", "load", ("xmm4",), "[rax + rdx + 0xa0]"),
    ("      4b:  vmovaps ymmword ptr [rsp + 0x100], ymm1", "store", ("ymm1",), "[rsp + 0x100]"),
    ("     5c6:  vmaxss xmm0, xmm9, xmm0", "compute", ("xmm0", "xmm9"), ""),
    ("\tvmovups\t%zmm0, 64(%rax,%rcx,4)", "store", ("zmm0",), "64(%rax,%rcx,4)"),
    ("\tvfmadd231ps\t(%rdx), %zmm1, %zmm2", "compute", ("zmm1", "zmm2"), "(%rdx)"),
    ("\tvmovups\t-64(%rsi), %zmm3", "load", ("zmm3",), "-64(%rsi)"),
])
def test_the_assembly_reader_tells_loads_stores_and_computes_in_both_syntaxes(line, access, registers, memory):
    from explorer.capture.disassembly import read_listing_line

    read = read_listing_line(line)
    assert (read.access, read.vector_registers, read.memory) == (access, registers, memory)


@pytest.mark.parametrize(("line", "access", "registers"), [
    ("/*01f0*/  LDG.E.CONSTANT R3, desc[UR4][R2.64] ;", "load", ("R3", "UR4", "R2")),
    ("/*0210*/  @!P0 STG.E desc[UR4][R4.64], R3 ;", "store", ("UR4", "R4", "R3")),
    ("/*0250*/  FFMA.SAT R2, R10, R12.reuse, 0.5 ;", "compute", ("R2", "R10", "R12")),
    ("/*0010*/  S2R R0, SR_TID.X ;", "", ("R0",)),
])
def test_the_sass_reader_tells_loads_stores_and_computes(line, access, registers):
    from explorer.capture.sass import read_sass_line

    read = read_sass_line(line)
    assert (read.access, read.registers) == (access, registers)
