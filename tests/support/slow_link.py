"""A TCP proxy that delays every chunk it carries, in each direction: latency on a link, for a test (these machines'
kernel has no netem qdisc).

    python -m tests.support.slow_link LISTEN_HOST:PORT TARGET_HOST:PORT DELAY_FILE

The delay, in seconds each way, is read from DELAY_FILE (0 when it is missing or empty), at most every 50 ms, so a
test changes a running link's latency by writing the file. Order is kept: a chunk waits for the one before it.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from collections import deque
from pathlib import Path


class Delay:
    def __init__(self, path: Path):
        self.path, self.value, self.read_at = path, 0.0, 0.0

    def __call__(self) -> float:
        now = time.monotonic()
        if now - self.read_at > 0.05:
            try:
                self.value = float(self.path.read_text().strip() or 0)
            except (OSError, ValueError):
                self.value = 0.0
            self.read_at = now
        return self.value


def pump(source: socket.socket, sink: socket.socket, delay: Delay) -> None:
    """Carries source -> sink, each chunk sent `delay()` seconds after it arrived."""
    queue: deque[tuple[float, bytes]] = deque()
    ready = threading.Condition()
    done = threading.Event()

    def send():
        while True:
            with ready:
                while not queue and not done.is_set():
                    ready.wait()
                if not queue:
                    break
                due, chunk = queue.popleft()
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                sink.sendall(chunk)
            except OSError:
                break
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    while True:
        try:
            chunk = source.recv(65536)
        except OSError:
            chunk = b""
        with ready:
            if chunk:
                queue.append((time.monotonic() + delay(), chunk))
            else:
                done.set()
            ready.notify()
        if not chunk:
            break
    sender.join()


def serve(listen: tuple[str, int], target: tuple[str, int], delay: Delay) -> None:
    server = socket.create_server(listen, reuse_port=False)
    while True:
        client, _ = server.accept()
        try:
            upstream = socket.create_connection(target, timeout=5)
            upstream.settimeout(None)
        except OSError:
            client.close()
            continue
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=pump, args=(a, b, delay), daemon=True).start()


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


if __name__ == "__main__":
    serve(_address(sys.argv[1]), _address(sys.argv[2]), Delay(Path(sys.argv[3])))
