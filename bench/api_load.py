"""Bounded loopback load test of the HTTP API: N concurrent clients POST /api/ask for a fixed time.

    python bench/api_load.py                       # 8 and 32 clients, 20 s each, web_concurrency 1,2,4
    python bench/api_load.py --clients 8 --seconds 5 --workers 2 --no-write
    python bench/api_load.py --mix --seconds 30    # #15: chat beside the API, and the serving overhead

`--mix` runs two things against one server (web_concurrency 2) and writes their section of
bench/API_RESULTS.md: (1) one client at a time, `Tutor.ask` in-process vs `POST /api/ask` vs
`GET /healthz` (the HTTP floor), to find the serving path's overhead; (2) 10 concurrent clients,
4 asking over `/api/ask`, 3 searching over `/api/search`, 3 chatting through Gradio's queue (join +
event stream, as the browser does), with p50/p95 per kind.

For each `web_concurrency` value the script starts its own server (`s2r_tutor.web.server.serve`)
in a subprocess on a free 127.0.0.1 port, waits for /healthz, warms up, then runs each client
count for `--seconds` (and at most `--max-requests`), and stops the server. Only loopback traffic.
Results (throughput, p50/p95/max latency, errors) are printed and written to bench/API_RESULTS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.proc import stop

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "API_RESULTS.md"

QUESTIONS = [
    "什么是 Sim2Real？",
    "强化学习和 Sim2Real 有什么区别？",
    "为什么仿真里会走，真实机器人却可能不会？",
    "域随机化是什么？",
    "客户说机器人在实验室里走得很好，到工厂就容易摔，怎么解释？",
    "客户说空载正常，背上设备后步态不稳定，可能是什么原因？",
    "Why train robots in simulation first?",
    "What is the reality gap?",
]


@dataclass
class Run:
    workers: int
    clients: int
    seconds: float
    omp: str = "1"
    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> int:
        return len(self.latencies)

    def pct(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] * 1000

    def row(self) -> str:
        total = self.ok + sum(self.errors.values())
        errs = sum(self.errors.values())
        detail = ", ".join(f"{k}×{v}" for k, v in self.errors.items())
        return (f"| {self.omp} | {self.workers} | {self.clients} | {self.seconds:.1f} | {total} | {self.ok / self.seconds:.1f} | "
                f"{self.pct(0.50):.0f} | {self.pct(0.95):.0f} | {max(self.latencies, default=0) * 1000:.0f} | "
                f"{errs}{' (' + detail + ')' if detail else ''} |")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, workers: int, omp: str, tmp: Path, procs: int = 0) -> subprocess.Popen:
    env = {**os.environ, "S2R_WEB_CONCURRENCY": str(workers), "S2R_FEEDBACK_FILE": str(tmp / "feedback.jsonl"),
           "S2R_STUDY_DB": str(tmp / "study.sqlite3"),  # the question log writes there: not the checkout's var/
           "GRADIO_ANALYTICS_ENABLED": "False", "OMP_NUM_THREADS": omp, "S2R_WEB_PROCESSES": str(procs)}
    code = f"from s2r_tutor.web.server import serve; serve(host='127.0.0.1', port={port})"
    return subprocess.Popen([sys.executable, "-c", code], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=open(tmp / f"server-{port}.log", "w"))


def wait_ready(base: str, proc: subprocess.Popen, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError("server did not become ready")


async def load(base: str, run: Run, max_requests: int, questions: list[str] | None = None) -> None:
    questions = questions or QUESTIONS
    limits = httpx.Limits(max_connections=run.clients, max_keepalive_connections=run.clients)
    deadline = time.monotonic() + run.seconds
    sent = 0

    async def client(i: int, http: httpx.AsyncClient) -> None:
        nonlocal sent
        n = i
        while time.monotonic() < deadline and sent < max_requests:
            sent += 1
            q = questions[n % len(questions)]
            n += run.clients if len(questions) > len(QUESTIONS) else 1  # a distinct mix: clients never share a question
            t0 = time.perf_counter()
            try:
                r = await http.post("/api/ask", json={"question": q, "history": []})
                if r.status_code == 200 and r.json().get("citations") is not None:
                    run.latencies.append(time.perf_counter() - t0)
                else:
                    run.errors[f"HTTP {r.status_code}"] = run.errors.get(f"HTTP {r.status_code}", 0) + 1
            except httpx.HTTPError as exc:
                name = type(exc).__name__
                run.errors[name] = run.errors.get(name, 0) + 1

    started = time.monotonic()
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as http:
        await asyncio.gather(*(client(i, http) for i in range(run.clients)))
    run.seconds = time.monotonic() - started


def bench(workers: int, clients: list[int], seconds: float, max_requests: int, omp: str = "1") -> list[Run]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(port, workers, omp, Path(tmp))
        try:
            wait_ready(base, proc)
            warm = Run(workers, 2, 3.0)
            asyncio.run(load(base, warm, 50))
            runs = []
            for c in clients:
                run = Run(workers, c, seconds, omp)
                asyncio.run(load(base, run, max_requests))
                print(run.row(), flush=True)
                runs.append(run)
            return runs
        finally:
            stop(proc, 20)


HEADER = ("| OMP_NUM_THREADS | web_concurrency | clients | seconds | requests | answers/s | p50 ms | p95 ms | max ms | errors |\n"
          "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def write_results(runs: list[Run], args, load_before: tuple[float, float, float]) -> None:
    from s2r_tutor.settings import Settings

    s = Settings()
    text = f"""# HTTP API under load

