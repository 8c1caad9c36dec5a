"""Eval cases: one JSON object per line, parsed once into `EvalCase`; a bad line names file:line."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from ..errors import EvalCaseError
from ..models import Intent, Turn


class EvalCase(BaseModel):
    """A question a solution engineer would ask, and what a correct answer must show."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$", description="unique, stable case id")
    question: str = Field(min_length=1, description="the user's words (typos kept on purpose)")
    history: list[Turn] = Field(default_factory=list, description="prior turns of a multi-turn case")
    expected_sections: list[str] = Field(
        default_factory=list, description="section ids ('04-08#reality-gap') that answer it; [] when out of scope"
    )
    intent: Intent = Field(description="the intent the answerer should detect")
    act: str | None = Field(None, description="what is asked (answer.acts.ACTS); unlabelled cases are not scored for it")
    key_points: list[str] = Field(default_factory=list, description="short phrases a correct answer contains")
    language: Literal["zh", "en"] = Field(description="language the answer should be in")
    out_of_scope: bool = Field(False, description="the assistant should refuse")
    note: str | None = Field(None, description="why the case exists (free text, not scored)")

    _where: str = PrivateAttr("")

    @model_validator(mode="after")
    def _consistent(self) -> "EvalCase":
        if not self.question.strip():
            raise ValueError("question is blank")
        if self.out_of_scope != (self.intent is Intent.out_of_scope):
            raise ValueError("out_of_scope must be true exactly when intent is 'out_of_scope'")
        if self.out_of_scope and self.expected_sections:
            raise ValueError("an out-of-scope case expects no sections")
        if not self.out_of_scope and not self.expected_sections:
            raise ValueError("an in-scope case needs at least one expected section")
        for sid in self.expected_sections:
            if "#" not in sid or sid.startswith("#") or sid.endswith("#"):
                raise ValueError(f"section id {sid!r} is not '<card id>#<anchor>'")
        if self.act is not None:
            from ..answer.acts import ACTS  # the vocabulary lives with the classifier

            if self.act not in ACTS:
                raise ValueError(f"unknown act {self.act!r}; choose one of {', '.join(ACTS)}")
            if self.act == "out_of_scope" and not self.out_of_scope:
                raise ValueError("act 'out_of_scope' needs out_of_scope true")
            if self.out_of_scope and self.act not in ("out_of_scope", "not_in_card"):
                raise ValueError("an out-of-scope case's act is 'out_of_scope' (or 'not_in_card' when it asks for "
                                 "something the card never gives)")
        if any(not k.strip() for k in self.key_points):
            raise ValueError("key_points contains a blank phrase")
        return self

    @property
    def where(self) -> str:
        """'file:line' the case was read from ('' when built in code)."""
        return self._where

    @property
    def multi_turn(self) -> bool:
        return bool(self.history)


def _describe(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors():
        loc = ".".join(str(p) for p in e["loc"])
        msg = e["msg"].removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def parse_cases(lines: Iterable[str], source: str) -> list[EvalCase]:
    """Blank lines and lines starting with '#' are skipped; any other bad line raises EvalCaseError."""
    cases: list[EvalCase] = []
    seen: dict[str, int] = {}
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}:{lineno}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalCaseError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(data, dict):
            raise EvalCaseError(f"{where}: a case must be a JSON object, got {type(data).__name__}")
        try:
            case = EvalCase.model_validate(data)
        except ValidationError as exc:
            raise EvalCaseError(f"{where}: invalid case: {_describe(exc)}") from None
        if case.id in seen:
            raise EvalCaseError(f"{where}: duplicate case id {case.id!r} (first on line {seen[case.id]})")
        seen[case.id] = lineno
        case._where = where
        cases.append(case)
    if not cases:
        raise EvalCaseError(f"{source}: no cases found")
    return cases


def load_cases(path: Path) -> list[EvalCase]:
    """Read a JSONL eval file; every problem is an EvalCaseError naming the file and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise EvalCaseError(f"{path}: eval case file not found") from None
    except OSError as exc:
        raise EvalCaseError(f"{path}: cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise EvalCaseError(f"{path}: is not valid UTF-8 (byte {exc.start})") from None
    return parse_cases(text.splitlines(), str(path))


def expand_containers(cases: list[EvalCase], containers: dict[str, list[str]]) -> list[EvalCase]:
    """A case may name a heading with no text of its own ('04-08#why-simulation'); it is scored against
    that heading's subsections, which is where its answer lives."""
    out = []
    for case in cases:
        if not any(s in containers for s in case.expected_sections):
            out.append(case)
            continue
        expanded: list[str] = []
        for sid in case.expected_sections:
            for x in containers.get(sid, [sid]):
                if x not in expanded:
                    expanded.append(x)
        out.append(case.model_copy(update={"expected_sections": expanded}))
    return out


def check_sections(cases: list[EvalCase], known: set[str]) -> None:
    """Every expected section must exist in the corpus being evaluated (a typo would score as a miss)."""
    for case in cases:
        unknown = [s for s in case.expected_sections if s not in known]
        if unknown:
            raise EvalCaseError(
                f"{case.where or case.id}: expected section(s) {', '.join(unknown)} not in the corpus "
                f"(is --corpus the folder these cases were written for?)"
            )
