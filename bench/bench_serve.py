"""Load on one `tensorweg serve`: N browser-less websocket sessions against a server on a free
loopback port, serving a pack of the recorded bundle with its lesson. Reports, per session, the
time to the first frame that shows the lesson, the p50/p95 time from a key press (`n`, next
step) to the next frame, and the memory (RSS) of each tab's app process. Bounded: it stops the
server (and every tab) by itself, after at most --seconds.

    .venv/bin/python bench/bench_serve.py [--sessions 20] [--presses 5] [--seconds 300]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _session_rss_kib(session: int, server: int) -> list[int]:
    """RSS of every process in the server's session except the server: the tabs' app processes."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == server:
            continue
        try:
            if os.getsid(int(entry.name)) != session:
                continue
            status = (entry / "status").read_text()
        except (OSError, ProcessLookupError):
            continue
        if "python" not in (entry / "comm").read_text(errors="replace"):
            continue  # the shell textual-serve starts each tab through
        rss = next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")), "0")
        found.append(int(rss))
    return found


async def _session(url: str, presses: int, started: list, ready: asyncio.Event, results: list) -> None:
    async with aiohttp.ClientSession() as client, client.ws_connect(url + "/ws?width=100&height=30") as ws:
        start = time.perf_counter()
        seen = ""
        while "Step 1 of" not in seen:
            message = await ws.receive()
            if message.type not in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT):
                raise RuntimeError("the tab closed before its first frame")
            data = message.data
            seen += data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        started.append(time.perf_counter() - start)
        await ready.wait()  # every session is up before the presses are timed
        latencies = []
        for _ in range(presses):
            await asyncio.sleep(0.5)  # let the previous step's frames drain
            while True:  # drop what is still queued
                try:
                    await ws.receive(timeout=0.05)
                except TimeoutError:
                    break
            pressed = time.perf_counter()
            await ws.send_json(["stdin", "n"])
            await ws.receive()
            latencies.append(time.perf_counter() - pressed)
        results.append(latencies)
        await ws.close()


async def _run(url: str, sessions: int, presses: int, server: subprocess.Popen) -> None:
    started: list[float] = []
    results: list[list[float]] = []
    ready = asyncio.Event()
    tasks = [asyncio.create_task(_session(url, presses, started, ready, results)) for _ in range(sessions)]
    while len(started) < sessions:
        failed = [t for t in tasks if t.done() and t.exception() is not None]
        if failed:
            raise failed[0].exception()
        await asyncio.sleep(0.1)
    rss = _session_rss_kib(server.pid, server.pid)
    ready.set()
    await asyncio.gather(*tasks)
    firsts = sorted(started)
    keys = sorted(x for r in results for x in r)
    p95 = keys[max(0, int(len(keys) * 0.95) - 1)]
    print(f"sessions: {len(results)}/{sessions}")
    print(f"first frame: median {statistics.median(firsts):.2f} s, slowest {firsts[-1]:.2f} s")
    print(f"key press to next frame: p50 {statistics.median(keys) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms "
          f"({len(keys)} presses)")
    if rss:
        print(f"memory per tab process: median {statistics.median(rss) / 1024:.0f} MiB (RSS, {len(rss)} processes)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--presses", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=300, help="stop everything after this long")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TENSORWEG_CACHE_DIR": str(Path(work) / "cache")}
        pack = Path(work) / "course.twpack"
        subprocess.run([sys.executable, "-m", "screens.cli", "pack", str(BUNDLE), "--tours", "tensor_to_registers",
                        "-o", str(pack)], check=True, env=env, stdout=subprocess.DEVNULL)
        port = _free_port()
        server = subprocess.Popen([sys.executable, "-m", "screens.cli", "serve", str(pack), "--port", str(port),
                                   "--lang", "en"], env=env, cwd=work, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    urllib.request.urlopen(url + "/", timeout=2).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("serve did not start") from None
                    time.sleep(0.2)
            asyncio.run(asyncio.wait_for(_run(url, args.sessions, args.presses, server), args.seconds))
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(server.pid, signal.SIGKILL)  # any tab still running
    return 0


if __name__ == "__main__":
    sys.exit(main())