`python bench/api_load.py` ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}): each row is one bounded run of
`POST /api/ask` (real answerer, template backend, {len(QUESTIONS)} zh/en questions in rotation, no history) from N
concurrent httpx async clients over loopback, for {args.seconds:.0f} s, against a server started by the script with
the given `S2R_WEB_CONCURRENCY`. Errors are any non-200 reply or transport failure.

Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; load average before the
run {load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f} (a shared box: other work ran at the same time,
and the load generator itself shares the same cores as the server). On such a box the rows vary by about
a third from run to run; read them for the order of magnitude, the shape across settings, and the
errors column. For scale: on the same box, sequential requests to an idle server took about 27 ms each.

{HEADER}
{chr(10).join(r.row() for r in runs)}

## Settings chosen, and why

- `OMP_NUM_THREADS = 1` in the server process (`serve()` sets it unless the environment already does):
  parallelism comes from the worker threads, one query each. With an OpenMP team inside every embedding
  call as well, the 2 cores are oversubscribed, and on a busy machine each OpenMP barrier waits for a
  descheduled thread: compare the `OMP_NUM_THREADS = 2` rows, where one worker collapses.
- `web_concurrency = {s.web_concurrency}` (default): one `anyio.CapacityLimiter` shared by the API routes and the chat
  handlers, so at most that many `Tutor.ask`/`search` calls run at once in worker threads, whatever mix of
  API and chat traffic arrives; the rest wait on the event loop without holding a thread. The work is
  CPU-bound: with OpenMP off, 1, 2 and 4 workers give the same throughput within this box's noise (the
  two cores are the limit, and run-to-run noise on a shared box is larger than the differences).
  2 matches the cores, keeps one answer going while another holds the GIL, and leaves a request that
  arrives during a slow answer less to wait for than 1 would; more than the cores only adds threads.
- Gradio queue: `default_concurrency_limit = web_concurrency` (chat events let through at once match the
  pool they wait on, so queue positions shown to users are honest) and `max_size = {s.queue_max_size}` (beyond
  that a user sees "queue full" instead of an ever-growing wait). The API does not go through the Gradio
  queue; both meet at the same limiter.
- One uvicorn worker process: the Tutor (index, embedder) is loaded once and shared; a second process would
  double memory and startup time, and Gradio's sessions would need sticky routing. To use more than
  one core for answers, `serve --processes N` runs the Tutor calls in N worker processes behind the one
  server process (`--throughput` section); scale out with more servers behind a proxy beyond that.
