"""``audit-pipeline calibrate``: refit the learned model on the team's marks, print how the
configured model and the refit did on held-out marks, write the refit as a versioned model
next to the warehouse, and let the configuration use it only when it is better.

Works offline on any machine with the warehouse (no benchmark data needed): what is fitted,
on what and how it is judged is ``verification/calibration.py``'s docstring.
"""

from __future__ import annotations

import argparse
from typing import Any

from audit_pipeline.commands.preflight import UsageError


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "calibrate",
        help="refit the learned model on analysts' marks; used when better on held-out marks",
    )
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (answers)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fold split")


def _cuts(model: Any) -> str:
    t = model.thresholds
    return f"unsupported {t.unsupported:.4f}, response {t.response:.4f}, span {t.span:.4f}"


def command(args: argparse.Namespace, config: Any, warehouse: Any) -> int:
    from audit_pipeline.embedding import local_embedder
    from audit_pipeline.embedding_cache import cached
    from audit_pipeline.runs.calibration import calibrate
    from audit_pipeline.verification.calibration import CalibrationError

    if args.folds < 2:
        raise UsageError("--folds must be at least 2")
    settings = config.embedding
    embedder = cached(
        local_embedder(settings.provider, settings.model, settings.device, settings.batch_size),
        config.embedding_cache_path,
    )
    try:
        result = calibrate(config, warehouse, embedder, folds=args.folds, seed=args.seed)
    except CalibrationError as error:
        raise UsageError(str(error)) from None
    checked = result.cross_validated
    print(
        f"calibrate: {result.marks} marked claims on {checked.answers} answers "
        f"(features computed for {result.computed}, the others stored)"
    )
    print(f"held out ({checked.folds} folds, grouped by answer):")
    print(f"  before  {result.base.version:<18} {checked.before.line()}")
    print(f"  after   {result.model.version:<18} {checked.after.line()}")
    print(f"cut points: {_cuts(result.base)} -> {_cuts(result.model)}")
    print(
        "claim model: refit with the configured coefficients as prior "
        f"(strength {result.prior_strength:g})"
    )
    print(f"wrote {result.path}")
    before, after = checked.before.precision, checked.after.precision
    if result.adopted is not None:
        change = (
            f"held-out precision {before:.2f} -> {after:.2f}"
            if before is not None and after is not None
            else "better held-out F1 and balanced accuracy"
        )
        print(
            f"better on held-out marks ({change}): the configuration now uses it "
            f"({result.adopted}); a new model is a new verifier, so the next audit verifies "
            "again (no carry-over)"
        )
    else:
        print(
            f"not better on held-out marks: the configuration keeps {result.base.version} "
            "(the refit is kept for reference)"
        )
    return 0
