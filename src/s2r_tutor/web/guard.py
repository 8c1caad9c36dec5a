"""Gradio's file routes, narrowed to what this app uses (R88 in docs/reliability.md).

Gradio mounts routes for every component it has: `/gradio_api/upload` stores any file an anonymous
client posts (under the Gradio temp folder, /tmp/gradio by default) and `/gradio_api/file=<path>`
serves back whatever sits in that folder, or fetches a public URL on the caller's behalf. The chat
and the study tabs have no upload component, and the only file the app hands out is the notes
export (the `gr.File` with elem_id `study-notes-file`), which Gradio copies into its cache and
records in that component's `temp_files`. So:

- the upload routes (and the older paths without `/gradio_api`) answer 403 before any byte of the
  body is read;
- `file=` (and the older `file/`) serves only files in the `temp_files` of the components named in
  `SERVED_COMPONENTS`; anything else, a URL included, is a 404. Trusting every component's temp
  files was not enough (R140): Gradio copies a file reference found in any event input into the
  input component's temp files, so a crafted chat message made `/etc/passwd` servable.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from fastapi.responses import JSONResponse

from ..settings import PROJECT_ROOT, Settings

GRADIO_PREFIXES = ("/gradio_api", "")  # Gradio 4+ routes, and the older ones at the root
REFUSED = ("/upload", "/upload_progress", "/process_recording", "/component_server")
FILE_ROUTES = ("/file=", "/file/")
_SLASHES = re.compile(r"/{2,}")
SERVED_COMPONENTS = frozenset({"study-notes-file"})  # elem_ids of the components whose files may be served


def gradio_routes(names: tuple[str, ...]) -> tuple[str, ...]:
    """A Gradio route under every prefix Gradio serves it at."""
    return tuple(prefix + name for prefix in GRADIO_PREFIXES for name in names)


def request_path(scope) -> str:
    """The path as routing reads it: '//gradio_api//upload' is '/gradio_api/upload'."""
    return _SLASHES.sub("/", scope["path"])


class GradioFileGuard:
    """ASGI middleware: refuses uploads, and serves `file=` only for files the app itself produced."""

    refused = gradio_routes(REFUSED)
    file_routes = gradio_routes(FILE_ROUTES)

    def __init__(self, app, blocks):
        self.app = app
        self.blocks = blocks

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = request_path(scope)
        if path.rstrip("/") in self.refused:
            return await deny(403, "this app accepts no file uploads")(scope, receive, send)
        for route in self.file_routes:
            if path.startswith(route) and not self.served(path[len(route):]):
                return await deny(404, "no such file")(scope, receive, send)
        return await self.app(scope, receive, send)

    def served(self, requested: str) -> bool:
        """True for a file that one of the SERVED_COMPONENTS (the notes export) put in Gradio's cache."""
        target = _resolved(requested)
        if target is None:
            return False
        for block in list(getattr(self.blocks, "blocks", {}).values()):
            if getattr(block, "elem_id", None) not in SERVED_COMPONENTS:
                continue
            if any(_resolved(f) == target for f in list(getattr(block, "temp_files", ()))):
                return True
        return False


def _resolved(path: str) -> Path | None:
    try:
        p = Path(path)
        return p.resolve() if p.is_absolute() else None
    except (OSError, ValueError):  # NUL bytes, loops
        return None


def deny(status: int, detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status)


def gradio_file_settings(settings: Settings) -> dict:
    """`mount_gradio_app` options, set on purpose rather than left to Gradio's defaults: no extra
    allowed paths, no upload bigger than 0 bytes even if a route slipped past the guard, and the
    project, its data and the study/feedback folders blocked from `file=` whatever else allows
    them. Gradio also refuses to copy a file from a blocked folder into its cache, so a folder that
    holds the cache or the temp folder the notes export is written to (e.g. a study database in
    /tmp) is not blocked, or the export could not be downloaded."""
    from gradio.utils import get_upload_folder

    needed = [Path(get_upload_folder()).resolve(), Path(tempfile.gettempdir()).resolve()]
    candidates = [PROJECT_ROOT, settings.home, settings.corpus_dir, settings.index_dir, settings.prompts_dir,
                  settings.study_db.parent, settings.feedback_file.parent]
    blocked: list[str] = []
    for folder in candidates:
        folder = Path(folder).resolve()
        if not any(n.is_relative_to(folder) for n in needed) and str(folder) not in blocked:
            blocked.append(str(folder))
    return {"allowed_paths": [], "blocked_paths": blocked, "max_file_size": 0}