- Request bodies over `max_body_bytes = {s.max_body_bytes}` get 413 before any work is done.
"""
    RESULTS.write_text(text, encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


# --------------------------------------------------------------------------- #15: chat beside the API


def chat_event(base: str) -> tuple[int, int]:
    """(fn_index, trigger id) of the chat's submit event, from the app's /config."""
    cfg = httpx.get(base + "/config", timeout=30).json()
    box = next(c["id"] for c in cfg["components"] if c.get("props", {}).get("elem_id") == "s2r-input")
    dep = next(d for d in cfg["dependencies"] if [box, "submit"] in d["targets"])
    return dep["id"], box


async def chat_once(http: httpx.AsyncClient, event: tuple[int, int], question: str, n: int) -> bool:
    """One chat question the browser's way: join the queue, read the session's event stream until the
    event completes. A fresh session each time (no history)."""
    session = f"bench{n:08d}{os.getpid()}"
    r = await http.post("/gradio_api/queue/join", json={"data": [question, None, None, None], "fn_index": event[0],
                        "trigger_id": event[1], "session_hash": session, "event_data": None})
    if r.status_code != 200:
        return False
    async with http.stream("GET", "/gradio_api/queue/data", params={"session_hash": session}) as stream:
        async for line in stream.aiter_lines():
            if line.startswith("data:") and '"process_completed"' in line:
                return '"success": true' in line or '"success":true' in line
    return False


@dataclass
class Mixed:
    seconds: float
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"ask": [], "search": [], "chat": []})
    errors: dict[str, int] = field(default_factory=dict)

    def pct(self, kind: str, q: float) -> float:
        xs = sorted(self.latencies[kind])
        return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] * 1000 if xs else float("nan")

    def api(self) -> list[float]:
        return self.latencies["ask"] + self.latencies["search"]

    def api_pct(self, q: float) -> float:
        xs = sorted(self.api())
        return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] * 1000 if xs else float("nan")


async def mixed_load(base: str, run: Mixed, kinds: list[str]) -> None:
    event = chat_event(base)
    deadline = time.monotonic() + run.seconds
    limits = httpx.Limits(max_connections=2 * len(kinds), max_keepalive_connections=2 * len(kinds))

    async def client(i: int, kind: str, http: httpx.AsyncClient) -> None:
        n = i
        while time.monotonic() < deadline:
            q = QUESTIONS[n % len(QUESTIONS)]
            n += 1
            t0 = time.perf_counter()
            try:
                if kind == "ask":
                    r = await http.post("/api/ask", json={"question": q, "history": []})
                    ok = r.status_code == 200
                elif kind == "search":
                    r = await http.get("/api/search", params={"q": q, "k": 5})
                    ok = r.status_code == 200
                else:
                    ok = await chat_once(http, event, q, i * 100_000 + n)
            except httpx.HTTPError as exc:
                ok, kind_err = False, type(exc).__name__
                run.errors[f"{kind} {kind_err}"] = run.errors.get(f"{kind} {kind_err}", 0) + 1
                continue
            if ok:
                run.latencies[kind].append(time.perf_counter() - t0)
            else:
                run.errors[kind] = run.errors.get(kind, 0) + 1

    started = time.monotonic()
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as http:
        await asyncio.gather(*(client(i, k, http) for i, k in enumerate(kinds)))
    run.seconds = time.monotonic() - started


def pctl(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] * 1000 if xs else float("nan")


def paired(base: str, n: int) -> dict[str, list[float]]:
    """One client, one request at a time, interleaved so that the shared box's load hits each the same:
    `Tutor.ask` in this process, then the same question over `POST /api/ask`, then `GET /healthz`
    (the HTTP floor); plus the pieces the route adds on top of `Tutor.ask` and the reply size."""
    from fastapi.encoders import jsonable_encoder
    from pydantic import TypeAdapter

    from s2r_tutor import Tutor
    from s2r_tutor.models import Answer
    from s2r_tutor.settings import Settings

    tutor = Tutor.load(Settings(), progress=False)
    adapter = TypeAdapter(Answer)
    out: dict[str, list[float]] = {k: [] for k in ("local", "api", "healthz", "validate", "dump", "bytes", "ratio")}
    with httpx.Client(base_url=base, timeout=60) as http:
        for i in range(n + 16):
            q = QUESTIONS[i % len(QUESTIONS)]
            t0 = time.perf_counter()
            answer = tutor.ask(q)
            local = time.perf_counter() - t0
            t0 = time.perf_counter()
            adapter.validate_python(jsonable_encoder(answer))  # what FastAPI does with a response_model
            validate = time.perf_counter() - t0
            t0 = time.perf_counter()
            answer.model_dump_json()
            dump = time.perf_counter() - t0
            t0 = time.perf_counter()
            r = http.post("/api/ask", json={"question": q, "history": []})
            api = time.perf_counter() - t0
            t0 = time.perf_counter()
            http.get("/healthz")
            health = time.perf_counter() - t0
            if i < 16:  # warm-up
                continue
            for k, v in (("local", local), ("api", api), ("healthz", health), ("validate", validate), ("dump", dump),
                         ("bytes", len(r.content)), ("ratio", api / local)):
                out[k].append(v)
    return out


def run_mix(seconds: float, clients: int = 10) -> str:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    kinds = (["ask"] * 4 + ["search"] * 3 + ["chat"] * 3) * max(1, clients // 10)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(port, 2, "1", Path(tmp))
        try:
            wait_ready(base, proc)
            seq = paired(base, 160)
            run = Mixed(seconds)
            asyncio.run(mixed_load(base, run, kinds))
        finally:
            stop(proc, 20)
    local = {"ask": seq["local"], "validate": seq["validate"], "dump": seq["dump"]}
    ask_p50, api_p50 = pctl(local["ask"], 0.5), pctl(seq["api"], 0.5)
    lines = [
        "## Chat beside the API, and the serving overhead (#15)",
        "",
        f"`python bench/api_load.py --mix --seconds {seconds:.0f}` ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}), "
        f"web_concurrency 2, OMP_NUM_THREADS 1, {os.cpu_count()} cores, load average before "
        f"{load_before[0]:.2f} (a shared box).",
        "",
        "One client, one request at a time, 160 of each, interleaved (in-process ask, the same question over",
        "HTTP, /healthz) so that the shared box's load falls on each alike:",
        "",
        "| what | p50 ms | p95 ms |",
        "|---|---:|---:|",
        f"| `Tutor.ask` in-process | {ask_p50:.1f} | {pctl(local['ask'], 0.95):.1f} |",
        f"| … FastAPI's response_model re-validation of the Answer | {pctl(local['validate'], 0.5):.2f} | {pctl(local['validate'], 0.95):.2f} |",
        f"| … `Answer.model_dump_json()` | {pctl(local['dump'], 0.5):.2f} | {pctl(local['dump'], 0.95):.2f} |",
        f"| `GET /healthz` over loopback (the HTTP + middleware floor) | {pctl(seq['healthz'], 0.5):.1f} | {pctl(seq['healthz'], 0.95):.1f} |",
        f"| `POST /api/ask` over loopback | {api_p50:.1f} | {pctl(seq['api'], 0.95):.1f} |",
        "",
        f"Serving overhead at one client: p50 {api_p50 - ask_p50:.1f} ms, {100 * (api_p50 / ask_p50 - 1):.0f} % over "
        f"in-process; median of the per-question ratio HTTP/in-process {statistics.median(seq['ratio']):.2f} "
        f"(reply size p50 {statistics.median(seq['bytes']) / 1000:.1f} kB).",
        "",
        f"Mixed load, {len(kinds)} concurrent clients for {run.seconds:.0f} s: "
        f"{kinds.count('ask')} on `/api/ask`, {kinds.count('search')} on `/api/search`, {kinds.count('chat')} chatting "
        "through Gradio's queue (join + event stream, as the browser does, one fresh session per question):",
        "",
        "| kind | requests | p50 ms | p95 ms |",
        "|---|---:|---:|---:|",
        *(f"| {k} | {len(run.latencies[k])} | {run.pct(k, 0.5):.0f} | {run.pct(k, 0.95):.0f} |" for k in ("ask", "search", "chat")),
        f"| API (ask + search) | {len(run.api())} | {run.api_pct(0.5):.0f} | {run.api_pct(0.95):.0f} |",
        "",
        f"Chat p95 / API p95 = {run.pct('chat', 0.95) / run.api_pct(0.95):.2f} (target ≤ 2); errors: "
        f"{sum(run.errors.values())}{' ' + str(run.errors) if run.errors else ''}.",
        "",
    ]
    return "\n".join(lines)


MIX_START = "<!-- mix: written by `python bench/api_load.py --mix` -->"
MIX_END = "<!-- /mix -->"


def write_mix(section: str, start: str = MIX_START, end: str = MIX_END) -> None:
    """Replace (or append) one marked section (--mix, --throughput) of API_RESULTS.md, leaving the rest as it is."""
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# HTTP API under load\n"
    block = f"{start}\n{section}{end}\n"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + block + rest.split(end, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + block
    RESULTS.write_text(text, encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


# --------------------------------------------------------------------------- #15: throughput at 8 clients


def tree_cpu(pid: int) -> float:
    """User + system CPU seconds of a process and its live children (the answer worker processes)."""
    import psutil

    root = psutil.Process(pid)
    total = 0.0
    for p in [root, *root.children(recursive=True)]:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def eval_questions() -> list[str]:
    """The distinct single-turn questions of the two eval files (~160), in file order. More than the
    embedder's 64 remembered query vectors (embedders/base.py), so a rotation through them never hits
    that memory: every ask pays its query encoding, as a reader's own wording does."""
    import json

    seen: dict[str, None] = {}
    for name in ("cases.jsonl", "dev.jsonl"):
        for line in (ROOT / "tests" / "eval" / name).read_text(encoding="utf-8").splitlines():
            case = json.loads(line) if line.strip() else {}
            if case.get("question") and not case.get("history"):
                seen[case["question"]] = None
    return list(seen)


