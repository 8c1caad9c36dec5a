"""The act read by a softmax regression over every labelled example question, beside the nearest neighbours' vote.

Nine neighbours see nine examples: a fresh phrasing whose nearest rows happen to be labelled with another act is
outvoted by them, however many rows further out say otherwise. A linear model fitted on all 2,000-odd labelled
vectors weighs every example. Measured on the 3,668 single-turn questions of blind sets 8-52 (none of them a
labelled example; `answering-history.md`, round 59): the neighbours' vote alone reads 0.698 of the acts right, the
regression 0.78-0.80 over a wide range of its settings, the two averaged 0.81. So `ActReader` averages them
(`Settings.answer.act_model_weight`); the cue words, the ask clause and the `needs`/`decisive` rules act on the average
as they did on the vote.

Fitting takes about a second, so the fitted weights are kept like the example vectors (`answer/vectors.py`): shipped
for the default embedder, cached beside the index for another, keyed by the vectors themselves, the labels and the
settings.
Fitting is full-batch gradient descent from zero (deterministic), with class weights so an act of 30 examples is not
drowned by one of 400.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .vectors import keyed_places

log = logging.getLogger("s2r_tutor.answer")


@dataclass(frozen=True)
class ActModel:
    weights: np.ndarray  # (dim, classes)
    bias: np.ndarray  # (classes,)
    scale: float
    classes: tuple[str, ...] = ()  # the label of each column

    def probs(self, v: np.ndarray) -> np.ndarray:
        """The class probabilities (in the order the model was fitted on) of one query vector."""
        z = (np.asarray(v, dtype=np.float32) * self.scale) @ self.weights + self.bias
        z = np.exp(z - z.max())
        return z / z.sum()


def fit(vectors: np.ndarray, labels: list[int], n_classes: int, *, scale: float, l2: float, epochs: int,
        step: float = 0.5, momentum: float = 0.9, classes: tuple[str, ...] = ()) -> ActModel:
    """Class-weighted softmax regression by full-batch Nesterov gradient descent (numpy only: the default install
    has no scikit-learn or torch)."""
    x = np.asarray(vectors, dtype=np.float32) * scale
    y = np.asarray(labels)
    counts = np.bincount(y, minlength=n_classes)
    row_w = (len(y) / (n_classes * np.maximum(counts, 1)))[y].astype(np.float32) / len(y)
    onehot = np.eye(n_classes, dtype=np.float32)[y]
    w = np.zeros((x.shape[1], n_classes), dtype=np.float32)
    b = np.zeros(n_classes, dtype=np.float32)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    for _ in range(epochs):
        wl, bl = w + momentum * vw, b + momentum * vb
        z = x @ wl + bl
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) * row_w[:, None]
        vw = momentum * vw - step * (x.T @ g + l2 * wl)
        vb = momentum * vb - step * g.sum(axis=0)
        w += vw
        b += vb
    return ActModel(w, b, scale, classes)


def model_key(vectors: np.ndarray, labels: list[str], classes: tuple[str, ...], scale: float, l2: float,
              epochs: int) -> str:
    """What the fit depends on: the vectors themselves (hashing their bytes costs a few ms; keying on the embedder and
    the example texts again cost 200 ms at start-up), the labels and the settings."""
    h = hashlib.sha256(np.ascontiguousarray(vectors, dtype=np.float32).tobytes())
    h.update(json.dumps([labels, list(classes), scale, l2, epochs]).encode())
    return h.hexdigest()


def fitted_model(vectors: np.ndarray, labels: list[str], classes: tuple[str, ...], name: str,
                 cache_dir: Path | None, *, scale: float, l2: float, epochs: int) -> ActModel:
    """The model for these example vectors and labels: from the file shipped under the package's `data/<name>`, or
    the cache beside the index, when the key matches; fitted (and cached) otherwise."""
    key = model_key(vectors, labels, classes, scale, l2, epochs)
    for base in keyed_places(name, cache_dir, key):
        try:
            with np.load(f"{base}.npz", allow_pickle=False) as f:
                w, b = f["weights"], f["bias"]
        except (OSError, ValueError, KeyError):
            continue
        if w.shape == (vectors.shape[1], len(classes)) and b.shape == (len(classes),):
            return ActModel(w, b, scale, classes)
    log.info("fitting %s on %d labelled examples (once per embedder and data)", name, len(labels))
    model = fit(vectors, [classes.index(a) for a in labels], len(classes), scale=scale, l2=l2, epochs=epochs,
                classes=classes)
    if cache_dir is not None:
        save(model, key, Path(cache_dir) / name)
    return model


def save(model: ActModel, key: str, base: Path) -> None:
    try:
        base.parent.mkdir(parents=True, exist_ok=True)
        np.savez(f"{base}.npz", weights=model.weights, bias=model.bias)
        Path(f"{base}.json").write_text(json.dumps({"key": key}), "utf-8")
    except OSError as exc:  # a read-only index folder only costs the cache
        log.warning("could not cache the act model in %s: %s", base, exc)
