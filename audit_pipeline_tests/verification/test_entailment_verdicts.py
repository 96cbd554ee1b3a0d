"""The local verifier reads: minimal edits flip the verdict, faithful rewrites keep it.

These are the cases a reviewer tries first (issue 11): a changed number next to a section
number that contains the old one, an inserted "not", a swapped city, a changed duration, and
a faithful paraphrase. They run through the shipped model, offline.
"""

from __future__ import annotations

import pytest

from audit_pipeline.claims import SentenceClaimExtractor
from audit_pipeline.claims.claim import make_claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import Label, Verdict
from audit_pipeline.verification import VerifierChain, verify_answer

FLAGGED = {Label.UNSUPPORTED, Label.CONTRADICTED}


def _passage(text: str) -> EvidencePassage:
    return EvidencePassage(
        chunk_id="doc.md#0",
        text=text,
        document="doc.md",
        section="",
        vector_score=0.8,
        bm25_score=1.0,
        fused_score=0.5,
        source="vault",
    )


def _verify(verifier: VerifierChain, claim: str, evidence: str) -> Verdict:
    """The claim read on its own (``claim_reader``)."""
    claims = [make_claim(claim, 0, len(claim), "sentence")]
    return verify_answer(verifier, claims, [[_passage(evidence)]]).verdicts[0]


_assess = _verify  # with ``local_verifier``: the answer-level path the pipeline uses


BRAKES = (
    "### Para 9-2 Brake pads — Inspect the pads at every service. Replace the brake pads when "
    "the friction material is thinner than 3 mm."
)
REVIEWS = "Access reviews are performed quarterly by the security team."
FOUNDED = "The company was founded in Berlin in 2010. It employs 300 people."
WARRANTY = (
    "The pump is covered for 24 months or 2,000 operating hours, whichever comes first. "
    "Wear parts are excluded."
)

EDITED = [
    ("Replace the brake pads when the friction material is thinner than 2 mm.", BRAKES),
    ("Access reviews are not performed.", REVIEWS),
    ("The company was founded in Paris.", FOUNDED),
    ("The warranty covers 36 months.", WARRANTY),
]
FAITHFUL = [
    ("Brake pads are replaced once the friction material is under 3 mm thick.", BRAKES),
    ("The security team performs access reviews every quarter.", REVIEWS),
    ("The company was founded in Berlin.", FOUNDED),
    ("The pump is covered for 24 months.", WARRANTY),
]


@pytest.mark.parametrize(("claim", "evidence"), EDITED)
def test_minimal_edits_are_flagged(claim_reader: VerifierChain, claim: str, evidence: str):
    verdict = _verify(claim_reader, claim, evidence)
    assert verdict.label in FLAGGED, verdict.justification


@pytest.mark.parametrize(("claim", "evidence"), EDITED[:2])
def test_hard_edits_stay_flagged_in_an_answer_judged_grounded(
    local_verifier: VerifierChain, claim: str, evidence: str
):
    """A checked number and a clear contradiction of a copied sentence are not softened by
    the answer-level model (the path the pipeline takes)."""
    verdict = _assess(local_verifier, claim, evidence)
    assert verdict.label is Label.CONTRADICTED, verdict.justification


@pytest.mark.parametrize(("claim", "evidence"), FAITHFUL)
def test_faithful_rewrites_are_supported(claim_reader: VerifierChain, claim: str, evidence: str):
    verdict = _verify(claim_reader, claim, evidence)
    assert verdict.label in {Label.SUPPORTED, Label.WEAKLY_SUPPORTED}, verdict.justification


def test_changed_duration_is_contradicted(claim_reader: VerifierChain):
    verdict = _verify(claim_reader, "The warranty covers 36 months.", WARRANTY)
    assert verdict.label is Label.CONTRADICTED, verdict.justification


def test_justification_reports_the_entailment_reading(claim_reader: VerifierChain):
    verdict = _verify(claim_reader, "Access reviews are not performed.", REVIEWS)
    assert "entailment model: entailed" in verdict.justification


def test_a_refusal_is_not_a_claim():
    assert SentenceClaimExtractor().extract("I can't share that.") == []


def test_flagged_claim_points_at_the_changed_number(claim_reader: VerifierChain):
    claim = "The warranty covers 36 months."
    verdict = _verify(claim_reader, claim, WARRANTY)
    assert [claim[s:e] for s, e in verdict.error_spans] == ["36 months"]


def test_supported_claim_points_at_nothing(claim_reader: VerifierChain):
    assert _verify(claim_reader, "The pump is covered for 24 months.", WARRANTY).error_spans == ()


APPROVAL = (
    "Applications that cannot integrate with SSO require a documented exception approved by "
    "the CISO. Exceptions are reviewed every quarter."
)


