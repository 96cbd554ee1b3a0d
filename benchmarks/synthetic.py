"""Generated prompt suites for the throughput benchmarks: many distinct one-turn prompts."""

from __future__ import annotations

from audit_pipeline.suites import PromptSuite, SuitePrompt, SuiteTurn


def synthetic_suite(size: int, name: str, id_prefix: str, question: str) -> PromptSuite:
    """``size`` prompts over eight categories; ``question`` is formatted with ``index``.

    Every prompt text is distinct so no response can come from another prompt's cache entry.
    """
    prompts = tuple(
        SuitePrompt(
            id=f"{id_prefix}-{index:05d}",
            category=f"category-{index % 8}",
            turns=(SuiteTurn(prompt=question.format(index=index)),),
        )
        for index in range(size)
    )
    return PromptSuite(name=name, prompts=prompts)
