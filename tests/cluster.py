"""N `s2r-tutor serve` processes sharing one store, optionally behind nginx running
docs/deploy/nginx.conf: for tests/test_replicas.py and bench/replicas.py.

The index is built once (`s2r-tutor index`) into a shared folder that every replica loads read-only.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
NGINX_CONF = ROOT / "docs" / "deploy" / "nginx.conf"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def nginx_bin() -> str | None:
    return shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


class Cluster:
    # Every replica must share the reader secret: a token minted for one is a reader on all of them.
    READER_SECRET = "cluster-reader-secret-0123456789abcdef"

    def __init__(self, workdir: Path, database_url: str, replicas: int = 2, admin_token: str = "cluster-admin-token-0123",
                 extra_env: dict | None = None):
        self.dir = Path(workdir)
        self.index_dir = self.dir / "index"
        self.database_url = database_url
        self.admin_token = admin_token
        self.ports = [free_port() for _ in range(replicas)]
        self.procs: list[subprocess.Popen] = []
        self.nginx: subprocess.Popen | None = None
        self.proxy_port: int | None = None
        self.extra_env = extra_env or {}

    def env(self, i: int | None = None) -> dict:
        var = self.dir / (f"replica{i}" if i is not None else "cli")
        src = str(ROOT / "src")
        return {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", ""),
                "S2R_DATABASE_URL": self.database_url, "S2R_INDEX_DIR": str(self.index_dir),
                "S2R_CORPUS_DIR": str(ROOT / "corpus"), "S2R_STUDY_DB": str(var / "study.sqlite3"),
                "S2R_FEEDBACK_FILE": str(var / "feedback.jsonl"), "S2R_ADMIN_TOKEN": self.admin_token,
                "S2R_READER_SECRET": self.READER_SECRET,
                "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "GRADIO_ANALYTICS_ENABLED": "False", **self.extra_env}

    def cli(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "s2r_tutor.cli", *args], env=self.env(), capture_output=True,
                              text=True, timeout=timeout)

    def build_index(self) -> None:
        result = self.cli("index")
        if result.returncode != 0:
            raise RuntimeError(f"s2r-tutor index failed: {result.stderr[-2000:]}")

    def token(self, reader: str) -> str:
        """A reader token every replica accepts (HS256 with the shared secret)."""
        from s2r_tutor.settings import Settings
        from s2r_tutor.web.identity import issue_token

        return issue_token(Settings(reader_secret=self.READER_SECRET), reader, 3600)

    @property
    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{p}" for p in self.ports]

    def start(self, timeout_s: float = 300) -> "Cluster":
        for i, port in enumerate(self.ports):
            with (self.dir / f"replica{i}.log").open("wb") as log:  # the child keeps its own descriptor
                self.procs.append(subprocess.Popen(
                    [sys.executable, "-m", "s2r_tutor.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
                    env=self.env(i), stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        deadline = time.monotonic() + timeout_s
        for i, url in enumerate(self.urls):
            while True:
                if self.procs[i].poll() is not None:
                    raise RuntimeError(f"replica {i} exited: {self.log(i)[-3000:]}")
                try:
                    if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"replica {i} did not start: {self.log(i)[-3000:]}")
                time.sleep(0.5)
        return self

    def log(self, i: int) -> str:
        return (self.dir / f"replica{i}.log").read_text(errors="replace")

    def start_nginx(self) -> str:
        """nginx with docs/deploy/nginx.conf, only the listen port, upstreams and file paths changed."""
        binary = nginx_bin()
        if binary is None:
            raise RuntimeError("nginx is not installed (apt-get install nginx)")
        self.proxy_port = free_port()
        conf = NGINX_CONF.read_text()
        servers = "".join(f"        server 127.0.0.1:{p};\n" for p in self.ports)
        conf = re.sub(r"(?:        server 127\.0\.0\.1:\d+;\n)+", servers, conf)
        conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{self.proxy_port};")
        conf = conf.replace("worker_processes auto;", "worker_processes 1;")
        ngx = self.dir / "nginx"
        for sub in ("logs", "tmp"):
            (ngx / sub).mkdir(parents=True, exist_ok=True)
        head = (f"pid {ngx}/nginx.pid;\nerror_log {ngx}/logs/error.log warn;\n"
                + ("user root;\n" if os.geteuid() == 0 else ""))
        paths = "".join(f"    {k}_temp_path {ngx}/tmp/{k};\n" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        paths += (f"    log_format s2r '$request_method $uri $status $upstream_addr $cookie_s2r_route';\n"
                  f"    access_log {ngx}/logs/access.log s2r;\n")
        conf = head + conf.replace("http {\n", "http {\n" + paths, 1)
        (ngx / "nginx.conf").write_text(conf)
        with (ngx / "logs" / "stderr.log").open("wb") as err:
            self.nginx = subprocess.Popen([binary, "-p", str(ngx), "-c", str(ngx / "nginx.conf"), "-g", "daemon off;"],
                                          stdout=subprocess.DEVNULL, stderr=err)
        url = f"http://127.0.0.1:{self.proxy_port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                    return url
            except httpx.HTTPError:
                pass
            if self.nginx.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("nginx did not start: " + (ngx / "logs" / "stderr.log").read_text(errors="replace")
                                   + (ngx / "logs" / "error.log").read_text(errors="replace")[-2000:])
            time.sleep(0.2)

    def access_log(self) -> list[tuple[str, str, str, str, str]]:
        """(method, path, status, upstream, affinity cookie or '-') per proxied request."""
        path = self.dir / "nginx" / "logs" / "access.log"
        return [tuple(line.split(" ", 4)) for line in path.read_text().splitlines() if line.count(" ") >= 4]

    def stop(self) -> None:
        if self.nginx is not None and self.nginx.poll() is None:
            self.nginx.send_signal(signal.SIGQUIT)
            try:
                self.nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.nginx.kill()
        for p in self.procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
