"""The line scanners (explorer/hlo/scan.py) on large modules: what reads HLO text without the parser.

Builds modules the size of a large training step from recorded ones (the computations repeated,
the entry computation's body repeated inside the one entry): the mlp 2x2 model-parallel TPU step
(tests/fixtures/train) for the training step's buffers, its collectives and its TPU program steps,
its sharded module (tests/fixtures/bundles/mlp_mesh_4x4) for the mesh view, and mnist_cnn's
optimized TPU module (tests/fixtures/hlo) for one filmstrip frame. Prints each reader's median
process CPU milliseconds (steadier than wall time on a shared machine); compare runs of two
commits on the same machine, not absolutes across machines.

    .venv/bin/python bench/bench_scan.py [--copies 200] [--runs 9]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.capture.jax_levels import tpu_program_steps  # noqa: E402  (after ROOT is on the path)
from explorer.hlo.scan import count_instructions  # noqa: E402
from explorer.model import passes, sharding, training  # noqa: E402
from explorer.views import mesh  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"


def enlarged(text: str, copies: int) -> str:
    """`text` with its computations repeated `copies` times and its entry's body as often within the one entry."""
    header, _, body = text.partition("\n\n")
    before, _, entry = body.partition("ENTRY ")
    entry_head, _, rest = entry.partition("\n")
    entry_body, _, after = rest.partition("\n}")
    return (f"{header}\n\n" + before * copies + f"ENTRY {entry_head}\n" + "\n".join([entry_body] * copies)
            + f"\n}}{after}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=200)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    step = enlarged((FIXTURES / "train" / "mlp_train_tpu_v5e_2x2_model.hlo.txt").read_text(), args.copies)
    sharded = enlarged((FIXTURES / "bundles" / "mlp_mesh_4x4" / "targets" / "tpu-v5e" / "sharded_hlo.txt").read_text(),
                       args.copies * 2)
    frame = enlarged((FIXTURES / "hlo" / "mnist_cnn_tpu-v5e_optimized_hlo.txt").read_text(), args.copies * 3 // 2)
    layout = training.StepLayout(mode="train", optimizer="sgd", compiler="XLA:TPU (JAX)",
                                 arguments=(training.ArgumentGroup(training.WEIGHTS, 0, ("a", "b", "c", "d")),))
    work = {
        "filmstrip frame (passes.read_frame)": (frame, passes.read_frame),
        "frame counts (count_instructions)": (frame, count_instructions),
        "collectives (sharding.collectives)": (step, sharding.collectives),
        "step buffers (training.step_memory)": (step, lambda text: training.step_memory(layout, text, ())),
        "TPU program steps (tpu_program_steps)": (step, tpu_program_steps),
        "mesh values (mesh.sharded_values)": (sharded, mesh.sharded_values),
    }
    for title, (text, read) in work.items():
        times = []
        for _ in range(args.runs):
            start = time.process_time()
            read(text)
            times.append(time.process_time() - start)
        print(f"{title:<40} {text.count(chr(10)):>9,} lines {len(text) / 2**20:6.1f} MiB  "
              f"median {statistics.median(times) * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
