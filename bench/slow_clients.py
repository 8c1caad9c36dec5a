"""Slow and piled-up connections against the real server, side by side with a quiet baseline.

    python -m bench.slow_clients                  # writes bench/SLOW_CLIENTS_RESULTS.md
    python -m bench.slow_clients --no-write --requests 20

One server (`s2r-tutor serve` code, the repo's settings and limits) in a subprocess on a free
127.0.0.1 port. Three phases, each timing the same sequence of normal `POST /api/ask` requests:
1. quiet: nothing else connected;
2. 64 slow clients: each sends a request line and then one header byte per second, and reconnects
   when the server drops it (issue 13: the header deadline);
3. flood: 3,000 sockets opened at once, held open with unfinished headers (issue 13: 20,000 of them
   exhausted the descriptors; here the connection cap closes the surplus at once).
Only loopback traffic; every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx

from bench.proc import stop

from bench.api_load import free_port, start_server, wait_ready

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "SLOW_CLIENTS_RESULTS.md"
QUESTION = {"question": "为什么仿真里会走，真实机器人却可能不会？"}


def timed_asks(base: str, n: int) -> list[float]:
    out = []
    with httpx.Client(timeout=60) as http:
        for _ in range(n):
            t0 = time.perf_counter()
            r = http.post(base + "/api/ask", json=QUESTION)
            out.append(time.perf_counter() - t0 if r.status_code == 200 else float("inf"))
    return out


def slow_client(port: int, halt: threading.Event, reconnects: list[int]) -> None:
    while not halt.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            while not halt.is_set():
                s.sendall(b"a")
                time.sleep(1.0)
        except OSError:
            reconnects.append(1)  # dropped by the server: come back, as an attacker would
            time.sleep(0.2)


def summary(latencies: list[float]) -> dict:
    ok = [x for x in latencies if x != float("inf")]
    q = statistics.quantiles(ok, n=20) if len(ok) >= 2 else [float("nan")] * 19
    return {"n": len(latencies), "errors": len(latencies) - len(ok),
            "p50_ms": round(statistics.median(ok) * 1000, 1) if ok else None, "p95_ms": round(q[18] * 1000, 1)}


def run(requests: int) -> dict:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(port, 2, "1", Path(tmp))
        try:
            wait_ready(base, proc)
            timed_asks(base, 5)  # warm-up
            quiet = summary(timed_asks(base, requests))

            halt, reconnects = threading.Event(), []
            threads = [threading.Thread(target=slow_client, args=(port, halt, reconnects), daemon=True)
                       for _ in range(64)]
            for t in threads:
                t.start()
            time.sleep(1.0)
            slow = summary(timed_asks(base, requests))
            halt.set()
            for t in threads:
                t.join(timeout=5)

            held, refused = [], 0
            for _ in range(3000):
                try:
                    s = socket.create_connection(("127.0.0.1", port), timeout=2)
                    s.sendall(b"GET / HTTP/1.1\r\n")
                    held.append(s)
                except OSError:
                    refused += 1
            flood = summary(timed_asks(base, requests))
            for s in held:
                s.close()
            after = summary(timed_asks(base, max(5, requests // 4)))
        finally:
            stop(proc)
    return {"quiet": quiet, "slow64": {**slow, "reconnects": len(reconnects)},
            "flood3000": {**flood, "connect_errors": refused}, "after": after}


def write(result: dict, requests: int) -> None:
    rows = [("quiet (baseline, same run)", result["quiet"]), ("64 slow clients (1 header byte/s)", result["slow64"]),
            ("3,000 sockets held with unfinished headers", result["flood3000"]), ("after the flood", result["after"])]
    lines = [
        "# Slow and piled-up connections (`python -m bench.slow_clients`)", "",
        f"{time.strftime('%Y-%m-%d')}, {platform.machine()} with {os.cpu_count()} cores, 1-minute load average "
        f"{os.getloadavg()[0]:.1f}; one server with the default limits (`max_connections` 1000, `header_timeout_s` "
        f"10, `web_concurrency` 2); {requests} sequential `POST /api/ask` per phase.", "",
        "| phase | requests | errors | p50 ms | p95 ms | notes |", "|---|---|---|---|---|---|",
    ]
    for name, r in rows:
        note = ""
        if "reconnects" in r:
            note = f"slow clients dropped and reconnected {r['reconnects']} times"
        if "connect_errors" in r:
            note = f"{r['connect_errors']} of 3,000 connects failed client-side"
        lines.append(f"| {name} | {r['n']} | {r['errors']} | {r['p50_ms']} | {r['p95_ms']} | {note} |")
    lines += ["", "Target (issue 13): with 64 slow clients a normal request's p95 stays under 1 s.", ""]
    RESULTS.write_text("\n".join(lines), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=60, help="normal requests timed per phase")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the results file alone")
    args = parser.parse_args()
    result = run(args.requests)
    print(result)
    if not args.no_write:
        write(result, args.requests)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
