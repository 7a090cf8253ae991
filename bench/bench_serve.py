"""Load on one `tensorweg serve`: how many learners one machine holds.

One server on a free loopback port serves a pack of the recorded bundle with its lesson. For each
step of N (e.g. 1, 2, 4, 8), N browser-less tabs (websocket clients, as textual-serve's page talks)
open the lesson, then each presses keys at its own pace (`n` and `p`, the lesson's next and previous
step, which moves between the layers and graph levels; a press every 0.4-0.8 s, seeded) while the
others do. Reported per step: the memory of each tab (RSS of its
process group: the tab's app and anything it started), the time from a key press to the next frame
p50/p95 over every press of every tab, and the ratio of that p95 to the 1-tab step's (the baseline,
same run). Then the largest N whose p95 stayed under --goal-ms. Bounded: the server (and every tab)
is stopped after at most --seconds.

    .venv/bin/python bench/bench_serve.py [--tabs 1,2,4,8] [--presses 20] [--goal-ms 100] [--seconds 900]

The machine's cores and load average are printed with the figures: on a shared machine they say
how far the figures can be trusted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "tests" / "fixtures" / "bundles" / "mnist_cnn"
KEYS = ("n", "p")  # the lesson's next and previous step: what a learner in a lesson presses most
NO_FRAME = 10.0  # seconds: a press with no frame after this counts as this long
# The baseline's app: a line that changes on every `n` or `p`, starting as the lesson does.
HELLO_APP = """
from textual.app import App
from textual.widgets import Static


class Hello(App):
    presses = 0

    def compose(self):
        yield Static("Step 1 of 2", id="step")

    def on_key(self, event):
        if event.key in ("n", "p"):
            self.presses += 1
            self.query_one("#step", Static).update(f"Step {1 + self.presses % 2} of 2 (press {self.presses})")


Hello().run()
"""
HELLO_SERVER = """
import sys
from textual_serve.server import Server
Server(sys.argv[1], host="127.0.0.1", port=int(sys.argv[2])).serve()
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (state, ppid, pgrp, ...); None when gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _tabs(server: int) -> list[int]:
    """The server's children: one app process per tab, each the leader of its own process group."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) and int(fields[1]) == server:
            found.append(int(entry.name))
    return found


def _group_rss_kib(group: int) -> int:
    """RSS of every process in the process group `group` (a tab's app and what it started)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or not (fields := _stat(int(entry.name))) or int(fields[2]) != group:
            continue
        with contextlib.suppress(OSError):
            status = (entry / "status").read_text()
            total += int(next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")), "0"))
    return total


def _rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))


async def _drain(ws) -> None:
    """Drop the frames still on their way (the previous press's)."""
    while True:
        try:
            await ws.receive(timeout=0.05)
        except TimeoutError:
            return


async def _tab(url: str, presses: int, seed: int, opened: list, everyone_open: asyncio.Event,
               latencies: list, done: list, measured: asyncio.Event) -> None:
    pace = random.Random(seed)
    async with aiohttp.ClientSession() as client, client.ws_connect(url + "/ws?width=100&height=30") as ws:
        seen = ""
        while "Step 1 of" not in seen:
            message = await ws.receive()
            if message.type not in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT):
                raise RuntimeError(f"the tab closed before its first frame: {message}")
            data = message.data
            seen += data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        opened.append(seed)
        await everyone_open.wait()  # memory is read and presses timed with every tab open
        await asyncio.sleep(pace.uniform(0, 0.8))  # the class does not press in step
        for press in range(presses):
            await _drain(ws)
            pressed = time.perf_counter()
            await ws.send_json(["stdin", KEYS[press % 2]])
            try:
                await ws.receive(timeout=NO_FRAME)
                latencies.append(time.perf_counter() - pressed)
            except TimeoutError:
                latencies.append(NO_FRAME)
            await asyncio.sleep(pace.uniform(0.4, 0.8))
        done.append(seed)
        await measured.wait()  # the tab's memory, having shown both levels, is read before it quits
        await ws.send_json(["stdin", "q"])