@pytest.mark.parametrize(
    ("claim", "changed"),
    [
        (
            "Applications that cannot integrate with SSO require a documented exception rejected "
            "by the CISO.",
            "rejected",
        ),
        (
            "Applications that can integrate with SSO require a documented exception approved by "
            "the CISO.",
            "can",
        ),
    ],
)
def test_a_close_rewrite_that_swaps_a_word_is_contradicted_where_it_changed(
    local_verifier: VerifierChain, claim: str, changed: str
):
    """On the pipeline's answer-level path too, and the error span is the swapped word."""
    verdict = _assess(local_verifier, claim, APPROVAL)
    assert verdict.label is Label.CONTRADICTED, verdict.justification
    assert changed in [claim[s:e] for s, e in verdict.error_spans]
    assert "changes" in verdict.justification


def test_a_close_rewrite_that_adds_a_name_is_unsupported(local_verifier: VerifierChain):
    claim = (
        "Applications that cannot integrate with SSO require a documented exception approved by "
        "the CISO, following complaints from John Carter."
    )
    verdict = _assess(local_verifier, claim, APPROVAL)
    assert verdict.label is Label.UNSUPPORTED, verdict.justification
    assert any("John Carter" in claim[s:e] for s, e in verdict.error_spans)


# The vault bot's extractive fallback answers with a chunk word for word; checked against that
# chunk, the entailment model read a table row and a list item of it as contradictions (0.94
# and 0.98) and the audit reported them as such.
RIGHTS = """## 6. How to Exercise Your Rights and Response Times

Send requests to the Data Protection Officer at **privacy@tallyhawk.example** or through the \
privacy request form on our website.

- We acknowledge requests within **5 business days**.
- We respond **within 30 days** of receiving a verified request.
- Where a request is complex or we receive many requests, we may extend this by up to **60 \
further days**. We will tell you about any extension, and the reason, within the first 30 days.
- We verify your identity before acting on a request, normally by confirming control of the \
email address linked to your account.
- CCPA requests are answered within 45 days.
- Requests are free of charge unless they are manifestly unfounded or excessive.

If your request concerns Customer Data that a customer controls, we forward it to that customer \
within **5 business days** and assist them in responding, as required by the DPA."""
ALGORITHMS = """## 4. Approved Algorithms and Key Lengths

| Use | Approved algorithm | Minimum key length or parameter |
|---|---|---|
| Symmetric encryption | AES-GCM | 256-bit keys (AES-256-GCM) |
| Asymmetric encryption and signatures | RSA | **3072 bits** |
| Elliptic-curve signatures and key exchange | ECDSA / ECDHE | **P-256** curve or stronger |
| Hashing | SHA-2 family | SHA-256 or stronger |
| Message authentication | HMAC | HMAC-SHA-256 |
| Password storage | Argon2id | 64 MiB memory, 3 iterations, 16-byte random salt |

- Public TLS certificates and session-token signing use **ECDSA P-256** keys.
- SAML assertion signing and any other RSA use require **RSA keys of at least 3072 bits**.
- Webhook payloads are signed with HMAC-SHA-256 using a per-endpoint signing secret that \
customers can regenerate at any time in the admin console.
- **Prohibited:** DES, 3DES, RC4, MD5 and SHA-1 for any security purpose, RSA keys shorter \
than 3072 bits for new keys, and ECB mode for any block cipher."""


@pytest.mark.parametrize("chunk", [RIGHTS, ALGORITHMS])
def test_an_answer_quoting_its_evidence_word_for_word_has_no_flagged_claim(
    local_verifier: VerifierChain, chunk: str
) -> None:
    claims = SentenceClaimExtractor().extract(chunk)
    verdicts = verify_answer(local_verifier, claims, [[_passage(chunk)]] * len(claims)).verdicts
    flagged = [
        (c.text, v.justification)
        for c, v in zip(claims, verdicts, strict=True)
        if v.label in FLAGGED
    ]
    assert flagged == []


CONDITIONS = [
    (
        "Opened jars may be returned only if they are unused.",
        "Opened jars are not returned, unless they are unused.",
    ),
    (
        "Visitors can enter the lab only with a member of staff.",
        "Visitors do not enter the lab unless a member of staff is with them.",
    ),
]


@pytest.mark.parametrize(("claim", "evidence"), CONDITIONS)
def test_a_condition_in_its_other_form_is_no_contradiction(
    claim_reader: VerifierChain, claim: str, evidence: str
) -> None:
    """ "only if X, P" says "not P unless X"; the entailment model reads the pair as a
    contradiction, so the entailment check leaves it to the rest of the chain."""
    verdict = _verify(claim_reader, claim, evidence)
    assert verdict.decided_by != "entailment", verdict.justification
    assert verdict.label is not Label.CONTRADICTED, verdict.justification
