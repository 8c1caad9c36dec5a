"""A throwaway PostgreSQL server for tests: `initdb` + `pg_ctl` from Debian's `postgresql` package,
in a temporary folder, on 127.0.0.1 at a free port, trust authentication (loopback only).

PostgreSQL refuses to run as root, and CI runs as root: then the server runs as `nobody` (through
`runuser`) in a folder chowned to it, outside pytest's 0700 temporary root that `nobody` cannot enter.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

RUN_AS = "nobody"


def pg_bin() -> Path | None:
    """The folder holding initdb/pg_ctl: on PATH, else Debian's /usr/lib/postgresql/<v>/bin (newest)."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).parent
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


def missing_reason() -> str | None:
    """Why no server can start here, or None. Without PostgreSQL but with apt this is a failure to
    fix (scripts/test installs it), so the caller fails rather than skips."""
    if pg_bin() is not None:
        return None
    if shutil.which("apt-get"):
        return "PostgreSQL is not installed but apt is: run scripts/test (it installs `postgresql`) or apt-get install postgresql"
    return "neither PostgreSQL (initdb/pg_ctl) nor apt-get exists on this machine"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    def __init__(self):
        self.bin = pg_bin()
        self.dir = Path(tempfile.mkdtemp(prefix="s2r-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", RUN_AS, "--", *cmd]
        return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=120, cwd=self.dir)

    def start(self) -> PostgresServer:
        if self.as_root:
            shutil.chown(self.dir, RUN_AS)
            os.chmod(self.dir, 0o700)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-locale", "--no-sync")
        opts = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        result = self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.dir / "server.log"),
                           "-w", "-t", "60", "start", check=False)
        if result.returncode != 0:
            log = (self.dir / "server.log").read_text(errors="replace")[-2000:] if (self.dir / "server.log").exists() else ""
            raise RuntimeError(f"PostgreSQL did not start: {result.stderr.strip()} {log}")
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


_counter = iter(range(1_000_000))


def fresh_name(prefix: str = "t") -> str:
    return f"{prefix}_{os.getpid()}_{next(_counter)}_{int(time.time() * 1000) % 100000}"
