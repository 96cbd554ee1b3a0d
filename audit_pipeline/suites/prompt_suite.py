"""The in-memory prompt suite: immutable, content-hashed, one shape for single and multi-turn.

Every consumer (runner, assertions, reports) iterates ``prompt.turns``; a single prompt is a
one-turn conversation, so nothing downstream needs a second code path. Hashes are computed from
a canonical form so a re-run can tell which prompts changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from audit_pipeline.records.audits import AuditRef

ExpectedBehavior = Literal[
    "answer_with_citation", "fallback", "reject_or_deflect", "greeting_or_fallback"
]
EXPECTED_BEHAVIORS: tuple[str, ...] = get_args(ExpectedBehavior)
PinTolerance = Literal["exact", "normalized", "semantic"]
TOLERANCES: tuple[str, ...] = get_args(PinTolerance)
DEFAULT_MIN_SIMILARITY = 0.9


def split_signal_group(group: str) -> tuple[str, ...]:
    """``"a|b | c"`` -> ``("a", "b", "c")``: a group matches when any alternative does."""
    return tuple(part.strip() for part in group.split("|"))


@dataclass(frozen=True)
class SuiteTurn:
    """One user message and what the bot's reply to it must (not) do."""

    prompt: str
    expected_behavior: ExpectedBehavior | None = None
    required_signals: tuple[str, ...] = ()  # each an "a|b|c" group; every group must match
    must_not_appear: tuple[str, ...] = ()
    required_citation_source: str | None = None
    citation_must_contain: tuple[str, ...] = ()
    no_agreement: bool = False  # the bot must not agree with a fabricated earlier statement
    # Forbidden strings that fail only where the answer asserts them (assertions/denial.py).
    must_not_assert: tuple[str, ...] = ()
    # Regression pinning (assertions/pinning.py): the answer must stay this one.
    pinned_response: str | None = None
    pinned_tolerance: PinTolerance = "exact"
    pinned_min_similarity: float = DEFAULT_MIN_SIMILARITY  # for semantic

    @property
    def signal_groups(self) -> tuple[tuple[str, ...], ...]:
        """Required signals split into their alternatives."""
        return tuple(split_signal_group(group) for group in self.required_signals)

    def canonical(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "prompt": self.prompt,
            "expected_behavior": self.expected_behavior,
            "required_signals": list(self.required_signals),
            "must_not_appear": list(self.must_not_appear),
            "required_citation_source": self.required_citation_source,
            "citation_must_contain": list(self.citation_must_contain),
            "no_agreement": self.no_agreement,
        }
        # Newer fields join the hashed form only when set: existing suites keep their hashes.
        if self.must_not_assert:
            body["must_not_assert"] = list(self.must_not_assert)
        if self.pinned_response is not None:
            body["pinned_response"] = self.pinned_response
            body["pinned_tolerance"] = self.pinned_tolerance
            if self.pinned_tolerance == "semantic":
                body["pinned_min_similarity"] = self.pinned_min_similarity
        return body


@dataclass(frozen=True)
class SuitePrompt:
    """One suite entry: a single prompt, or a conversation when ``conversation`` was given.

    ``turns`` always holds at least one turn. ``is_conversation`` records which form the author
    wrote, so the canonical form (and hash) of a one-turn conversation differs from a prompt.
    """

    id: str
    category: str
    turns: tuple[SuiteTurn, ...]
    is_conversation: bool = False
    expected_doc_ids: tuple[str, ...] = ()
    notes: str | None = None
    # A fuzz variant (suites/fuzz.py): the prompt it was derived from, and how.
    fuzz_of: str | None = None
    transformation: str | None = None
    prompt_hash: str = field(init=False)

    def __post_init__(self) -> None:
        if not self.turns:
            raise ValueError(f"prompt {self.id!r} has no turns")
        if not self.is_conversation and len(self.turns) != 1:
            raise ValueError(f"prompt {self.id!r} is not a conversation but has several turns")
        object.__setattr__(self, "prompt_hash", _sha256(self.canonical()))

    @property
    def prompt(self) -> str:
        """The first user message (the whole prompt for the single-prompt form)."""
        return self.turns[0].prompt

    def canonical(self) -> dict[str, Any]:
        """The hashed form. ``notes`` is left out: it is commentary and changes no result."""
        body: dict[str, Any] = {"id": self.id, "category": self.category}
        if self.is_conversation:
            body["conversation"] = [turn.canonical() for turn in self.turns]
        else:
            turn = self.turns[0].canonical()
            del turn["no_agreement"]
            body.update(turn)
        body["expected_doc_ids"] = list(self.expected_doc_ids)
        return body


@dataclass(frozen=True)
class PromptSuite:
    """A named, versioned, immutable list of prompts with unique ids."""

    name: str
    prompts: tuple[SuitePrompt, ...]
    version: str | None = None
    description: str | None = None
    source: str | None = None  # path the suite was loaded from, when it came from a file
    # Fuzz transformations the suite asks for (``fuzz:``); its variants are added by fuzz_suite.
    fuzz: tuple[str, ...] = ()
    content_hash: str = field(init=False)

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for prompt in self.prompts:
            if prompt.id in seen:
                raise ValueError(f"suite {self.name!r}: duplicate prompt id {prompt.id!r}")
            seen.add(prompt.id)
        object.__setattr__(
            self, "content_hash", _sha256([prompt.canonical() for prompt in self.prompts])
        )

    def __len__(self) -> int:
        return len(self.prompts)

    def __iter__(self) -> Iterator[SuitePrompt]:
        return iter(self.prompts)

    @property
    def categories(self) -> tuple[str, ...]:
        """Categories in first-seen order."""
        return tuple(dict.fromkeys(prompt.category for prompt in self.prompts))

    def get(self, prompt_id: str) -> SuitePrompt:
        for prompt in self.prompts:
            if prompt.id == prompt_id:
                return prompt
        raise KeyError(f"suite {self.name!r} has no prompt {prompt_id!r}")

    def asked_in(self, ref: AuditRef) -> PromptSuite:
        """The prompts audit ``ref`` asked: all of them, or its ``--category`` / ``--id`` part."""
        if not (ref.categories or ref.ids):
            return self
        return self.filter(categories=ref.categories or None, ids=ref.ids or None)

    def filter(
        self,
        categories: Collection[str] | None = None,
        ids: Collection[str] | None = None,
    ) -> PromptSuite:
        """The prompts in any of ``categories`` and among ``ids`` (None = no restriction).

        Unknown names raise instead of selecting nothing, so a typo on the command line does not
        turn into an empty, green audit.
        """
        if categories is not None:
            unknown = sorted(set(categories) - set(self.categories))
            if unknown:
                raise ValueError(
                    f"suite {self.name!r} has no categor{'ies' if len(unknown) > 1 else 'y'} "
                    f"{', '.join(map(repr, unknown))}; known: {', '.join(self.categories)}"
                )
        if ids is not None:
            known = {prompt.id for prompt in self.prompts}
            unknown = sorted(set(ids) - known)
            if unknown:
                raise ValueError(
                    f"suite {self.name!r} has no prompt id {', '.join(map(repr, unknown))}"
                )
        kept = tuple(
            prompt
            for prompt in self.prompts
            if (categories is None or prompt.category in categories)
            # A fuzz variant goes with its parent: --id ENC-002 keeps ENC-002~base64.
            and (ids is None or prompt.id in ids or prompt.fuzz_of in ids)
        )
        return PromptSuite(
            name=self.name,
            prompts=kept,
            version=self.version,
            description=self.description,
            source=self.source,
            fuzz=self.fuzz,
        )


def _sha256(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
