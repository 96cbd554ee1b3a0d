"""Draft a prompt suite from the vault and a use-case description (offline).

Three kinds of prompts, in the proportions a seed-000 suite has:

- **answerable** (about 60 %): one question per vault section that states key facts, asked
  about the section's heading (an FAQ heading that is a question is used as it is), with the
  section's facts as ``required_signals`` and its file as ``required_citation_source``;
- **fallback** (about 25 %): questions the use case implies but the vault does not answer (its
  best hit scores below the reference bot's confidence threshold), with the specifics a model
  would invent as ``must_not_appear``, minus any the vault does state;
- **adversarial** (the rest): injection, credential, attack and leak requests the bot must
  deflect.

Sections are taken round-robin over the documents so every document is asked about. The result
is a plain mapping that ``parse_suite`` validates before it is written.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit_pipeline.assertions.text_match import find_phrase
from audit_pipeline.suitegen.facts import KIND_RANK, key_facts
from audit_pipeline.suitegen.use_cases import ADVERSARIAL, Topic, catalogs_for
from audit_pipeline.vault.chunking import Chunk

# Below this best-hit relevance the vault does not answer a question: the reference bot's
# default min_confidence, which separates the sample suite's answerable and fallback prompts.
COVERED = 0.5
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[A-Z]\.)\s+")


@dataclass(frozen=True)
class Section:
    doc_id: str
    title: str
    heading: str
    text: str


@dataclass
class Draft:
    """A generated suite before it is written, and how each part was made."""

    prompts: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def sections(chunks: Iterable[Chunk]) -> list[Section]:
    """Chunks joined per (document, heading); a document's title block is left out."""
    grouped: dict[tuple[str, tuple[str, ...]], list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        grouped[(chunk.doc_id, chunk.section_path)].append(chunk)
    out = []
    for (doc_id, path), parts in grouped.items():
        title = parts[0].title
        if not path or path == (title,):
            continue
        heading = _NUMBERING.sub("", path[-1]).strip()
        text = "\n".join(part.text for part in sorted(parts, key=lambda c: c.chunk_index))
        out.append(Section(doc_id, title, heading, text))
    return out


def question_for(section: Section) -> str:
    """The section's heading as a question (an FAQ heading already is one)."""
    if section.heading.endswith("?"):
        return section.heading
    topic = " ".join(
        word if word.isupper() or any(c.isdigit() for c in word) else word.lower()
        for word in section.heading.split()
    )
    return f"What does the {section.title} say about {topic}?"


def answerable(
    section: Section,
    category: str,
    number: int,
    question: str | None = None,
    facts: Sequence[str] | None = None,
) -> dict[str, Any] | None:
    chosen = list(facts) if facts is not None else [f.text for f in key_facts(section.text, 2)]
    if not chosen:
        return None
    return {
        "id": f"GEN-A{number:03d}",
        "category": category,
        "prompt": question or question_for(section),
        "expected_behavior": "answer_with_citation",
        "required_signals": chosen,
        "required_citation_source": section.doc_id,
        "expected_doc_ids": [section.doc_id],
        "notes": f"generated from {section.doc_id} > {section.heading}",
    }


def _richness(section: Section) -> tuple[int, int]:
    """Sections stating durations, quantities and dates first: their answers are checkable."""
    facts = key_facts(section.text, 2)
    return (min((KIND_RANK[f.kind] for f in facts), default=99), -len(facts))


def round_robin(items: Sequence[Section]) -> list[Section]:
    """The richest section of each document, then the second richest of each, and so on."""
    by_doc: dict[str, list[Section]] = defaultdict(list)
    for item in items:
        by_doc[item.doc_id].append(item)
    queues = [sorted(queue, key=_richness) for queue in by_doc.values()]
    out: list[Section] = []
    while any(queues):
        for queue in queues:
            if queue:
                out.append(queue.pop(0))
    return out


def fallback_topics(
    use_case: str, relevance: Callable[[str], float], vault_text: str
) -> list[Topic]:
    """Catalog topics of the use case that the vault leaves unanswered."""
    topics = []
    for catalog in catalogs_for(use_case):
        for topic in catalog.topics:
            if relevance(topic.question) < COVERED:
                topics.append(_without_vault_facts(topic, vault_text))
    return [t for t in topics if t.fabrications]


def _without_vault_facts(topic: Topic, vault_text: str) -> Topic:
    kept = tuple(f for f in topic.fabrications if not find_phrase(vault_text, f))
    return Topic(topic.name, topic.question, kept)


def fallback(topic: Topic, number: int) -> dict[str, Any]:
    return {
        "id": f"GEN-F{number:03d}",
        "category": topic.name,
        "prompt": topic.question,
        "expected_behavior": "fallback",
        "must_not_appear": list(topic.fabrications),
        "notes": "generated: the use case implies this topic, the vault does not cover it",
    }


def adversarial(vault_text: str, count: int) -> list[dict[str, Any]]:
    out = []
    for number, (prompt, forbidden) in enumerate(ADVERSARIAL[:count], start=1):
        kept = [f for f in forbidden if not find_phrase(vault_text, f)]
        entry: dict[str, Any] = {
            "id": f"GEN-X{number:03d}",
            "category": "adversarial",
            "prompt": prompt,
            "expected_behavior": "reject_or_deflect",
        }
        if kept:
            entry["must_not_appear"] = kept
        out.append(entry)
    return out


def quotas(n: int, available: tuple[int, int, int]) -> tuple[int, int, int]:
    """Answerable / fallback / adversarial counts for ``n`` prompts, given what exists."""
    fallbacks = min(available[1], round(n * 0.25))
    attacks = min(available[2], max(n - round(n * 0.6) - fallbacks, 1 if n >= 3 else 0))
    answers = min(available[0], n - fallbacks - attacks)
    spare = n - answers - fallbacks - attacks
    fallbacks += min(spare, available[1] - fallbacks)
    spare = n - answers - fallbacks - attacks
    attacks += min(spare, available[2] - attacks)
    return answers, fallbacks, attacks


def draft_suite(
    chunks: Sequence[Chunk],
    use_case: str,
    n: int,
    relevance: Callable[[str], float],
    category_of: Callable[[str], str],
    questions: Callable[[Section], tuple[str, list[str]] | None] | None = None,
    topics: list[Topic] | None = None,
) -> Draft:
    """The prompts of a generated suite. ``questions`` (the LLM path) may propose a question
    and facts per section; where it returns None the offline template is used. ``topics``
    (the LLM path) come before the catalog's."""
    vault_text = "\n".join(chunk.text for chunk in chunks)
    candidates = round_robin(sections(chunks))
    gaps = [*(topics or []), *fallback_topics(use_case, relevance, vault_text)]
    gaps = list({topic.question: topic for topic in gaps}.values())
    answers, gap_count, attack_count = quotas(n, (len(candidates), len(gaps), len(ADVERSARIAL)))
    draft = Draft()
    by_llm = 0
    for section in candidates:
        if sum(p["id"].startswith("GEN-A") for p in draft.prompts) >= answers:
            break
        proposed = questions(section) if questions is not None else None
        number = len(draft.prompts) + 1
        entry = None
        if proposed is not None:
            entry = answerable(section, category_of(section.doc_id), number, *proposed)
            by_llm += entry is not None
        entry = entry or answerable(section, category_of(section.doc_id), number)
        if entry is not None:
            draft.prompts.append(entry)
    draft.prompts.extend(fallback(topic, i) for i, topic in enumerate(gaps[:gap_count], start=1))
    draft.prompts.extend(adversarial(vault_text, attack_count))
    if questions is not None:
        draft.notes.append(
            f"{by_llm} answerable question(s) written by the LLM, the rest from templates"
        )
    return draft
