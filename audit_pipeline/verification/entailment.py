"""The entailment cross-encoder: reads a claim against its evidence window and says whether
the evidence entails it and whether it contradicts it.

Word overlap cannot tell "reviews are performed" from "reviews are not performed", or 2 mm
from 3 mm; a model that reads both texts together can. The weights ship inside the package
(``entailment/``, fp16, trained by ``python -m benchmarks.train_entailment``; see its
``manifest.json``), so nothing downloads at run time. Inference runs on CPU in fp32.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from audit_pipeline.verification.pair_scores import PairScores
from audit_pipeline.verification.windows import WINDOW_WORDS

DEFAULT_DIR = Path(__file__).with_name("entailment")


@dataclass(frozen=True)
class EntailmentScores:
    """Per pair: probability that the evidence entails the claim, and that it contradicts it."""

    entailed: np.ndarray
    contradicted: np.ndarray


class EntailmentModel:
    """Scores (evidence window, claim) pairs in length-sorted batches, memoising results
    (``pair_scores.PairScores``)."""

    def __init__(self, path: Path | str = DEFAULT_DIR, batch_size: int = 32) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
        from transformers.utils import logging as hf_logging

        path = Path(path)
        if not (path / "model.safetensors").is_file():
            raise FileNotFoundError(
                f"entailment model weights not found in {path}; "
                "reinstall the package or run `python -m benchmarks.train_entailment`"
            )
        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForSequenceClassification.from_pretrained(
            path, dtype=torch.float32
        ).eval()
        self._scores = PairScores(self._forward, batch_size)
        self.manifest: dict[str, Any] = json.loads((path / "manifest.json").read_text())
        self.name = str(self.manifest.get("name", path.name))
        # Read windows as the model was trained on them.
        self.max_length = int(self.manifest.get("max_length", 192))
        self.window_words = int(self.manifest.get("window_words", WINDOW_WORDS))

    @classmethod
    def shared(cls) -> EntailmentModel:
        """One loaded model per process (it is read-only and thread-safe for inference)."""
        return _shared_model()

    def score(self, pairs: Sequence[tuple[str, str]]) -> EntailmentScores:
        """``pairs`` are (evidence window, claim); an empty window scores as not entailed."""
        entailed, contradicted = self._scores.score(pairs)
        return EntailmentScores(entailed=entailed, contradicted=contradicted)

    def _forward(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float]]:
        torch = self._torch
        encoded = self.tokenizer(
            [window for window, _ in pairs],
            [claim for _, claim in pairs],
            truncation="longest_first",
            max_length=self.max_length,
            padding=True,
            return_tensors="pt",
        )
        with torch.inference_mode():
            probabilities = torch.sigmoid(self.model(**encoded).logits).numpy()
        return [(float(row[0]), float(row[1])) for row in probabilities]


def entailment_files(path: Path = DEFAULT_DIR) -> dict[str, str]:
    """Digests of the cross-encoder's weights and manifest (part of the verifier's identity:
    new weights, new verdicts)."""
    from audit_pipeline.verification.digests import file_digest

    return {f"entailment/{name}": file_digest(path / name) for name in _IDENTITY_FILES}


_IDENTITY_FILES = ("model.safetensors", "config.json", "manifest.json")


@lru_cache(maxsize=1)
def _shared_model() -> EntailmentModel:
    return EntailmentModel()
