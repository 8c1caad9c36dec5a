"""Query vectors of labelled texts (the act examples, the customer stories): read from the file shipped
beside the data, or from the cache beside the index, when the key (embedder id + texts) matches;
computed once otherwise and cached. Embedded as search embeds a question, so a reader's question
and a labelled one compare directly."""

from __future__ import annotations

import hashlib
import json
import logging
from importlib import resources
from pathlib import Path

import numpy as np

log = logging.getLogger("s2r_tutor.answer")


def vectors_key(embedder_id: str, texts: list[str]) -> str:
    h = hashlib.sha256(embedder_id.encode())
    for t in texts:
        h.update(b"\0" + t.encode())
    return h.hexdigest()


def keyed_places(name: str, cache_dir: Path | None, key: str) -> list[Path]:
    """The stems (the package's shipped `data/<name>`, then the cache beside the index) whose `.json` holds `key`."""
    places = [Path(str(resources.files("s2r_tutor").joinpath(f"data/{name}")))]
    if cache_dir is not None:
        places.append(Path(cache_dir) / Path(name).name)
    out = []
    for base in places:
        try:
            if json.loads(Path(f"{base}.json").read_text("utf-8")).get("key") == key:
                out.append(base)
        except (OSError, ValueError):
            continue
    return out


def labelled_vectors(texts: list[str], embedder, name: str, cache_dir: Path | None, what: str) -> np.ndarray:
    """`name`: the files' stem under the package's `data/` ("acts.vectors", "rules/scenario_stories.vectors");
    the cache beside the index uses its last part. `what`: the log's word for the texts."""
    key = vectors_key(embedder.id, texts)
    stem = Path(name).name
    for base in keyed_places(name, cache_dir, key):
        try:
            vecs = np.load(f"{base}.npy", allow_pickle=False)
        except (OSError, ValueError):
            continue
        if vecs.shape == (len(texts), embedder.dim):
            return vecs
    log.info("embedding %d %s (once per embedder)", len(texts), what)
    vecs = np.asarray(embedder.embed_queries(texts), dtype=np.float32)
    if cache_dir is not None:
        try:
            Path(cache_dir).mkdir(parents=True, exist_ok=True)
            np.save(Path(cache_dir) / f"{stem}.npy", vecs, allow_pickle=False)
            Path(cache_dir, f"{stem}.json").write_text(json.dumps({"key": key, "embedder": embedder.id}), "utf-8")
        except OSError as exc:  # a read-only index folder only costs the cache
            log.warning("could not cache the vectors of %s in %s: %s", what, cache_dir, exc)
    return vecs
