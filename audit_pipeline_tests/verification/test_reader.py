"""detection.reader: NLI and token-classification readers loaded from a folder, offline.

The models are tiny BERTs the tests build and save themselves, with weights set by hand so
that what they output is known: a classifier bias that makes one label win (which column the
reader calls "entailed" then shows whether it read the labels from the config), and a token
head that flags exactly one word (whether the reader looks only at the claim's tokens).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
from transformers import (
    BertConfig,
    BertForSequenceClassification,
    BertForTokenClassification,
    BertTokenizer,
)

from audit_pipeline.claims.claim import make_claim
from audit_pipeline.config import ConfigError, load_config
from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification import verify_answer
from audit_pipeline.verification.configured import build_verifier, needs_judge
from audit_pipeline.verification.detection_settings import DetectionSettings
from audit_pipeline.verification.reader import (
    NLIReader,
    ReaderError,
    ReaderSettings,
    TokenReader,
    answer_token_mask,
    build_reader,
    hallucinated_column,
    lettuce_prompt,
    nli_label_columns,
)

# The claims' and evidence's words, and those of LettuceDetect's prompt.
WORDS = [
    *("the", "logs", "are", "kept", "in", "frankfurt", "paris", "for", "90", "days", "office"),
    *("mfa", "is", "required", "not", "summarize", "following", "text", "passage", "1"),
    *(":", "output", ".", ","),
]
EVIDENCE = "The logs are kept in Paris for 90 days."


def _tokenizer(folder: Path) -> BertTokenizer:
    folder.mkdir(parents=True, exist_ok=True)
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    # transformers 5: BertTokenizer is the fast (tokenizers) one; vocab is a vocab.txt path.
    return BertTokenizer(vocab=str(vocab))


def _config(labels: list[str], tokenizer: BertTokenizer) -> BertConfig:
    return BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        id2label=dict(enumerate(labels)),
        label2id={label: index for index, label in enumerate(labels)},
    )


def _nli_model(folder: Path, labels: list[str], bias: list[float]) -> Path:
    """An NLI model whose output is its classifier bias, whatever it reads."""
    tokenizer = _tokenizer(folder)
    torch.manual_seed(0)
    model = BertForSequenceClassification(_config(labels, tokenizer))
    with torch.no_grad():
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor(bias))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _token_model(folder: Path, flagged: str = "frankfurt") -> Path:
    """A token detector that calls exactly the tokens of ``flagged`` hallucinated.

    Attention and feed-forward outputs are zero, so each token's state is its own embedding
    (through the residual connections and layer norms); only ``flagged`` has one, along the
    dimension the head reads as "hallucinated". Every other token scores sigmoid(-3) = 0.047.
    """
    tokenizer = _tokenizer(folder)
    torch.manual_seed(0)
    model = BertForTokenClassification(_config(["LABEL_0", "LABEL_1"], tokenizer))
    with torch.no_grad():
        for parameter in model.bert.embeddings.parameters():
            parameter.zero_()
        model.bert.embeddings.LayerNorm.weight.fill_(1.0)
        model.bert.embeddings.word_embeddings.weight[
            tokenizer.convert_tokens_to_ids(flagged), 0
        ] = 10.0
        for layer in model.bert.encoder.layer:
            for dense in (layer.attention.output.dense, layer.output.dense):
                dense.weight.zero_()
                dense.bias.zero_()
        model.classifier.weight.zero_()
        model.classifier.weight[1, 0] = 2.0
        model.classifier.bias.copy_(torch.tensor([0.0, -3.0]))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("readers")
    three_way = ["contradiction", "neutral", "entailment"]
    _nli_model(root / "entails", three_way, [0.0, 0.0, 6.0])
    _nli_model(root / "contradicts", three_way, [6.0, 0.0, 0.0])
    _nli_model(root / "upper-first", ["ENTAILMENT", "Neutral", "Contradiction"], [6.0, 0.0, 0.0])
    _nli_model(root / "binary", ["faithful", "hallucinated"], [0.0, 6.0])
    _nli_model(root / "unnamed", ["LABEL_0", "LABEL_1"], [0.0, 6.0])
    _token_model(root / "token")
    return root


def _nli(folder: Path, **settings: object) -> NLIReader:
    reader = build_reader(ReaderSettings(kind="nli", path=folder, **settings))
    assert isinstance(reader, NLIReader)
    return reader


def _token(folder: Path, **settings: object) -> TokenReader:
    reader = build_reader(ReaderSettings(kind="token", path=folder, **settings))
    assert isinstance(reader, TokenReader)
    return reader


def test_nli_columns_come_from_the_config_labels(models: Path) -> None:
    pair = [(EVIDENCE, "The logs are kept for 90 days.")]
    entails = _nli(models / "entails").read(pair)
    assert entails.entailed[0] > 0.95 and entails.contradicted[0] < 0.01
    contradicts = _nli(models / "contradicts").read(pair)
    assert contradicts.contradicted[0] > 0.95 and contradicts.entailed[0] < 0.01
    # Column 0 wins here too, but this model names it ENTAILMENT: read by name, any case.
    upper = _nli(models / "upper-first").read(pair)
    assert upper.entailed[0] > 0.95 and upper.contradicted[0] < 0.01


def test_a_binary_faithful_hallucinated_model_never_contradicts(models: Path) -> None:
    scores = _nli(models / "binary").read([(EVIDENCE, "MFA is not required.")])
    assert scores.entailed[0] < 0.01
    assert scores.contradicted[0] == 0.0


def test_unnamed_labels_are_refused_naming_folder_and_labels(models: Path) -> None:
    with pytest.raises(ReaderError) as error:
        build_reader(ReaderSettings(kind="nli", path=models / "unnamed"))
    assert "'LABEL_0', 'LABEL_1'" in str(error.value)
    assert str(models / "unnamed") in str(error.value)


def test_label_variants_map_to_columns() -> None:
    folder = Path("m")
    assert nli_label_columns({0: "entailment", 1: "not_entailment"}, folder) == ([0], [])
    assert nli_label_columns({0: "Contradict", 1: "Entailed", 2: "neutral"}, folder) == ([1], [0])
    assert nli_label_columns({0: "inconsistent", 1: "consistent"}, folder) == ([1], [])
    assert nli_label_columns({0: "Unsupported", 1: "Supported"}, folder) == ([1], [])
    with pytest.raises(ReaderError, match="'positive', 'negative'"):
        nli_label_columns({0: "positive", 1: "negative"}, folder)
    assert hallucinated_column({0: "LABEL_0", 1: "LABEL_1"}, folder) == 1
    assert hallucinated_column({0: "hallucinated", 1: "supported"}, folder) == 0
    with pytest.raises(ReaderError, match="'O', 'B-PER', 'I-PER'"):
        hallucinated_column({0: "O", 1: "B-PER", 2: "I-PER"}, folder)


def test_empty_evidence_scores_nothing_without_reading(models: Path) -> None:
    for reader in (_nli(models / "entails"), _token(models / "token")):
        scores = reader.read([("  ", "The logs are kept for 90 days.")])
        assert (scores.entailed[0], scores.contradicted[0]) == (0.0, 0.0)


def test_token_reader_takes_the_worst_claim_token(models: Path) -> None:
    reader = _token(models / "token")
    scores = reader.read(
        [
            (EVIDENCE, "The logs are kept in Frankfurt."),
            (EVIDENCE, "The logs are kept in Paris."),
            # The flagged word in the evidence only: the context's tokens are not the claim's.
            ("The Frankfurt office keeps the logs.", "The logs are kept in Paris."),
        ]
    )
    assert scores.entailed[0] < 0.01
    assert scores.entailed[1] == pytest.approx(1 - torch.sigmoid(torch.tensor(-3.0)).item(), 1e-3)
    assert scores.entailed[2] > 0.9
    assert not scores.contradicted.any()


def test_long_evidence_is_cut_and_the_claim_kept(models: Path) -> None:
    long_evidence = " ".join(["The logs are kept in Paris for 90 days."] * 200)
    token = _token(models / "token", max_length=64)
    assert token.read([(long_evidence, "The logs are kept in Frankfurt.")]).entailed[0] < 0.01
    # The model takes 128 positions: reading 2,000 words at all means the evidence was cut.
    nli = _nli(models / "entails", max_length=4096)
    assert nli.read([(long_evidence, "The logs are kept for 90 days.")]).entailed[0] > 0.95


def test_answer_tokens_are_the_second_segment_after_truncation(models: Path) -> None:
    tokenizer = BertTokenizer.from_pretrained(models / "token")
    claim = "the logs are kept in frankfurt"
    encoded = tokenizer(
        lettuce_prompt("the logs are kept in paris " * 50),
        claim,
        truncation="only_first",
        max_length=32,
    )
    mask = answer_token_mask(encoded.sequence_ids())
    kept = [token for token, is_answer in zip(encoded.tokens(), mask, strict=True) if is_answer]
    assert kept == claim.split()
    assert len(encoded["input_ids"]) == 32


def test_version_follows_the_weights_not_the_location(models: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(models / "entails", tmp_path / "copy")
    assert _nli(copy).version == _nli(models / "entails").version
    changed = _nli_model(
        tmp_path / "changed", ["contradiction", "neutral", "entailment"], [0, 0, 5]
    )
    assert _nli(changed).version != _nli(models / "entails").version
    assert _nli(copy).name == "nli:copy"


def test_a_folder_is_loaded_once_per_process(models: Path) -> None:
    first = _nli(models / "entails")
    assert _nli(models / "entails") is first
    assert build_reader(None) is None


def test_folder_problems_are_clear_errors(models: Path, tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="does not exist"):
        build_reader(ReaderSettings(kind="nli", path=tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReaderError, match=r"has no config\.json"):
        build_reader(ReaderSettings(kind="nli", path=tmp_path / "empty"))
    unweighted = shutil.copytree(models / "entails", tmp_path / "unweighted")
    (unweighted / "model.safetensors").unlink()
    with pytest.raises(ReaderError, match="has no weights"):
        build_reader(ReaderSettings(kind="nli", path=unweighted))
    with pytest.raises(ReaderError, match=r"BertForTokenClassification.*fits kind: token"):
        build_reader(ReaderSettings(kind="nli", path=models / "token"))
    with pytest.raises(ReaderError, match=r"BertForSequenceClassification.*fits kind: nli"):
        build_reader(ReaderSettings(kind="token", path=models / "entails"))


def test_a_usable_folder_passes_the_preflight(models: Path) -> None:
    """The checks ``audit-pipeline run`` makes before an audit (issue 33) accept a folder the
    reader loads: config, labels, weight headers and tokenizer."""
    from types import SimpleNamespace

    from audit_pipeline.commands.reader_preflight import check_reader

    for kind, folder in (("nli", "entails"), ("token", "token")):
        settings = ReaderSettings(kind=kind, path=models / folder)
        check_reader(SimpleNamespace(reader_settings=settings))
    check_reader(SimpleNamespace(reader_settings=None))


def test_settings_refuse_unknown_keys_and_bad_values() -> None:
    with pytest.raises(ValueError, match="labels"):
        DetectionSettings.model_validate({"reader": {"kind": "nli", "path": "m", "labels": 3}})
    with pytest.raises(ValueError, match="batch_size"):
        ReaderSettings.model_validate({"kind": "nli", "path": "m", "batch_size": 0})
    with pytest.raises(ValueError, match="kind"):
        ReaderSettings.model_validate({"kind": "seq2seq", "path": "m"})


def test_a_relative_reader_path_is_relative_to_audit_yaml(tmp_path: Path) -> None:
    config_dir = tmp_path / "project"
    config_dir.mkdir()
    (config_dir / "audit.yaml").write_text(
        "detection:\n  reader:\n    kind: token\n    path: models/lettuce\n    max_length: 4096\n"
    )
    config = load_config(config_dir / "audit.yaml")
    assert config.detection.reader is not None
    assert config.detection.reader.path == Path("models/lettuce")  # as written
    resolved = config.reader_settings
    assert resolved is not None
    assert resolved.path == config_dir / "models" / "lettuce"
    assert (resolved.kind, resolved.max_length) == ("token", 4096)
    (config_dir / "typo.yaml").write_text("detection:\n  reader:\n    kind: nli\n    pth: m\n")
    with pytest.raises(ConfigError, match=r"detection\.reader\.pth"):
        load_config(config_dir / "typo.yaml")


def test_a_claim_longer_than_half_the_input_is_cut_not_the_whole_context(models: Path) -> None:
    reader = _token(models / "token", max_length=16)
    # 10 tokens against a budget of 8: the claim keeps its first 8, the flagged word is past them.
    long_claim = "The logs are kept in Paris for 90 days Frankfurt"
    assert reader.read([(EVIDENCE, long_claim)]).entailed[0] > 0.9
    assert reader.read([(EVIDENCE, "Frankfurt keeps the logs")]).entailed[0] < 0.01


def test_the_cascade_sends_the_readers_only_claims_no_check_decided(
    models: Path, embedder: SentenceTransformerEmbedder
) -> None:
    """With a reader configured, the local verifier's uncertain claims go to it, offline and
    without a judge key; a claim a check decided (a clashing frequency) is not asked about."""
    settings = DetectionSettings(
        verifier="local",
        cascade_band=(0.0, 1.0),
        reader=ReaderSettings(kind="nli", path=models / "contradicts"),
    )
    assert not needs_judge(settings)
    verifier = build_verifier(settings, embedder, reader=settings.reader)
    evidence = [
        EvidencePassage(chunk, text, "d", "", None, None, 1.0, "vault")
        for chunk, text in (
            ("c1", "Key encryption keys are rotated every 12 months."),
            ("c2", "Backups are encrypted at rest with AES-256."),
        )
    ]
    claims = [
        make_claim(text, 0, len(text), "sentence")
        for text in ("Key encryption keys are rotated quarterly.", "Backups are encrypted at rest.")
    ]
    checked, read = verify_answer(verifier, claims, [[evidence[0]], [evidence[1]]]).verdicts
    assert (checked.decided_by, checked.label) == ("specifics", Label.CONTRADICTED)
    assert (read.decided_by, read.label) == ("reader", Label.CONTRADICTED)
    assert read.justification.startswith("Contradicted (reader)")
