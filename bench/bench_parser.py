"""HLO parser throughput: ours vs XLA's C++ parser, on the same text in the same run.

Reads the corpus of sample captures (every HLO text under tests/fixtures that
XLA's parser here accepts), then generates a module shaped like an optimized
TPU training step (the size of a
ResNet50 step: 30,000 instructions by default): per block a loop fusion with
its fused computation, tiled layouts `T(8,128)(2,1)`, metadata and
backend_config on every instruction that XLA gives them, a reduce calling a
shared region, and a running sum in the entry. Prints the median instructions
per second of `explorer.hlo.parser.parse_module` and of XLA's parser (jaxlib's
`hlo_module_from_text`, when jaxlib is installed) and their ratio; the goal is
ours within 2x of XLA's. Ratios, not absolutes, are comparable across machines.

    .venv/bin/python bench/bench_parser.py [--instructions 30000] [--runs 7] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.hlo import parser as hlo_parser  # noqa: E402
from explorer.hlo.parser import parse_module  # noqa: E402

# Instructions per block: 7 in the fused computation, 5 in the entry.
_PER_BLOCK = 12
_TILED = "{2,1,0:T(8,128)(2,1)}"
_BACKEND = '{"flag_configs":[],"scoped_memory_configs":[],"used_scoped_memory_configs":[]}'


def _metadata(block: int, op: str, line: int) -> str:
    return (f'metadata={{op_type="{op}" op_name="jit(train_step)/resnet/block_{block}/{op}" '
            f'source_file="sample_models/resnet.py" source_line={line}}}')


def generate_module(instructions: int = 30_000) -> str:
    """An HLO module of about `instructions` instructions that XLA's parser accepts."""
    blocks = max(1, (instructions - 6) // _PER_BLOCK)
    act = f"bf16[8,128,128]{_TILED}"
    out = ["HloModule jit_train_step, is_scheduled=true, "
           "entry_computation_layout={(bf16[8,128,128]{2,1,0})->f32[8,128]{1,0}}", ""]
    out += ["%region_add (lhs: f32[], rhs: f32[]) -> f32[] {",
            "  %lhs = f32[] parameter(0)",
            "  %rhs = f32[] parameter(1)",
            "  ROOT %sum = f32[] add(%lhs, %rhs)",
            "}", ""]
    for i in range(blocks):
        meta_add, meta_max = _metadata(i, "add", 100 + i), _metadata(i, "max", 101 + i)
        out += [
            f"%fused_computation.{i} (param_0.{i}: bf16[8,128,128], param_1.{i}: bf16[128]) -> bf16[8,128,128] {{",
            f"  %param_0.{i} = {act} parameter(0)",
            f"  %param_1.{i} = bf16[128]{{0:T(256)}} parameter(1)",
            f"  %broadcast.{i} = {act} broadcast(%param_1.{i}), dimensions={{2}}",
            f"  %add.{i} = {act} add(%param_0.{i}, %broadcast.{i}), {meta_add}",
            f"  %constant.{i} = bf16[] constant(0)",
            f"  %broadcast.{i}.1 = {act} broadcast(%constant.{i}), dimensions={{}}",
            f"  ROOT %maximum.{i} = {act} maximum(%add.{i}, %broadcast.{i}.1), {meta_max}",
            "}", "",
        ]
    out += ["ENTRY %main.1 (input: bf16[8,128,128]) -> f32[8,128] {",
            f"  %input = {act} parameter(0)",
            "  %zero = f32[] constant(0)",
            "  %acc.start = f32[8,128]{1,0:T(8,128)} broadcast(%zero), dimensions={}"]
    previous, acc = "%input", "%acc.start"
    for i in range(blocks):
        meta = _metadata(i, "conv", 200 + i)
        out += [
            f"  %weight.{i} = bf16[128]{{0:T(256)}} parameter({i + 1})",
            f"  %fusion.{i} = {act} fusion({previous}, %weight.{i}), kind=kLoop, "
            f"calls=%fused_computation.{i}, {meta}, backend_config={_BACKEND}",
            f"  %convert.{i} = f32[8,128,128]{{2,1,0:T(8,128)}} convert(%fusion.{i}), {meta}",
            f"  %reduce.{i} = f32[8,128]{{1,0:T(8,128)}} reduce(%convert.{i}, %zero), dimensions={{2}}, "
            f"to_apply=%region_add, {meta}",
            f"  %acc.{i} = f32[8,128]{{1,0:T(8,128)}} add({acc}, %reduce.{i})",
        ]
        previous, acc = f"%fusion.{i}", f"%acc.{i}"
    out += [f"  ROOT %result = f32[8,128]{{1,0:T(8,128)}} copy({acc})", "}", ""]
    return "\n".join(out)


def _timed(fn, text: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn(text)
    return time.perf_counter() - wall, time.process_time() - cpu


def _medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def _xla_parser():
    """XLA's own HLO text parser from jaxlib, or None where jaxlib is not installed."""
    try:
        from jaxlib import _hlo  # the C++ parser behind jax's HLO tooling
    except ImportError:
        return None
    return _hlo.hlo_module_from_text


def sample_captures() -> list[Path]:
    """The real HLO texts the tests read: fixtures and recorded bundles."""
    fixtures = ROOT / "tests" / "fixtures"
    return sorted(fixtures.glob("hlo/*_hlo.txt")) + sorted(fixtures.glob("bundles/*/targets/*/*hlo.txt"))


def _compare(title: str, texts: list[str], runs: int) -> None:
    """Median throughput of both parsers over `texts`, runs interleaved, and the ratio."""
    xla = _xla_parser()
    count = sum(len(c.instructions) for text in texts for c in parse_module(text).computations)
    if xla is not None:
        xla_count = sum(len(c.instructions()) for text in texts for c in xla(text).computations())
        if xla_count != count:
            raise SystemExit(f"{title}: XLA read {xla_count} instructions, we read {count}")

    def ours(_: str) -> None:
        hlo_parser._SHAPE_CACHE.clear()  # as when the app opens a module: no shape read before
        for text in texts:
            parse_module(text)

    def theirs(_: str) -> None:
        for text in texts:
            xla(text)

    # Interleaved, so that both parsers meet the same load on a shared machine;
    # CPU time (of this process only) is the steadier of the two measures there.
    ours_runs, xla_runs = [], []
    for _ in range(runs):
        ours_runs.append(_timed(ours, ""))
        if xla is not None:
            xla_runs.append(_timed(theirs, ""))
    ours_wall, ours_cpu = _medians(ours_runs)
    print(f"{title}: {count} instructions")
    print(f"  tensorweg parser: median {ours_wall * 1000:.0f} ms wall = {count / ours_wall:,.0f} instructions/s "
          f"({ours_cpu * 1000:.0f} ms CPU)")
    if xla is None:
        print("  XLA parser: jaxlib not installed, no ratio")
        return
    xla_wall, xla_cpu = _medians(xla_runs)
    print(f"  XLA C++ parser:   median {xla_wall * 1000:.0f} ms wall = {count / xla_wall:,.0f} instructions/s "
          f"({xla_cpu * 1000:.0f} ms CPU)")
    print(f"  ratio (our time / XLA's): {ours_wall / xla_wall:.2f}x wall, {ours_cpu / xla_cpu:.2f}x CPU "
          "(goal: at most 2x)")


def _readable_by_xla(path: Path) -> bool:
    xla = _xla_parser()
    try:
        return xla is None or bool(xla(path.read_text(encoding="utf-8")))
    except RuntimeError:  # e.g. a capture from a newer XLA than the jaxlib installed
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instructions", type=int, default=30_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="print our parser's top functions")
    args = parser.parse_args()

    captures = [p for p in sample_captures() if _readable_by_xla(p)]
    _compare(f"sample captures ({len(captures)} files)", [p.read_text(encoding="utf-8") for p in captures],
             args.runs)
    text = generate_module(args.instructions)
    module = parse_module(text)
    _compare(f"generated module ({len(module.computations)} computations, {len(text.splitlines())} lines, "
             f"{len(text) / 1e6:.1f} MB)", [text], args.runs)
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(parse_module, text)
        pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
