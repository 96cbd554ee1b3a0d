"""What an audit is about to ask, said before it asks: the turn count, the target and how long
answering should take.

The first audit of the reference bot answers 65 turns with a local model: minutes on a laptop
CPU, and nothing on the screen said so up front. The CLI prints this line before the audit
starts and the ``responses`` step logs it (the UI's run log), from the same function.
"""

from __future__ import annotations

import math

from audit_pipeline.targets.target_config import (
    ReplayTargetConfig,
    TargetConfig,
    VaultBotTargetConfig,
)

# The reference bot's pace on the sample suite: 65 turns in 178 s on 2 idle cores, 24 questions
# per model call (docs/benchmarks.md). A busy machine is slower: the issue that asked for this
# line saw 3 to 9 minutes on 2 shared cores.
VAULT_BOT_S_PER_TURN = 178 / 65
MEASURED_ON = "2 idle cores"


def expected_time(target: TargetConfig, turns: int) -> str:
    """How long answering ``turns`` turns should take, in words."""
    if isinstance(target, ReplayTargetConfig):
        return "recorded answers, no calls: seconds"
    if isinstance(target, VaultBotTargetConfig):
        minutes = turns * VAULT_BOT_S_PER_TURN / 60
        pace = "under a minute" if minutes < 1 else f"about {math.ceil(minutes)} min"
        return f"a local model answers: {pace} on {MEASURED_ON}, longer on a busy machine"
    return (
        f"one call per turn, {target.concurrency} at once, up to {target.timeout_s:g} s each: "
        "as fast as the service answers"
    )


def answering_line(target_name: str, target: TargetConfig, turns: int, use_cache: bool) -> str:
    """``answering 65 turns with target vault_bot (vault_bot; a local model answers: ...)``."""
    cached = (
        "; answers in the response cache come back at once"
        if use_cache and not isinstance(target, ReplayTargetConfig)
        else ""
    )
    return (
        f"answering {turns} turn{'s' if turns != 1 else ''} with target {target_name} "
        f"({target.type}; {expected_time(target, turns)}{cached})"
    )
