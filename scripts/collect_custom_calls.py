"""Every custom-call target the app's own captures hold, and where each was seen (issue 25).

Captures every sample model, smallest first and one at a time, on the default targets: for
inference, for a training step, and on a 2x2 mesh (batch 4, data and model sharding, on the
default targets a mesh compiles for) for both. Each bundle's HLO and optimized HLO (the two
levels whose instructions the explanation pane explains) are read with the project's own parser
(`Bundle.hlo_module`), and the targets of their `custom-call` instructions are written with the
sample, target, mode and mesh of every capture that holds them.
tests/test_custom_call_coverage.py then checks that each listed target has its own course text
in both languages. Run it again after a compiler upgrade; captures already in the cache are
reused, so only new ones cost time:

    nice -n 10 python scripts/collect_custom_calls.py [--samples mlp,mnist_cnn] [--out FILE]

Captures are CPU-heavy (resnet50 and bert_base take minutes each); the capture cache is the
usual one ($TENSORWEG_CACHE_DIR or the platform default).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.capture.options import build_capture_options  # noqa: E402 (the repository root is put on the path first)
from explorer.capture.orchestrator import capture  # noqa: E402
from explorer.model.bundle import Bundle  # noqa: E402
from explorer.model.records import CaptureOptions  # noqa: E402
from explorer.model.sharding import INTERCONNECT  # noqa: E402
from explorer.targets import DEFAULT_TARGETS  # noqa: E402

from sample_models import SAMPLES  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "custom_calls_seen.json"
MESH, MESH_BATCH = "2x2", 4  # batch 4 splits evenly over the 4 chips (data) and the 2 rows (model)
MESH_TARGETS = tuple(t for t in DEFAULT_TARGETS if t.startswith("tpu:") or t in INTERCONNECT)
TOOLS = ("tensorflow", "keras", "jax", "jaxlib", "libtpu", "jax-cuda12-plugin")  # the compilers that emit the calls


def capture_plan() -> tuple[dict, ...]:
    """The captures of one sample: each mode on one chip of every default target, then on the mesh."""
    plan: list[dict] = [{"targets": ",".join(DEFAULT_TARGETS), "mode": mode} for mode in ("inference", "train")]
    plan += [{"targets": ",".join(MESH_TARGETS), "mode": mode, "mesh": MESH, "shard": shard, "batch": MESH_BATCH}
             for mode in ("inference", "train") for shard in ("data", "model")]
    return tuple(plan)


def samples_smallest_first() -> list[str]:
    return sorted(SAMPLES, key=lambda name: SAMPLES[name].large)  # stable: the registry's order otherwise


def custom_calls_of(bundle: Bundle) -> list[tuple[str, str, str]]:
    """(custom-call target, compile target, level) for every custom call in the bundle's HLO levels."""
    found = []
    for target in bundle.targets:
        for level, optimized in (("hlo", False), ("optimized-hlo", True)):
            module = bundle.hlo_module(target, optimized)
            if module is None:
                continue
            found += [(i.custom_call_target, target, level) for _, i in module.all_instructions()
                      if i.opcode == "custom-call"]
    return sorted(set(found))


def where(sample: str, options: CaptureOptions, target: str, level: str) -> dict:
    mesh = f"{options.mesh} {options.shard}" if options.mesh else ""
    return {"sample": sample, "target": target, "mode": options.mode, "mesh": mesh, "level": level}


def collect(samples: list[str], log=print) -> dict:
    seen: dict[str, list[dict]] = {}
    captures: list[dict] = []
    tools: dict[str, str] = {}
    for sample in samples:
        for plan in capture_plan():
            options = build_capture_options(**plan)
            log(f"capture {sample} {' '.join(f'{k}={v}' for k, v in plan.items())}")
            bundle = Bundle.open(capture(sample, options))
            failed = sorted(f"{level} [{target}]" if target else level
                            for target, level, status in bundle.manifest.levels if status.status != "ok")
            captures.append({"sample": sample, **plan, "failed_levels": failed})
            tools = tools or {name: version for name, version in bundle.manifest.tools if name in TOOLS}
            for call_target, target, level in custom_calls_of(bundle):
                seen.setdefault(call_target, []).append(where(sample, options, target, level))
    return {"regenerate": "nice -n 10 python scripts/collect_custom_calls.py", "tools": tools,
            "captures": captures, "custom_calls": dict(sorted(seen.items()))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", default=",".join(samples_smallest_first()),
                        help="comma-separated sample names (default: all, smallest first)")
    parser.add_argument("--out", type=Path, default=FIXTURE,
                        help=f"JSON to write (default {FIXTURE.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    unknown = [name for name in args.samples.split(",") if name not in SAMPLES]
    if unknown:
        parser.error(f"unknown sample(s): {', '.join(unknown)} (try: {', '.join(SAMPLES)})")
    found = collect(args.samples.split(","))
    args.out.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    print(f"{len(found['custom_calls'])} custom-call targets in {len(found['captures'])} captures -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
