"""Helpers shared by the reliability tests (no tests here): small corpora, a second embedder, a
loopback fake LLM server, a loopback HTTP server runner. Nothing here reaches the network."""

from __future__ import annotations

import contextlib
import hashlib
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import numpy as np

from s2r_tutor.settings import PROJECT_ROOT

REAL_CARD = PROJECT_ROOT / "corpus" / "04-08-sim2real.md"

SMALL_CARD = """---
id: "t-01"
title: 小测试卡片
related: ["04-08"]
---
# 小测试卡片 {#intro}

这是一张用于可靠性测试的小卡片。

## 域随机化 {#domain-randomization}

训练时故意改变摩擦、质量、光照和传感器噪声，让策略适应变化。

## 系统辨识 {#system-identification}

用真实机器人数据，让仿真参数尽量接近真实本体。

## Reality Gap {#reality-gap}

仿真永远只是现实世界的近似，这种差异通常被称为 Reality Gap。
"""

# a questions file for SMALL_CARD: reader words the card's own text does not use
QUESTIONS = [
    {"anchor": "system-identification", "question": "仓库叉车在电脑里跑和实际开起来差很多，怎么让两边对上？"},
    {"anchor": "system-identification", "question": "how do we make the simulator match our real forklift?"},
]


def write_card(folder: Path, name: str, text: str | bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return p


def small_corpus(folder: Path) -> Path:
    write_card(folder, "t-01.md", SMALL_CARD)
    return folder


def snapshot(folder: Path) -> dict[str, str]:
    """name -> sha256 of every file in folder (to prove nothing changed on disk)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


class HashEmbedder:
    """A second, different embedder (bag of character hashes, dim 16): stands in for 'another
    embedder's index' without loading torch."""

    id = "test-hash:16"
    dim = 16

    def _embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            for ch in t:
                out[i, hash(ch) % self.dim] += 1.0
        out += 1e-3
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    embed_queries = _embed
    embed_passages = _embed


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port} after {timeout} s")


# -- a fake OpenAI-compatible LLM on loopback -------------------------------------------------

class FakeLLM:
    """`/v1/chat/completions` on 127.0.0.1 with a switchable behaviour:

    ok (reply with `self.content`), hang (never answer), malformed (not JSON), wrong_shape (JSON
    without choices), http500, stream_forever (an endless SSE/body stream), huge (a multi-MB
    reply), slow_drip (a few bytes per second), empty (no content), close (drop the connection),
    redirect (a 307 to another host, which must not be followed).
    Every request body is recorded in `self.requests` (to check what the prompt contained).
    """

    def __init__(self) -> None:
        self.mode = "ok"
        self.content = "Sim2Real 是把仿真中学到的能力迁移到真实机器人上。[1]"
        self.requests: list[dict] = []
        self.stop = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # keep test output clean
                pass

            def do_POST(self):  # noqa: N802
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n)
                with contextlib.suppress(ValueError):
                    fake.requests.append(json.loads(raw))
                mode = fake.mode
                try:
                    getattr(self, f"_{mode}")()
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _send(self, body: bytes, ctype="application/json", status=200):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _completion(self, content):
                return json.dumps({"id": "x", "object": "chat.completion", "model": "fake",
                                   "choices": [{"index": 0, "finish_reason": "stop",
                                                "message": {"role": "assistant", "content": content}}]}).encode()

            def _ok(self):
                self._send(self._completion(fake.content))

            def _empty(self):
                self._send(self._completion(""))

            def _malformed(self):
                self._send(b'{"choices": [{"message": {"content": "Sim2Real', )

            def _wrong_shape(self):
                self._send(b'{"error": null, "data": [1, 2, 3]}')

            def _not_json_html(self):
                self._send(b"<html><body>502 Bad Gateway</body></html>", ctype="text/html")

            def _http500(self):
                self._send(b'{"error": {"message": "overloaded"}}', status=500)

            def _huge(self):
                self._send(self._completion("仿真" * 3_000_000))

            def _redirect(self):  # to a host that must never be contacted
                self.send_response(307)
                self.send_header("Location", "http://198.51.100.7/v1/chat/completions")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _hang(self):
                fake.stop.wait(120)

            def _close(self):
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)

            def _stream_forever(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                chunk = {"choices": [{"index": 0, "delta": {"content": "仿真"}}]}
                line = f"data: {json.dumps(chunk)}\n\n".encode()
                deadline = time.monotonic() + 120
                while not fake.stop.is_set() and time.monotonic() < deadline:
                    self.wfile.write(line)
                    self.wfile.flush()
                    time.sleep(0.005)

            def _slow_drip(self):
                body = self._completion(fake.content)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                for i in range(len(body)):
                    if fake.stop.is_set():
                        return
                    self.wfile.write(body[i: i + 1])
                    self.wfile.flush()
                    time.sleep(0.5)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeLLM":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def refused_url() -> str:
    """A loopback URL where nothing listens: connections are refused at once."""
    return f"http://127.0.0.1:{free_port()}/v1"


def raw_http(port: int, request: bytes, timeout: float = 15.0) -> tuple[int, bytes]:
    """Send bytes exactly as given (no client-side path normalisation); (status, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered (e.g. 413) and closed before the whole body was sent
        chunks = []
        while True:
            try:
                data = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not data:
                break
            chunks.append(data)
    raw = b"".join(chunks)
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    return status, body


def get_raw(port: int, path: str) -> tuple[int, bytes]:
    return raw_http(port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())


@contextlib.contextmanager
def serve_process(settings, var: Path, **env_extra: str):
    """(port, process, log path): `s2r-tutor serve` in its own process on a free loopback port, over
    `settings`' index and corpus, its writable state in `var`; `env_extra` adds S2R_* settings.
    On exit the server is stopped and its log is checked: no traceback from anything it served."""
    import os
    import subprocess
    import sys

    import httpx

    port = free_port()
    log_path = var / "server.log"
    env = {**os.environ, "S2R_INDEX_DIR": str(settings.index_dir), "S2R_CORPUS_DIR": str(settings.corpus_dir),
           "S2R_FEEDBACK_FILE": str(var / "feedback.jsonl"), "S2R_STUDY_DB": str(var / "study.sqlite3"), **env_extra}
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "s2r_tutor.cli", "serve", "--host", "127.0.0.1",
                                 "--port", str(port)], stdout=log, stderr=subprocess.STDOUT, cwd=PROJECT_ROOT, env=env)
        try:
            deadline = time.monotonic() + 180
            while True:
                if proc.poll() is not None:
                    raise RuntimeError("server died:\n" + log_path.read_text()[-2000:])
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError("server did not come up in 180 s")
                time.sleep(0.5)
            yield port, proc, log_path
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
    text = log_path.read_text(errors="replace")
    assert "Traceback" not in text, text[-3000:]  # nothing the clients did crashed a handler


