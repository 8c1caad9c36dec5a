"""Round 62: a customer-story factor's words for the customer that say what the story itself told (a part swapped,
equipment added, this one unit against the others) are given only where the story's own words name the factor
(scenarios.json `reply_if_named`), in its cue words or by a clear vote of the labelled stories
(`match.reply_min_vote`). A factor the neighbours only guessed gets the general reply: "compare
this unit with one that works" for a plan moved to a second site was graded 0 twice."""

from __future__ import annotations

import pytest
from conftest import assert_table_rejects

from s2r_tutor.answer.scenario_table import table

GENERAL = {"zh": "逐项对比仿真和现场", "en": "compare simulation and site item by item"}


@pytest.mark.parametrize("question, lang, presumed", [
    ("客户抱怨：同一套巡检方案在一号厂区跑得好好的，搬到二号厂区就各种状况，我怎么回", "zh", "正常的机器"),
    (("Same rollout plan worked at the first depot, at the second depot the robots keep having trouble. "
      "How do I answer the customer?"), "en", "added equipment"),
])
def test_a_story_that_names_no_factor_gets_the_general_words(tutor, question, lang, presumed):
    a = tutor.ask(question)
    assert a.act == "customer_reply" and not a.refused, (a.act, a.answer)
    words = a.answer.split("\n")[0]
    assert presumed not in a.answer and GENERAL[lang] in words, a.answer


def test_a_story_of_one_unit_among_several_keeps_the_units_words(tutor):
    a = tutor.ask("十台同型号的机器狗，就一台老是走歪，其他都正常，客户问咋回事，我怎么跟他说")
    assert "这台机器自己的本体" in a.answer and GENERAL["zh"] not in a.answer, a.answer


@pytest.mark.parametrize("question, words", [
    # told in words no cue lists: the labelled stories' clear vote names the factor (0.65)
    ("they replaced the wrist cameras with a cheaper brand and picking got worse, how do I explain it to the customer",
     "new sensors"),
])
def test_a_story_told_in_other_words_keeps_its_factors_words(tutor, question, words):
    a = tutor.ask(question)
    assert words in a.answer.split("\n")[0] and GENERAL["en"] not in a.answer, a.answer


def test_the_flag_is_set_where_the_words_tell_a_change_and_is_checked_at_load():
    named = {f.key for f in table().factors if f.reply_if_named}
    assert {"body", "parts", "sensors", "payload", "model"} <= named
    assert not named & {"ground", "terrain", "lighting", "environment", "precision"}  # conditions, not told changes

    def bad(data):
        data["factors"][0]["reply_if_named"] = "yes"

    assert_table_rejects(bad, "reply_if_named")
