"""The stages a chain can name: this package's, and those other packages register.

A package adds a stage by naming its class under the entry-point group
``audit_pipeline.stages`` (in its ``pyproject.toml``, under
``[project.entry-points."audit_pipeline.stages"]``: ``my_check = "my_package.stages:MyCheck"``);
``detection.stages`` can then list ``my_check``.
Stages of this package that live above the verifier (the glossary, in ``terminology``) register
the same way, in this project's own ``pyproject.toml``.
"""

from __future__ import annotations

import importlib
import threading
from importlib.metadata import entry_points
from typing import Any

from pydantic import ValidationError

from audit_pipeline.verification.stages.base import (
    REGISTERED,
    Stage,
    StageError,
    StageResources,
    stage,
)

ENTRY_POINT_GROUP = "audit_pipeline.stages"

_loaded = False
_lock = threading.Lock()


def _load_entry_points() -> None:
    global _loaded
    with _lock:
        if _loaded:
            return
        _loaded = True
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            cls = point.load()
        except Exception as error:  # a broken plugin is named, not a traceback
            raise StageError(
                f"stage {point.name!r} ({point.value}, entry point group {ENTRY_POINT_GROUP}) "
                f"could not be loaded: {type(error).__name__}: {error}"
            ) from error
        if not (isinstance(cls, type) and issubclass(cls, Stage)):
            raise StageError(f"entry point {point.name!r} ({point.value}) is not a Stage class")
        if cls.name != point.name:
            raise StageError(
                f"entry point {point.name!r} names a stage called {cls.name!r}: use one name"
            )
        stage(cls)


def registered() -> dict[str, type[Stage]]:
    """Every stage a chain can name, by name (this package's and the plugins')."""
    # This package's stages register as their modules load; a dynamic import, so the stage
    # modules (which import this one's neighbours) stay out of the import graph of the registry.
    importlib.import_module("audit_pipeline.verification.stages.builtin")
    _load_entry_points()
    return dict(REGISTERED)


def stage_class(name: str) -> type[Stage]:
    known = registered()
    if name not in known:
        raise StageError(f"unknown stage {name!r}; known: {', '.join(sorted(known))}")
    return known[name]


def build_stage(
    name: str, params: dict[str, Any] | None = None, resources: StageResources | None = None
) -> Stage:
    """The stage called ``name`` with ``params`` checked against its parameter model."""
    cls = stage_class(name)
    try:
        checked = cls.Params(**(params or {}))
    except ValidationError as error:
        raise StageError(f"stage {name!r}: {_problems(error)}") from None
    return cls(checked, resources)


def check_spec(name: str, params: dict[str, Any] | None = None) -> None:
    """Raise ``StageError`` unless ``name`` is a registered stage that takes ``params``."""
    cls = stage_class(name)
    try:
        cls.Params(**(params or {}))
    except ValidationError as error:
        raise StageError(f"stage {name!r}: {_problems(error)}") from None


def _problems(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'params'}: {e['msg']}" for e in error.errors()
    )
