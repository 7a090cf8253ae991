"""A stand-in browser tab for tests/test_capture_queue.py: it waits in line for a capture slot.

`python queue_client.py QUEUE NAME LOG`: prints every place it is told (`waiting AHEAD RUNNING`),
then `got` once it holds the slot, and appends `got NAME` to LOG; it holds the slot until a line
arrives on stdin (or it is killed), appends `end NAME` and lets the slot go.
"""

import sys
import threading
from pathlib import Path

from explorer.capture.queue import CaptureQueue


def main() -> None:
    folder, name, log = sys.argv[1:4]

    def waiting(place) -> None:
        print(f"waiting {place.ahead} {place.running}" if place else "moving", flush=True)

    with CaptureQueue(Path(folder)).slot(threading.Event(), waiting):
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"got {name}\n")
        print("got", flush=True)
        sys.stdin.readline()
        with open(log, "a", encoding="utf-8") as out:  # before the slot is let go
            out.write(f"end {name}\n")


if __name__ == "__main__":
    main()
