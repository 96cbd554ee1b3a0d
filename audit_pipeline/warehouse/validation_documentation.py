"""Column documentation of the answer-validation table (migration 10), kept beside it."""

VALIDATION_DOCUMENTATION: dict[str, str] = {
    "TABLE response_validations": "Self-RAG checks per answer: relevance of the sources, "
    "support from the claim verdicts, usefulness, the confidence with seed 003's weights and "
    "the accept / retry / reject recommendation; plus the citation class. Batch audits and "
    "interactive validations (target 'interactive') alike.",
    "COLUMN response_validations.query_type": "factual (weights 0.3/0.4/0.3) or "
    "conversational (0.2/0.3/0.5), detected from the question.",
    "COLUMN response_validations.isrel": "Some source is relevant to the question "
    "(relevance >= validation.relevant_score).",
    "COLUMN response_validations.relevance": "0-1 relevance of the best source to the question.",
    "COLUMN response_validations.grounding_relevance": "0-1 relevance of the best source the "
    "answer's supported claims rest on; the relevance term of the confidence.",
    "COLUMN response_validations.issup": "full, partial or none, from the claim verdicts.",
    "COLUMN response_validations.support": "Mean support of the verifiable claims (supported "
    "1, weakly supported 0.5, unsupported or contradicted 0).",
    "COLUMN response_validations.isuse": "The answer usefully addresses the question "
    "(usefulness >= validation.useful_score).",
    "COLUMN response_validations.addresses": "0-1: does the answer address the question at all.",
    "COLUMN response_validations.usefulness": "addresses x support: only the grounded part of "
    "an answer is useful.",
    "COLUMN response_validations.confidence": "Weighted sum of grounding_relevance, support "
    "and usefulness, 0-1.",
    "COLUMN response_validations.recommendation": "accept (confidence >= accept_confidence and "
    "no hallucinated claim), reject (below reject_confidence) or retry.",
    "COLUMN response_validations.citation_class": "fully_cited, partially_cited or uncited: "
    "claims carrying a citation whose document supports them; NULL without factual claims.",
    "COLUMN response_validations.method": "offline (embeddings) or llm:<model> for the "
    "relevance and usefulness critiques.",
}
