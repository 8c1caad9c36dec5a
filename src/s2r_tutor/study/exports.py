"""Where notes exports are written, and their removal (issue 13, finding 5).

Each export used to get its own `tempfile.mkdtemp()` that nothing ever removed (708 MB in 30 s of
clicking). Now one folder per process holds them: each export is a subfolder in it (so the download
keeps its plain file name), removed `ttl_s`
after it was written (by a timer, and on the next export), never more than `keep` at once (the
oldest go first), and the whole folder goes when the process exits. The file is only needed until
Gradio has copied it into its own cache for the download, which happens as the handler returns.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
import threading
import time
import uuid
from pathlib import Path

log = logging.getLogger("s2r_tutor.study")


class ExportFolder:
    def __init__(self, keep: int = 16, ttl_s: float = 120.0, parent: Path | None = None):
        self.keep = max(1, int(keep))
        self.ttl_s = float(ttl_s)
        self.parent = parent
        self._root: Path | None = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    @property
    def root(self) -> Path:
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="s2r-notes-", dir=self.parent))
            atexit.register(self.close)
        return self._root

    def write(self, name: str, text: str) -> Path:
        """Write one export as `<root>/<random>/<name>` and prune; returns its path."""
        with self._lock:
            folder = self.root / uuid.uuid4().hex[:16]
            folder.mkdir()
            path = folder / name
            path.write_text(text, encoding="utf-8")
            self._prune_locked(keep_also=folder)
            self._schedule_locked()
        return path

    def files(self) -> list[Path]:
        """The export folders present, oldest first."""
        if self._root is None or not self._root.exists():
            return []
        return sorted((p for p in self._root.iterdir() if p.is_dir()), key=_mtime)

    def prune(self, now: float | None = None) -> int:
        """Remove expired files and any beyond `keep`; returns how many were removed."""
        with self._lock:
            return self._prune_locked(now=now)

    def _prune_locked(self, keep_also: Path | None = None, now: float | None = None) -> int:
        now = time.time() if now is None else now
        files = self.files()
        doomed = [p for p in files if now - _mtime(p) >= self.ttl_s and p != keep_also]
        alive = [p for p in files if p not in doomed]
        doomed += alive[: max(0, len(alive) - self.keep)]  # oldest first
        for p in doomed:
            try:
                shutil.rmtree(p)
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.warning("notes export %s not removed: %s", p.name, exc.strerror)
        return len(doomed)

    def _schedule_locked(self) -> None:
        if self._timer is not None and self._timer.is_alive():
            return
        self._timer = threading.Timer(self.ttl_s + 1, self._on_timer)
        self._timer.daemon = True
        self._timer.start()

    def _on_timer(self) -> None:
        with self._lock:
            self._timer = None
            self._prune_locked()
            if self.files():
                self._schedule_locked()

    def close(self) -> None:
        """Remove the folder and everything in it (at exit, or when the app is torn down)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._root is not None:
                shutil.rmtree(self._root, ignore_errors=True)
                self._root = None


def _mtime(p: Path) -> float:
    try:
        return os.stat(p).st_mtime
    except OSError:
        return 0.0
