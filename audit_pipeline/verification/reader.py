"""A reader from a local folder: a model the user downloaded that reads a claim against its
evidence (``detection.reader`` in audit.yaml).

The packaged entailment model (``entailment.py``) is small and was trained on this project's
data; meaning-level changes (a reversed direction, a dropped condition, an added clause) need a
stronger reader, and the strongest public ones are too large to ship. So the user downloads one
(``huggingface-cli download <id> --local-dir DIR``) and points the config at the folder. Two
kinds fit, both loaded with ``local_files_only=True`` and never with ``trust_remote_code``, so an
audit neither reaches the network nor runs code that came with the weights:

- ``nli``: any sequence-classification NLI model (a cross-encoder over evidence and claim). The
  label names come from the folder's ``config.json`` (``id2label``), so a model whose labels are
  ordered contradiction / entailment / neutral reads the same as one ordered the other way, and a
  model whose labels cannot be named is refused rather than read with a guessed order.
- ``token``: a token-classification hallucination detector in LettuceDetect's format: the
  context is wrapped in LettuceDetect's prompt, the claim is the answer segment, and each answer
  token gets a probability of being hallucinated (label 1). A claim is as unsupported as its
  worst token.

A reader's ``version`` is a digest of the folder (config and weights), so replacing the model
changes the verifier identity and no verdict read by the old one is carried over.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from audit_pipeline.text import wordlists
from audit_pipeline.verification.pair_scores import PairScores

ReaderKind = Literal["nli", "token"]

# Weight files transformers loads for PyTorch (single files and the shards of sharded ones).
_WEIGHT_PATTERNS = ("*.safetensors", "pytorch_model*.bin", "*.safetensors.index.json")
_ARCHITECTURE_SUFFIX: dict[str, str] = {
    "nli": "ForSequenceClassification",
    "token": "ForTokenClassification",
}
# Bytes of each weight file that enter the version digest: the head (a safetensors header names
# every tensor, its dtype and offsets) and the tail (the task head, which fine-tuning always
# changes). Hashing whole multi-GB files would cost seconds on every start.
_SAMPLE_BYTES = 1 << 20

# Label names, normalised (lower case, '_' for spaces and dashes), by what they say about the
# claim. A negative label of a two-way model ("not_entailment", "unsupported", "hallucinated")
# means "not entailed", which is not a contradiction: it counts as neutral. The lists are files
# in ``verification/words/`` (``*_labels.txt``).
_ENTAILED = wordlists.words("verification", "entailed_labels")
_CONTRADICTED = wordlists.words("verification", "contradicted_labels")
_NEUTRAL = wordlists.words("verification", "neutral_labels")
_HALLUCINATED = wordlists.words("verification", "hallucinated_labels")
_SUPPORTED = wordlists.words("verification", "supported_labels")

# LettuceDetect's prompt for a context without a question (its summary template, English, with
# the passages numbered); the claim follows as the second segment of the pair.
_LETTUCE_PROMPT = "Summarize the following text:\npassage 1: {context}\noutput:"


class ReaderError(ValueError):
    """The reader folder cannot be used; the message names the folder and what is wrong."""


class ReaderSettings(BaseModel):
    """``detection.reader``: which kind of model, where its downloaded folder is, and how it
    reads. A relative ``path`` is relative to audit.yaml (``AuditConfig.reader_settings``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ReaderKind
    path: Path
    batch_size: int = Field(default=16, ge=1)
    # Tokens per (evidence, claim) input; capped by what the model itself accepts. Evidence
    # beyond it is cut, the claim never (LettuceDetect models accept 4096 and 8192).
    max_length: int = Field(default=512, ge=16)


@dataclass(frozen=True)
class ReaderScores:
    """Per pair: probability that the evidence entails the claim, and that it contradicts it."""

    entailed: np.ndarray
    contradicted: np.ndarray


@runtime_checkable
class Reader(Protocol):
    """Reads (evidence text, claim text) pairs; an empty evidence text scores 0 and 0."""

    name: str
    version: str

    def read(self, pairs: Sequence[tuple[str, str]]) -> ReaderScores: ...


def build_reader(settings: ReaderSettings | None) -> Reader | None:
    """The configured reader (None when ``detection.reader`` is not set).

    The folder is checked now (it exists, holds config.json and weights, its architecture fits
    the kind, its labels can be named), so a wrong setting fails before an audit starts; the
    weights load on the first ``read``, once per process for each folder and settings.
    """
    if settings is None:
        return None
    return _reader(settings.kind, settings.path.resolve(), settings.batch_size, settings.max_length)


@lru_cache(maxsize=8)
def _reader(kind: ReaderKind, path: Path, batch_size: int, max_length: int) -> Reader:
    config = _folder_config(kind, path)
    if kind == "nli":
        return NLIReader(path, config, batch_size, max_length)
    return TokenReader(path, config, batch_size, max_length)


def _folder_config(kind: ReaderKind, path: Path) -> dict[str, Any]:
    """The folder's config.json, after checking the folder can serve as a ``kind`` reader."""
    if not path.is_dir():
        raise ReaderError(
            f"detection.reader.path {path} does not exist or is not a folder: download the model "
            "there first (huggingface-cli download <model id> --local-dir <folder>)"
        )
    config_file = path / "config.json"
    if not config_file.is_file():
        raise ReaderError(
            f"{path} has no config.json: point detection.reader.path at the folder that holds "
            "the model's config.json, tokenizer and weights"
        )
    try:
        config: dict[str, Any] = json.loads(config_file.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise ReaderError(f"{config_file} is not valid JSON: {error}") from None
    if not weight_files(path):
        raise ReaderError(
            f"{path} has no weights (model.safetensors or pytorch_model.bin, or their shards): "
            "the download is incomplete"
        )
    suffix = _ARCHITECTURE_SUFFIX[kind]
    architectures = [str(name) for name in config.get("architectures") or []]
    if architectures and not any(name.endswith(suffix) for name in architectures):
        other = "token" if kind == "nli" else "nli"
        hint = (
            f" (it fits kind: {other})"
            if any(name.endswith(_ARCHITECTURE_SUFFIX[other]) for name in architectures)
            else ""
        )
        raise ReaderError(
            f"{path} holds a {', '.join(architectures)}; kind: {kind} needs a model whose "
            f"architecture ends in {suffix}{hint}"
        )
    return config


def weight_files(path: Path) -> list[Path]:
    """The folder's weight files (single files, shards and shard indexes)."""
    return sorted({file for pattern in _WEIGHT_PATTERNS for file in path.glob(pattern)})


def folder_version(path: Path) -> str:
    """A short digest of what the reader reads with: config.json, and each weight file's name,
    size and first and last MiB. Stable across copies of the same download; a retrained or
    replaced model gives another."""
    digest = hashlib.sha256((path / "config.json").read_bytes())
    for file in weight_files(path):
        size = file.stat().st_size
        digest.update(f"\0{file.name}\0{size}\0".encode())
        with file.open("rb") as handle:
            digest.update(handle.read(_SAMPLE_BYTES))
            if size > 2 * _SAMPLE_BYTES:
                handle.seek(size - _SAMPLE_BYTES)
            digest.update(handle.read(_SAMPLE_BYTES))
    return digest.hexdigest()[:12]


def _labels(config: dict[str, Any]) -> dict[int, str]:
    """id2label as transformers reads it: a config.json without one (transformers 5 leaves the
    default out) has ``num_labels`` (default 2) labels named ``LABEL_<i>``."""
    raw = config.get("id2label")
    if not raw:
        return {index: f"LABEL_{index}" for index in range(int(config.get("num_labels", 2)))}
    return {int(index): str(label) for index, label in raw.items()}


def _normalise(label: str) -> str:
    return label.strip().lower().replace("-", "_").replace(" ", "_")


def nli_label_columns(id2label: dict[int, str], folder: Path) -> tuple[list[int], list[int]]:
    """The output columns that mean entailed and those that mean contradicted.

    Every label must be named (entailment / neutral / contradiction, their common variants, or a
    two-way faithful-vs-hallucinated set); otherwise the model is refused with the labels it has,
    because reading a column by position would silently swap verdicts.
    """
    entailed: list[int] = []
    contradicted: list[int] = []
    unknown: list[str] = []
    for index, label in sorted(id2label.items()):
        name = _normalise(label)
        if name in _ENTAILED:
            entailed.append(index)
        elif name in _CONTRADICTED:
            contradicted.append(index)
        elif name not in _NEUTRAL:
            unknown.append(label)
    if unknown or not entailed or len(id2label) < 2:
        found = ", ".join(repr(id2label[i]) for i in sorted(id2label)) or "none"
        raise ReaderError(
            f"{folder}: cannot tell which output of this model means entailed from its labels "
            f"({found}); kind: nli needs id2label in config.json to name entailment / neutral / "
            "contradiction (or supported / unsupported, faithful / hallucinated). If the model "
            "card says which index is which, write those names into id2label"
        )
    return entailed, contradicted


def hallucinated_column(id2label: dict[int, str], folder: Path) -> int:
    """The output column that means "hallucinated" for a two-label token detector.

    Named labels (hallucinated / supported) are read by name; unnamed ones (``LABEL_0``,
    ``LABEL_1``, as LettuceDetect's models ship) follow LettuceDetect's convention, 1 =
    hallucinated.
    """
    found = ", ".join(repr(id2label[i]) for i in sorted(id2label)) or "none"
    if len(id2label) != 2:
        raise ReaderError(
            f"{folder}: kind: token needs a detector with two labels (supported, hallucinated); "
            f"this model has {found}"
        )
    names = {index: _normalise(label) for index, label in id2label.items()}
    if all(name in {f"label_{index}", str(index)} for index, name in names.items()):
        return 1
    hallucinated = [index for index, name in names.items() if name in _HALLUCINATED]
    supported = [index for index, name in names.items() if name in _SUPPORTED]
    if len(hallucinated) == 1 and len(supported) == 1:
        return hallucinated[0]
    raise ReaderError(
        f"{folder}: cannot tell which output of this token classifier means hallucinated from "
        f"its labels ({found}); name them supported / hallucinated in config.json's id2label"
    )


def answer_token_mask(sequence_ids: Sequence[int | None]) -> np.ndarray:
    """Which tokens of an encoded (context, answer) pair belong to the answer: the second
    segment, without special or padding tokens. Read from the tokenizer rather than counted, so
    it holds however the context was truncated."""
    return np.array([segment == 1 for segment in sequence_ids], dtype=bool)


def lettuce_prompt(context: str) -> str:
    """The context as LettuceDetect's detectors were trained to read it (no question)."""
    return _LETTUCE_PROMPT.format(context=context)


class _FolderReader:
    """What both kinds share: the lazy one-time load, and length-sorted batches with scores
    memoised by the exact texts (``PairScores``, as the packaged entailment model does)."""

    kind: ReaderKind

    def __init__(
        self, path: Path, config: dict[str, Any], batch_size: int, max_length: int
    ) -> None:
        self.path = path
        self.name = f"{self.kind}:{path.name}"
        self.version = folder_version(path)
        self.requested_length = max_length
        self.labels = _labels(config)
        self._loaded: tuple[Any, Any, Any, int] | None = None
        self._load_lock = threading.Lock()
        self._scores = PairScores(self._forward, batch_size)

    def read(self, pairs: Sequence[tuple[str, str]]) -> ReaderScores:
        entailed, contradicted = self._scores.score(pairs)
        return ReaderScores(entailed=entailed, contradicted=contradicted)

    def _forward(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float]]:
        raise NotImplementedError

    def _model_class(self) -> Any:
        raise NotImplementedError

    def _load(self) -> tuple[Any, Any, Any, int]:
        """(torch, tokenizer, model, max_length), loaded on first use, offline, in fp32."""
        with self._load_lock:
            if self._loaded is None:
                self._loaded = self._load_folder()
            return self._loaded

    def _load_folder(self) -> tuple[Any, Any, Any, int]:
        import torch
        from transformers import AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        try:
            # trust_remote_code=False, not left unset: unset, transformers asks "[y/N]" on
            # stdout (and waits) for a model that ships its own code.
            tokenizer = AutoTokenizer.from_pretrained(
                self.path, local_files_only=True, trust_remote_code=False
            )
            model = self._model_class().from_pretrained(
                self.path, dtype=torch.float32, local_files_only=True, trust_remote_code=False
            )
        except (OSError, ValueError, KeyError, RuntimeError) as error:
            custom = "auto_map" in json.loads((self.path / "config.json").read_text("utf-8"))
            why = (
                "it needs its own code (auto_map, trust_remote_code), which the reader does not run"
                if custom
                else str(error).splitlines()[0]
            )
            raise ReaderError(f"{self.path}: cannot load the {self.kind} reader: {why}") from None
        model.eval()
        limits = [self.requested_length]
        model_max = getattr(tokenizer, "model_max_length", None)
        if isinstance(model_max, int) and model_max < 1_000_000:
            limits.append(model_max)
        positions = getattr(model.config, "max_position_embeddings", None)
        if isinstance(positions, int):
            limits.append(positions)
        return torch, tokenizer, model, min(limits)

    def _encode(self, contexts: list[str], claims: list[str]) -> Any:
        """Tokenized (context, claim) pairs cut to the length limit from the context's end; a
        claim that alone would take more than half the limit is cut first (rare: claims are
        sentences), so some context always remains."""
        _, tokenizer, _, max_length = self._load()
        budget = max_length // 2
        fitted = []
        for claim in claims:
            ids = tokenizer(claim, add_special_tokens=False)["input_ids"]
            fitted.append(claim if len(ids) <= budget else tokenizer.decode(ids[:budget]))
        return tokenizer(
            contexts,
            fitted,
            truncation="only_first",
            max_length=max_length,
            padding=True,
            return_tensors="pt",
        )

    def _logits(self, encoded: Any) -> np.ndarray:
        torch, _, model, _ = self._load()
        accepted = _forward_arguments(model.forward)
        inputs = {key: value for key, value in encoded.items() if key in accepted}
        with torch.inference_mode():
            return np.asarray(torch.softmax(model(**inputs).logits.float(), dim=-1).numpy())


def _forward_arguments(forward: Callable[..., Any]) -> frozenset[str]:
    """The inputs a model accepts: a tokenizer may return token_type_ids that it has none of."""
    return frozenset(inspect.signature(forward).parameters)


class NLIReader(_FolderReader):
    """A sequence-classification NLI model: premise = evidence, hypothesis = claim; softmax
    over its labels, entailed and contradicted read from the columns its config names."""

    kind: ReaderKind = "nli"

    def __init__(
        self, path: Path, config: dict[str, Any], batch_size: int = 16, max_length: int = 512
    ) -> None:
        super().__init__(path, config, batch_size, max_length)
        self.entailed_columns, self.contradicted_columns = nli_label_columns(self.labels, path)

    def _model_class(self) -> Any:
        from transformers import AutoModelForSequenceClassification

        return AutoModelForSequenceClassification

    def _forward(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float]]:
        encoded = self._encode([e for e, _ in pairs], [c for _, c in pairs])
        probabilities = self._logits(encoded)
        entailed = probabilities[:, self.entailed_columns].sum(axis=1)
        contradicted = (
            probabilities[:, self.contradicted_columns].sum(axis=1)
            if self.contradicted_columns
            else np.zeros(len(pairs))
        )
        return [(float(e), float(c)) for e, c in zip(entailed, contradicted, strict=True)]


class TokenReader(_FolderReader):
    """A LettuceDetect-style token detector: (prompt with the evidence, claim) in, a
    hallucination probability per claim token out. entailed = 1 - the claim's highest token
    probability; it says nothing of contradiction (0)."""

    kind: ReaderKind = "token"

    def __init__(
        self, path: Path, config: dict[str, Any], batch_size: int = 16, max_length: int = 512
    ) -> None:
        super().__init__(path, config, batch_size, max_length)
        self.hallucinated_column = hallucinated_column(self.labels, path)

    def _model_class(self) -> Any:
        from transformers import AutoModelForTokenClassification

        return AutoModelForTokenClassification

    def _forward(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float]]:
        encoded = self._encode([lettuce_prompt(e) for e, _ in pairs], [c for _, c in pairs])
        hallucinated = self._logits(encoded)[..., self.hallucinated_column]
        scores = []
        for row in range(len(pairs)):
            mask = answer_token_mask(encoded.sequence_ids(row))
            worst = float(hallucinated[row][mask].max()) if mask.any() else 1.0
            scores.append((1.0 - worst, 0.0))
        return scores
