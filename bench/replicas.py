"""Replicas under load: R `s2r-tutor serve` processes sharing one PostgreSQL, C clients each, for S
seconds, then every acknowledged write counted against the rows stored.

    python bench/replicas.py                                  # 2 replicas x 32 clients x 60 s
    python bench/replicas.py --replicas 2 --clients 8 --seconds 10 --no-write

It starts a throwaway PostgreSQL (tests/pgserver.py; as `nobody` when run as root) unless
`--database-url` names one, builds the index once into a shared folder (`s2r-tutor index`), starts the
replicas (tests/cluster.py) on free loopback ports, and runs the clients against them directly,
client i on replica i mod R (what the proxy's round-robin does for /api/). Writes:

- every `POST /api/ask` that returns 200 is one acknowledged question-log row (Runtime.ask awaits the
  log write before answering);
- when the replicas have `POST /api/notes` (the reader-identity routes), each client also saves a note
  every 5th request as its own reader (a signed token; the replicas share `S2R_READER_SECRET`), and
  each 2xx is one acknowledged `notes` row.

After the run: rows stored must equal writes acknowledged (nothing lost), and errors must be 0.
The CPU seconds the replica processes used give answers per CPU-second (answers/s per core).
Results are printed and written to bench/REPLICA_RESULTS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]
RESULTS = ROOT / "bench" / "REPLICA_RESULTS.md"
QUESTIONS = ["什么是 Sim2Real？", "域随机化怎么调？", "What is the reality gap?", "系统辨识和域随机化有什么区别",
             "今天天气怎么样？", "How do I close the sim-to-real gap for a walking robot?", "仿真器用哪个好",
             "客户说机器人在实验室里走得很好，到工厂就容易摔，怎么解释？"]


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    asks_ok: int = 0
    notes_ok: int = 0
    errors: list[str] = field(default_factory=list)


async def client(i: int, url: str, token: str, deadline: float, tally: Tally, write_notes: bool) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=120, headers={"Authorization": f"Bearer {token}"}) as http:
        n = 0
        while time.monotonic() < deadline:
            n += 1
            q = QUESTIONS[(i + n) % len(QUESTIONS)]
            started = time.perf_counter()
            try:
                r = await http.post("/api/ask", json={"question": q})
            except httpx.HTTPError as exc:
                tally.errors.append(f"ask: {type(exc).__name__}")
                continue
            if r.status_code == 200:
                tally.asks_ok += 1
                tally.latencies.append(time.perf_counter() - started)
            else:
                tally.errors.append(f"ask: HTTP {r.status_code}")
            if write_notes and n % 5 == 0:
                try:
                    r = await http.post("/api/notes", json={"section": "04-08#intro", "text": f"note {n}"})
                except httpx.HTTPError as exc:
                    tally.errors.append(f"note: {type(exc).__name__}")
                    continue
                if 200 <= r.status_code < 300:
                    tally.notes_ok += 1
                else:
                    tally.errors.append(f"note: HTTP {r.status_code}")


def has_notes_route(url: str, token: str) -> bool:
    r = httpx.post(url + "/api/notes", json={"section": "04-08#intro", "text": "probe"},
                   headers={"Authorization": f"Bearer {token}"}, timeout=60)
    return r.status_code not in (404, 405)


def cpu_seconds(pids: list[int]) -> float:
    import psutil

    total = 0.0
    for pid in pids:
        p = psutil.Process(pid)
        for proc in [p, *p.children(recursive=True)]:
            t = proc.cpu_times()
            total += t.user + t.system
    return total


def stored_rows(database_url: str) -> dict[str, int]:
    import sqlalchemy as sa

    engine = sa.create_engine(database_url)
    try:
        with engine.connect() as conn:
            if not sa.inspect(conn).has_table("question_log"):
                return {"asks": 0, "notes": 0, "per_replica": {}}
            asks = conn.execute(sa.text("SELECT count(*) FROM question_log")).scalar_one()
            per_replica = dict(conn.execute(sa.text("SELECT replica, count(*) FROM question_log GROUP BY replica")).all())
            notes = conn.execute(sa.text("SELECT count(*) FROM notes WHERE reader LIKE 'bench-%' "
                                         "AND reader <> 'bench-probe'")).scalar_one()
    finally:
        engine.dispose()
    return {"asks": asks, "notes": notes, "per_replica": per_replica}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--clients", type=int, default=32, help="clients per replica")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--web-concurrency", type=int, default=2, help="S2R_WEB_CONCURRENCY of each replica")
    ap.add_argument("--database-url", help="an existing PostgreSQL (default: start a throwaway one)")
    ap.add_argument("--no-write", action="store_true", help="print only; do not write bench/REPLICA_RESULTS.md")
    args = ap.parse_args()

    from cluster import Cluster
    from pgserver import PostgresServer, fresh_name

    pg = None
    if args.database_url:
        url = args.database_url
    else:
        pg = PostgresServer().start()
        url = pg.create_database(fresh_name("bench"))
    work = Path(tempfile.mkdtemp(prefix="s2r-replicas-"))
    cluster = Cluster(work, url, replicas=args.replicas, extra_env={"S2R_WEB_CONCURRENCY": str(args.web_concurrency)})
    try:
        t0 = time.perf_counter()
        cluster.build_index()
        print(f"index built once in {time.perf_counter() - t0:.1f} s into {cluster.index_dir}", flush=True)
        cluster.start()
        print(f"{args.replicas} replicas up: {', '.join(cluster.urls)}", flush=True)
        write_notes = has_notes_route(cluster.urls[0], cluster.token("bench-probe"))
        baseline = stored_rows(url)
        pids = [p.pid for p in cluster.procs]
        cpu0 = cpu_seconds(pids)
        tally = Tally()
        n_clients = args.replicas * args.clients

        async def run() -> float:
            deadline = time.monotonic() + args.seconds
            started = time.perf_counter()
            tokens = [cluster.token(f"bench-{i}") for i in range(n_clients)]  # one reader per client
            await asyncio.gather(*(client(i, cluster.urls[i % args.replicas], tokens[i], deadline, tally, write_notes)
                                   for i in range(n_clients)))
            return time.perf_counter() - started

        wall = asyncio.run(run())
        cpu = cpu_seconds(pids) - cpu0
        after = stored_rows(url)
    finally:
        cluster.stop()
        if pg is not None:
            pg.stop()

    asks_stored = after["asks"] - baseline["asks"]
    notes_stored = after["notes"] - baseline["notes"]
    lat = sorted(tally.latencies)
    p = (lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000) if lat else (lambda q: float("nan"))
    rate = tally.asks_ok / wall
    per_cpu = tally.asks_ok / cpu if cpu else float("nan")
    ok = not tally.errors and asks_stored == tally.asks_ok and notes_stored == tally.notes_ok
    lines = [
        "# Replicas under load (bench/replicas.py)",
        "",
        f"{args.replicas} replicas × {args.clients} clients each ({n_clients} in all), {args.seconds:g} s, one PostgreSQL; "
        f"`web_concurrency` {args.web_concurrency} per replica; machine: {platform.machine()}, "
        f"{os.cpu_count()} cores (shared with other work), Python {platform.python_version()}.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| answers (HTTP 200) | {tally.asks_ok} |",
        f"| errors | {len(tally.errors)}" + (f" ({', '.join(sorted(set(tally.errors))[:5])})" if tally.errors else "") + " |",
        f"| answers/s, all replicas | {rate:.1f} |",
        f"| replica CPU seconds used | {cpu:.1f} |",
        f"| answers per CPU-second (≈ answers/s per core) | {per_cpu:.1f} |",
        f"| latency p50 / p95 / max | {p(0.5):.0f} / {p(0.95):.0f} / {(lat[-1] * 1000 if lat else float('nan')):.0f} ms |",
        f"| question-log rows stored / asks acknowledged | {asks_stored} / {tally.asks_ok} |",
        f"| per replica (rows) | {', '.join(str(v) for v in after['per_replica'].values())} |",
        f"| notes stored / acknowledged | {notes_stored} / {tally.notes_ok}"
        + ("" if write_notes else " (no /api/notes route on this build: asks only)") + " |",
        f"| **result** | **{'PASS: 0 errors, nothing lost' if ok else 'FAIL'}** |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")
        print(f"written to {RESULTS}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