CHOICE_TYPES = {"radio", "dropdown", "checkboxgroup"}  # Gradio's components whose value must be one of choices (R194)


def gradio_event(base: str, body: dict, *, query: str = "", cookies=None, timeout: float = 90) -> str | None:
    """Join Gradio's queue as the page does and read the event's stream until it completes: the
    `process_completed` message line, or None when the join is refused or the stream ends first."""
    import httpx

    r = httpx.post(base + "/gradio_api/queue/join" + query, json=body, cookies=cookies, timeout=30)
    if r.status_code != 200:
        return None
    with httpx.stream("GET", base + "/gradio_api/queue/data", params={"session_hash": body["session_hash"]},
                      timeout=timeout) as stream:
        for line in stream.iter_lines():
            if '"process_completed"' in line:
                return line
    return None


# -- raw event-stream clients (R171, R185): a heartbeat or queue stream held open on a socket ------------

def open_stream(port: int, path: str, client: str | None = None, *, source: str | None = None,
                timeout: float = 10) -> socket.socket:
    """GET `path` on a raw socket and leave it open; `client` is sent as X-Forwarded-For (a trusted proxy's
    client address, as uvicorn resolves it for loopback); `source`: the loopback address to connect from
    (127.0.0.2, ...: a client of its own without any header)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                 source_address=(source, 0) if source else None)
    forwarded = f"X-Forwarded-For: {client}\r\n" if client else ""
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{forwarded}\r\n".encode())
    return s


def stream_status(s: socket.socket) -> int | None:
    """The status code the server answered on a stream socket, None when it closed without one."""
    try:
        head = s.recv(64)
        return int(head.split(b" ", 2)[1]) if head else None
    except (OSError, IndexError, ValueError):
        return None


def queue_join(base: str, fn_index: int, session: str, client: str | None = None) -> int:
    """Join Gradio's queue with event `fn_index` for `session`; the HTTP status."""
    body = {"data": [], "fn_index": fn_index, "session_hash": session, "event_data": None, "trigger_id": None}
    headers = {"X-Forwarded-For": client} if client else {}
    return httpx.post(base + "/gradio_api/queue/join", json=body, headers=headers, timeout=30).status_code
