"""Falsehoods about the sample vault never pass; faithful restatements do (issue 22).

Each claim goes the product's way: the evidence stage (vault search, logged context, exact
look-ups of names) and the local verifier over one answer. The falsehoods are the ones a new
user saw pass as supported or weakly supported; the paraphrases restate the vault's facts in
other words and other units.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from audit_pipeline.claims.claim import make_claim
from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.evidence.claim_evidence import gather_evidence
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.records.claims import AnsweredTurn, AuditClaim
from audit_pipeline.records.verdicts import HALLUCINATION_LABELS, Label, Verdict
from audit_pipeline.verification import VerifierChain
from audit_pipeline.verification.audit_verdicts import verify_claims
from audit_pipeline.verification.configured import local_chain


@pytest.fixture(scope="module")
def retriever(sample_index_dir: Path, embedder: SentenceTransformerEmbedder) -> HybridRetriever:
    return HybridRetriever(VaultIndex(sample_index_dir, embedder))


@pytest.fixture(scope="module")
def verifier(embedder: SentenceTransformerEmbedder) -> VerifierChain:
    return local_chain(embedder)


def verdicts(
    texts: Sequence[str],
    retriever: HybridRetriever,
    verifier: VerifierChain,
    context: tuple[str, ...] | None = None,
) -> list[Verdict]:
    """The verdicts of one answer made of ``texts``, answered from ``context`` if given."""
    claims = [
        AuditClaim(f"c{i}", "P-1", 0, make_claim(text, 0, len(text), "sentence"), "sentences")
        for i, text in enumerate(texts)
    ]
    turns = [AnsweredTurn("P-1", 0, " ".join(texts), context)]
    evidence = gather_evidence(claims, turns, retriever, verifier.embedder, top_k=5)
    return verify_claims(claims, evidence, verifier)


FALSEHOODS = [
    # (claim, label, the words its error span must cover)
    ("I do not enforce multi-factor authentication.", Label.CONTRADICTED, ""),
    ("Key encryption keys are rotated quarterly, every 90 days.", Label.CONTRADICTED, "quarterly"),
    (
        "Access logs are kept for 90 days and then deleted from the Okta archive in Frankfurt.",
        Label.UNSUPPORTED,
        "Okta",
    ),
    (
        "Our SOC 2 Type II report was issued by Deloitte on 29 May 2026.",
        Label.CONTRADICTED,
        "Deloitte",
    ),
    (
        "A lost laptop must be reported to the Security team within 3 days.",
        Label.CONTRADICTED,
        "3 days",
    ),
    (
        "Authentication events are logged centrally and retained for 90 days.",
        Label.CONTRADICTED,
        "90 days",
    ),
    ("The Ledger module's RPO is 4 hours.", Label.CONTRADICTED, "4 hours"),
]


@pytest.mark.parametrize(("claim", "label", "span"), FALSEHOODS)
def test_a_falsehood_about_the_vault_is_caught(
    claim: str, label: Label, span: str, retriever: HybridRetriever, verifier: VerifierChain
) -> None:
    (verdict,) = verdicts([claim], retriever, verifier)
    assert verdict.label is label, verdict.justification
    # One meaning of probability: p(supported), on the side of the label.
    assert verdict.probability < 0.5
    # The provenance leads with what decided it, never with "supports".
    assert verdict.justification.startswith(label.value.capitalize()), verdict.justification
    if span:
        pointed = [claim[s:e] for s, e in verdict.error_spans]
        assert any(span in text for text in pointed), (pointed, verdict.justification)


PARAPHRASES = [
    "Multi-factor authentication is required for all workforce access.",
    "Key encryption keys are rotated automatically once a year.",
    "Key encryption keys are rotated annually.",
    "Authentication events are retained for 13 months.",
    "Our SOC 2 Type II report was issued by Harrow & Vale LLP on 29 May 2026.",
    # The vault states this period twice (table and FAQ) and the bridge letter's next to it.
    "It covers the twelve-month audit period from 1 April 2025 through 31 March 2026.",
    "A lost laptop must be reported to the Security team within 60 minutes.",
    "The Ledger module's RPO is 1 hour.",
    "The Ledger module's recovery time objective is 4 hours.",
]


@pytest.mark.parametrize("claim", PARAPHRASES)
def test_a_faithful_restatement_is_supported(
    claim: str, retriever: HybridRetriever, verifier: VerifierChain
) -> None:
    (verdict,) = verdicts([claim], retriever, verifier)
    assert verdict.label is Label.SUPPORTED, verdict.justification
    assert verdict.probability >= 0.75


def test_true_claims_a_partial_logged_context_lacks_are_not_contradicted(
    retriever: HybridRetriever, verifier: VerifierChain
) -> None:
    """The recorded answers' context holds part of what the vault says; the rest is looked up
    in the vault, so a true claim the context lacks is not a contradiction."""
    context = (
        "require **TLS 1.2 or higher**; **TLS 1.3 is preferred**",
        "We respond **within 30 days** of receiving a verified request.",
    )
    found = verdicts(
        [
            "TLS 1.0 and 1.1 are disabled.",
            "Tallyhawk acknowledges requests within 5 business days.",
        ],
        retriever,
        verifier,
        context,
    )
    assert [v.label for v in found] == [Label.SUPPORTED, Label.SUPPORTED], [
        v.justification for v in found
    ]


def test_a_fabricated_name_is_unsupported_when_the_vault_never_states_it(
    retriever: HybridRetriever, verifier: VerifierChain
) -> None:
    (verdict,) = verdicts(
        ["Access logs are shipped to Okta for long-term storage."], retriever, verifier
    )
    assert verdict.label in HALLUCINATION_LABELS
    assert verdict.decided_by == "specifics"
    assert "Okta" in verdict.justification


HIDDEN = ["\u200b", "\u00ad", "\u2060", "\u202e"]


@pytest.mark.parametrize("hidden", HIDDEN)
def test_an_invisible_character_inside_a_falsehood_changes_nothing(
    hidden: str, retriever: HybridRetriever, verifier: VerifierChain
) -> None:
    """A zero-width space, a soft hyphen, a word joiner or a bidi override inside a word: the
    falsehood is caught as the clean sentence is, and its error span points into the words as
    the bot wrote them."""
    claim = f"Key encryption keys are rotated quar{hidden}terly."
    (verdict,) = verdicts([claim], retriever, verifier)
    assert (verdict.label, verdict.decided_by) == (Label.CONTRADICTED, "specifics")
    pointed = [claim[s:e] for s, e in verdict.error_spans]
    assert f"quar{hidden}terly" in pointed, pointed
