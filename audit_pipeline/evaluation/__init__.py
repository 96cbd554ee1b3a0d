"""The evaluation harness: golden-set retrieval evaluation with a regression gate."""
