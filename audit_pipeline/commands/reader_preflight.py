"""The reader folder (``detection.reader``) checked before an audit starts.

A reader is only loaded when the first uncertain claim reaches it, after the target answered
and the claims were written; a wrong folder then failed the audit half-way, in words such as
``SafetensorError: header too large`` that name no file, or with transformers asking
``[y/N]`` on stdout whether to run code that came with the weights. Everything that can be
known without loading the weights is checked here instead, each problem one line naming the
file: the folder and its config.json (which must parse, name a model type transformers knows
and ask for no code of its own), the tokenizer, the label names (``reader.py``'s own rules)
and every weight file's header (safetensors) or archive directory (PyTorch), read without the
tensors, so a multi-GB model costs milliseconds.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from audit_pipeline.commands.usage_error import UsageError

_CODE_KEYS = ("auto_map",)  # what asks transformers to import code shipped with a model


def _json(file: Path) -> dict[str, Any]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise UsageError(
            f"{file} is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{file} cannot be read: {error}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{file} holds a JSON {type(data).__name__}, not an object")
    return data


def _no_custom_code(file: Path, data: dict[str, Any]) -> None:
    for key in _CODE_KEYS:
        if data.get(key):
            raise UsageError(
                f"{file} asks for the model's own code ({key}: {json.dumps(data[key])[:120]}); "
                "the reader never runs code that came with the weights (trust_remote_code): "
                "choose a model transformers supports itself"
            )


def _check_weights(path: Path) -> None:
    from safetensors import safe_open

    from audit_pipeline.verification.reader import weight_files

    for file in weight_files(path):
        if file.name.endswith(".index.json"):
            shards = set(_json(file).get("weight_map", {}).values())
            missing = sorted(name for name in shards if not (path / name).is_file())
            if missing:
                raise UsageError(f"{file} names weight shards that are missing: {missing[:5]}")
        elif file.suffix == ".safetensors":
            try:
                with safe_open(str(file), "np"):  # reads the header, checks it against the size
                    pass
            except Exception as error:  # safetensors' Rust error type is not importable
                raise UsageError(
                    f"{file} is not a readable safetensors file ({error}): download it again"
                ) from None
        elif not zipfile.is_zipfile(file):
            raise UsageError(
                f"{file} is not a readable PyTorch weights file (no archive directory: cut "
                "short or damaged): download it again"
            )


def _check_tokenizer(path: Path) -> None:
    from transformers import AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    try:
        AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=False)
    except Exception as error:  # transformers raises OSError, ValueError, KeyError, ...
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise UsageError(
            f"{path}: the tokenizer does not load ({first or type(error).__name__}); the folder "
            "needs the tokenizer files of the model's download"
        ) from None


def check_reader(config: Any) -> None:
    """``UsageError`` naming the file when the configured reader folder cannot serve."""
    settings = config.reader_settings
    if settings is None:
        return
    from transformers import CONFIG_MAPPING

    from audit_pipeline.verification.reader import ReaderError, build_reader

    path = settings.path.resolve()
    if not path.is_dir():
        raise UsageError(
            f"detection.reader.path {path} does not exist or is not a folder: download the "
            "model there first (huggingface-cli download <model id> --local-dir <folder>)"
        )
    config_file = path / "config.json"
    if not config_file.is_file():
        raise UsageError(
            f"{config_file} is missing: point detection.reader.path at the folder that holds "
            "the model's config.json, tokenizer and weights"
        )
    model_config = _json(config_file)
    _no_custom_code(config_file, model_config)
    tokenizer_config = path / "tokenizer_config.json"
    if tokenizer_config.is_file():
        _no_custom_code(tokenizer_config, _json(tokenizer_config))
    model_type = model_config.get("model_type")
    if model_type not in CONFIG_MAPPING:
        raise UsageError(
            f"{config_file}: model_type {model_type!r} is not one this transformers knows, "
            "and the reader runs no code of the model's own"
        )
    try:
        build_reader(settings)  # architecture fits the kind, weights present, labels named
    except ReaderError as error:
        raise UsageError(str(error)) from None
    _check_weights(path)
    _check_tokenizer(path)
