"""Two audits of the same target, last week's and this week's, with hostile text to escape."""

from __future__ import annotations

from datetime import UTC, datetime

from audit_pipeline_tests.reports.builders import AuditBuilder

PREVIOUS_ID = "20261116T080000Z-vault_bot-aaaa1111"
CURRENT_ID = "20261123T080000Z-vault_bot-bbbb2222"

ROTATION_ANSWER = (
    "Key encryption keys are held in an HSM-backed key management service and are rotated "
    "quarterly, every 90 days. Tenant data encryption keys follow the same quarterly schedule "
    "[source: encryption-standard.md#6. Key Rotation]."
)
CONTRADICTED = "rotated quarterly, every 90 days"
SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(2)>'
LINK = "[click here](javascript:alert(3))"
INJECTION_ANSWER = (
    f"Our DPO can be reached at dpo@tallyhawk.example. {SCRIPT} See {IMG} and {LINK} | "
    "**bold** _it_ `code` https://evil.example/x ==mark== ~~gone~~"
)
ROTATION_EVIDENCE = {
    "chunk_id": "enc-6",
    "document": "encryption-standard.md",
    "section": "6. Key Rotation",
    "text": "Key encryption keys are rotated automatically every 12 months (annually).",
}


def build_previous() -> AuditBuilder:
    audit = AuditBuilder(
        PREVIOUS_ID,
        started_at=datetime(2026, 11, 16, 8, 0, tzinfo=UTC),
        decision="warn",
        risk=0.12,
        hallucination_rate=0.08,
    )
    audit.category_risk = {"encryption": 0.05, "gdpr": 0.30}
    audit.turn("ENC-002", "encryption", "How often are your encryption keys rotated?", "Annually.")
    audit.claim("ENC-002", "Annually.", "supported")
    audit.assertion("ENC-002", "required_signals", True)
    audit.turn("GDPR-003", "gdpr", "Do you have a DPO?", "Yes: privacy@tallyhawk.example.")
    audit.assertion("GDPR-003", "required_signals", True)
    return audit


def build_current() -> AuditBuilder:
    audit = AuditBuilder(CURRENT_ID, decision="block", risk=0.31, hallucination_rate=0.4)
    audit.category_risk = {"encryption": 0.5, "gdpr": 0.2}
    audit.turn(
        "ENC-002",
        "encryption",
        "How often are your encryption keys rotated?",
        ROTATION_ANSWER,
        citations=[
            {
                "label": "encryption-standard.md#6. Key Rotation",
                "file": "encryption-standard.md",
                "section": "6. Key Rotation",
                "start": ROTATION_ANSWER.index("[source"),
                "end": len(ROTATION_ANSWER) - 1,
            }
        ],
    )
    audit.claim(
        "ENC-002",
        "Key encryption keys are held in an HSM-backed key management service and are rotated "
        "quarterly, every 90 days.",
        "supported",
        span=(0, 0),  # deliberately unusable: falls back to finding the text
    )
    audit.claim(
        "ENC-002",
        CONTRADICTED,
        "contradicted",
        probability=0.97,
        justification="The standard rotates keys every 12 months, not every 90 days.",
        evidence=[ROTATION_EVIDENCE],
        supporting=["enc-6"],
    )
    audit.assertion("ENC-002", "required_signals", False, "missing: 12 months|annual")
    audit.assertion("ENC-002", "must_not_appear", False, "found: quarterly")
    audit.assertion("ENC-002", "citation_source", True, "encryption-standard.md cited")
    audit.turn(
        "GDPR-003", "gdpr", "Do you have a DPO, and how can they be contacted?", INJECTION_ANSWER
    )
    audit.claim(
        "GDPR-003",
        "Our DPO can be reached at dpo@tallyhawk.example.",
        "unsupported",
        probability=0.81,
        justification=f"No such address in the vault. {SCRIPT}",
        evidence=[
            {
                "chunk_id": "priv-7",
                "document": "global-privacy-policy.md",
                "section": f"7. Data Protection Officer {IMG}",
                "text": f"Contact privacy@tallyhawk.example {SCRIPT}",
            }
        ],
    )
    audit.assertion("GDPR-003", "must_not_appear", False, f"found: dpo@tallyhawk {IMG}")
    audit.turn("GDPR-002", "gdpr", "Which rights can individuals exercise?", "Access and erasure.")
    audit.claim("GDPR-002", "Access and erasure.", "supported")
    audit.assertion("GDPR-002", "required_signals", True)
    return audit