async def _step(url: str, tabs: int, presses: int, server: subprocess.Popen) -> dict:
    opened: list[int] = []
    done: list[int] = []
    latencies: list[float] = []
    everyone_open, measured = asyncio.Event(), asyncio.Event()
    tasks = [asyncio.create_task(_tab(url, presses, seed, opened, everyone_open, latencies, done, measured))
             for seed in range(tabs)]
    await _all_reach(opened, tabs, tasks)
    everyone_open.set()
    await _all_reach(done, tabs, tasks)
    memory = [_group_rss_kib(tab) for tab in _tabs(server.pid)] or [0]
    server_memory = _rss_kib(server.pid)
    measured.set()
    await asyncio.gather(*tasks)
    while _tabs(server.pid):  # the closed tabs' processes end before the next step opens more
        await asyncio.sleep(0.1)
    keys = sorted(latencies)
    return {"tabs": tabs, "p50": statistics.median(keys), "p95": keys[max(0, round(len(keys) * 0.95) - 1)],
            "presses": len(keys), "tab_mib": statistics.median(memory) / 1024, "server_mib": server_memory / 1024,
            "load": os.getloadavg()[0]}


async def _all_reach(reached: list, count: int, tasks: list[asyncio.Task]) -> None:
    while len(reached) < count:
        failed = [task for task in tasks if task.done() and task.exception() is not None]
        if failed:
            raise failed[0].exception()
        await asyncio.sleep(0.1)


async def _run(urls: dict[str, str], servers: dict[str, subprocess.Popen], steps: list[int], presses: int,
               goal: float) -> None:
    print(f"machine: {os.cpu_count()} cores, load average before {os.getloadavg()[0]:.1f} (shared: other work runs)")
    held = []
    for tabs in steps:
        result = await _step(urls["tensorweg"], tabs, presses, servers["tensorweg"])
        hello = await _step(urls["hello"], tabs, presses, servers["hello"])
        print(f"{tabs:3d} tabs: key to frame p50 {result['p50'] * 1000:5.0f} ms, p95 {result['p95'] * 1000:5.0f} ms "
              f"({result['presses']} presses; hello-world app p95 {hello['p95'] * 1000:.0f} ms, "
              f"{result['p95'] / hello['p95']:.2f}x); memory per tab {result['tab_mib']:.0f} MiB RSS, "
              f"server {result['server_mib']:.0f} MiB; load average {result['load']:.1f}", flush=True)
        if result["p95"] < goal:
            held.append(tabs)
    print(f"largest N with p95 under {goal * 1000:.0f} ms: {max(held) if held else 'none'}"
          + (" (the largest step tried)" if held and max(held) == max(steps) else ""))


def _start(argv: list[str], env: dict, cwd: str, port: int) -> tuple[str, subprocess.Popen]:
    server = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/", timeout=2).close()
            return url, server
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(f"{argv[2:4]} did not start") from None
            time.sleep(0.2)


def _stop(server: subprocess.Popen) -> None:
    server.send_signal(signal.SIGTERM)  # tensorweg stops every tab (SIGTERM, then SIGKILL, per group)
    try:
        server.wait(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)  # the baseline's tabs share its group


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tabs", default="1,2,4,8", help="the steps of N, comma-separated (the first is the baseline)")
    parser.add_argument("--presses", type=int, default=20, help="key presses per tab per step")
    parser.add_argument("--goal-ms", type=float, default=100.0)
    parser.add_argument("--seconds", type=int, default=900, help="stop everything after this long")
    args = parser.parse_args()
    steps = [int(n) for n in args.tabs.split(",")]
    with tempfile.TemporaryDirectory() as work:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TENSORWEG_CACHE_DIR": str(Path(work) / "cache")}
        pack = Path(work) / "course.twpack"
        subprocess.run([sys.executable, "-m", "screens.cli", "pack", str(BUNDLE), "--tours", "tensor_to_registers",
                        "-o", str(pack)], check=True, env=env, stdout=subprocess.DEVNULL)
        hello = Path(work) / "hello.py"
        hello.write_text(HELLO_APP)
        ports = {"tensorweg": _free_port(), "hello": _free_port()}
        commands = {
            "tensorweg": [sys.executable, "-m", "screens.cli", "serve", str(pack), "--port", str(ports["tensorweg"]),
                          "--lang", "en", "--max-tabs", str(max(steps))],
            "hello": [sys.executable, "-c", HELLO_SERVER, f"{sys.executable} -I {hello}", str(ports["hello"])],
        }
        servers: dict[str, subprocess.Popen] = {}
        urls: dict[str, str] = {}
        try:
            for name, argv in commands.items():
                urls[name], servers[name] = _start(argv, env, work, ports[name])
            asyncio.run(asyncio.wait_for(_run(urls, servers, steps, args.presses, args.goal_ms / 1000), args.seconds))
        finally:
            for server in servers.values():
                _stop(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