def inprocess_rate(tutor, seconds: float, questions: list[str], offset: int = 0) -> tuple[int, float, list[float]]:
    """One thread calling `Tutor.ask` back to back over the question mix for `seconds`."""
    lat: list[float] = []
    started = time.perf_counter()
    n = offset
    while time.perf_counter() - started < seconds:
        t0 = time.perf_counter()
        tutor.ask(questions[n % len(questions)])
        lat.append(time.perf_counter() - t0)
        n += 1
    return n - offset, time.perf_counter() - started, lat


def run_throughput(seconds: float, clients: int = 8, workers: int = 2, procs: tuple[int, ...] = (0,),
                   cached: bool = False, rounds: int = 4) -> str:
    """Side by side in one run: the single-thread in-process `Tutor.ask` rate on the same question mix,
    one API client, and `clients` concurrent API clients, against one server per `procs` value (0:
    answers in the server's threads; N: in N worker processes). Each runs `seconds` in all, in
    `rounds` interleaved slices (the shared box's load drifts). Each row carries the load average. The mix is the eval files' distinct questions (no
    query-vector memory hits); `cached` adds the 8-question rotation (the path without the encoder)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from s2r_tutor import Tutor
    from s2r_tutor.settings import Settings

    def server_name(n: int) -> str:
        return f"{n} worker processes" if n else "server threads"

    mixes = [("distinct", eval_questions())] + ([("cached", QUESTIONS)] if cached else [])
    rows: dict[str, list[tuple[str, int, float, list[float], float, int]]] = {}  # label, n, s, latencies, load, errors
    ratios: dict[str, dict[int, tuple[float, float, float]]] = {}
    cpu_per: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        servers: dict[int, tuple[str, subprocess.Popen]] = {}
        try:
            for n in procs:
                port = free_port()
                folder = Path(tmp) / f"p{n}"
                folder.mkdir()
                servers[n] = (f"http://127.0.0.1:{port}", start_server(port, workers, "1", folder, procs=n))
            tutor = Tutor.load(Settings(), progress=False)
            for q in QUESTIONS * 2:  # warm the in-process path as the server's warm-up does its own
                tutor.ask(q)
            for base, proc in servers.values():
                wait_ready(base, proc)
                asyncio.run(load(base, Run(workers, 2, 3.0), 50))  # warm the server (and its workers)
            for name, questions in mixes:
                # Every configuration runs `rounds` slices of seconds/rounds in turn, so that the shared
                # box's drifting load falls on each alike; a row pools its slices, its load average is
                # the mean of the values read before each slice.
                configs = [("local", "`Tutor.ask` in-process, 1 thread", "", 1)]
                configs += [("api", f"`POST /api/ask`, 1 client, {server_name(n)}", base, 1) for n, (base, _) in servers.items()]
                configs += [("api", f"`POST /api/ask`, {clients} clients, {server_name(n)}", base, clients)
                            for n, (base, _) in servers.items()]
                acc = {label: [0, 0.0, [], [], 0, 0.0] for _, label, _, _ in configs}  # n, s, latencies, loads, errors, cpu
                offset, piece = 0, seconds / rounds
                for _ in range(rounds):
                    for kind, label, base, c in configs:
                        a = acc[label]
                        a[3].append(os.getloadavg()[0])
                        if kind == "local":
                            cpu0 = time.thread_time()
                            n, secs, lat = inprocess_rate(tutor, piece, questions, offset)
                            cpu = time.thread_time() - cpu0
                            offset += n
                            errs = 0
                        else:
                            proc = next(p for b, p in servers.values() if b == base)
                            cpu0 = tree_cpu(proc.pid)
                            run = Run(workers, c, piece)
                            asyncio.run(load(base, run, 50_000, questions))
                            cpu = tree_cpu(proc.pid) - cpu0
                            n, secs, lat, errs = run.ok, run.seconds, run.latencies, sum(run.errors.values())
                        a[0] += n
                        a[1] += secs
                        a[2] += lat
                        a[4] += errs
                        a[5] += cpu
                cpu_per[name] = {label: 1000 * a[5] / max(1, a[0]) for label, a in acc.items()}
                out = rows[name] = [(label, a[0], a[1], a[2], statistics.mean(a[3]), a[4]) for label, a in acc.items()]
                rate = {label: a[0] / a[1] for label, a in acc.items()}
                inproc = rate[configs[0][1]]
                one = {n: rate[f"`POST /api/ask`, 1 client, {server_name(n)}"] for n in servers}
                many = {n: rate[f"`POST /api/ask`, {clients} clients, {server_name(n)}"] for n in servers}
                ratios[name] = {n: (inproc, one[n], many[n]) for n in servers}
        finally:
            for _, proc in servers.values():
                stop(proc, 20)
    loads = os.getloadavg()
    errors = sum(r[5] for out in rows.values() for r in out)
    lines = [
        f"## Throughput at {clients} clients against the single-thread in-process rate (#15)",
        "",
        f"`python bench/api_load.py --throughput --seconds {seconds:.0f} --procs {','.join(map(str, procs))}"
        f"{' --cached' if cached else ''}` ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}): "
        f"{platform.machine()}, {os.cpu_count()} cores (shared with other work), Python {platform.python_version()}; "
        f"each server with web_concurrency {workers}, OMP_NUM_THREADS 1, answering in its own threads or in "
        "`--processes N` worker processes; no history; the load generator runs on the same cores. Every row runs "
        f"{rounds} slices of {seconds / rounds:.1f} s, the rows' slices in turn (round-robin), so that the shared box's "
        "drifting load falls on each alike; \"load avg\" is the mean 1-minute load average read before its slices; "
        f"at the end {loads[0]:.2f} / {loads[1]:.2f} / {loads[2]:.2f}.",
        "",
    ]
    for name, out in rows.items():
        lines += [
            f"Mix **{name}**: " + ("the eval files' distinct questions in rotation (more than the embedder's 64 "
                                   "remembered query vectors, so every ask encodes its query)" if name == "distinct" else
                                   f"{len(QUESTIONS)} questions in rotation (every query vector remembered after the "
                                   "first pass: the answer path without the encoder)") + ".",
            "",
            "| what | load avg | answers | seconds | answers/s | p50 ms | p95 ms | CPU ms / answer | errors |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            *(f"| {label} | {la:.2f} | {n} | {secs:.1f} | {n / secs:.1f} | {pctl(lat, 0.5):.1f} | {pctl(lat, 0.95):.1f} | "
              f"{cpu_per[name][label]:.1f} | {err} |" for label, n, secs, lat, la, err in out),
            "",
            "CPU ms / answer: the answering side's CPU time per answer (in-process: the thread's own; a server: its "
            "process and its worker processes, while the load generator is not counted). Unlike answers/s it "
            "hardly depends on what else the shared box runs.",
            "",
            *(f"- {server_name(n)}: in-process {inproc:.1f}/s; one API client {one:.1f}/s "
              f"({one / inproc:.2f}×); {clients} clients {many:.1f}/s = **{many / inproc:.2f}× the single-thread "
              "in-process rate** (target ≥ 1.6)." for n, (inproc, one, many) in ratios[name].items()),
            "",
        ]
    lines += [f"Errors: {errors}.", ""]
    return "\n".join(lines)


THROUGHPUT_START = "<!-- throughput: written by `python bench/api_load.py --throughput` -->"
THROUGHPUT_END = "<!-- /throughput -->"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clients", default="8,32", help="comma-separated client counts (default 8,32)")
    p.add_argument("--seconds", type=float, default=20.0, help="duration of each run (default 20)")
    p.add_argument("--workers", default="1,2,4", help="comma-separated web_concurrency values (default 1,2,4)")
    p.add_argument("--max-requests", type=int, default=50_000, help="cap on requests per run")
    p.add_argument("--compare-omp", action=argparse.BooleanOptionalAction, default=True,
                   help="also run web_concurrency 1 and 2 at the first client count with OMP_NUM_THREADS=2 "
                        "(the server's default is 1)")
    p.add_argument("--no-write", action="store_true", help="print only; do not write bench/API_RESULTS.md")
    p.add_argument("--mix", action="store_true",
                   help="#15: the serving overhead at one client, then 40%% ask / 30%% search / 30%% chat")
    p.add_argument("--throughput", action="store_true",
                   help="#15: single-thread in-process ask rate vs 1 and --clients (default 8) API clients, side by side")
    p.add_argument("--rounds", type=int, default=4, help="with --throughput: interleaved slices per row (default 4)")
    p.add_argument("--cached", action="store_true", help="with --throughput: also the 8-question rotation")
    p.add_argument("--procs", default="0,2",
                   help="with --throughput: comma-separated answer worker process counts, one server each "
                        "(S2R_WEB_PROCESSES, `serve --processes`; 0 = the server's own threads; default 0,2)")
    args = p.parse_args()
    if args.throughput:
        c = int(args.clients.split(",")[0]) if args.clients != "8,32" else 8
        w = int(args.workers.split(",")[0]) if args.workers != "1,2,4" else 2
        procs = tuple(int(x) for x in args.procs.split(","))
        section = run_throughput(args.seconds, c, w, procs, args.cached, args.rounds)
        print(section)
        if not args.no_write:
            write_mix(section, THROUGHPUT_START, THROUGHPUT_END)
        return 1 if "Errors: 0." not in section else 0
    if args.mix:
        section = run_mix(args.seconds)
        print(section)
        if not args.no_write:
            write_mix(section)
        return 1 if "errors: 0." not in section else 0
    clients = [int(c) for c in args.clients.split(",")]
    load_before = os.getloadavg()
    print(HEADER, flush=True)
    runs = []
    for w in (int(x) for x in args.workers.split(",")):
        runs += bench(w, clients, args.seconds, args.max_requests)
    if args.compare_omp:
        for w in (1, 2):
            runs += bench(w, clients[:1], args.seconds, args.max_requests, omp="2")
    if not args.no_write:
        write_results(runs, args, load_before)
    return 1 if any(r.errors for r in runs) else 0


if __name__ == "__main__":
    raise SystemExit(main())
