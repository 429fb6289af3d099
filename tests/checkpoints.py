"""Tiny random BERT and GPT-2 checkpoints, made here with `transformers` and `tokenizers` (nothing is
downloaded): 2 layers, 4 heads, width 32, and a tokenizer trained on a few sentences (WordPiece for
BERT, byte-level BPE for GPT-2). `save_pretrained` writes them as a teacher's folder would be.
"""

import json
import shutil
from pathlib import Path

import torch

CORPUS = [
    "The cat sat on the mat because it was tired.",
    "Students read the article twice before the lecture.",
    "A teacher shows the heads of a model to the class.",
    "Attention lets every word look at every other word.",
    "The quick brown fox jumps over the lazy dog.",
    "In 1905, Einstein published four papers that changed physics forever.",
] * 4
SIZES = {"layers": 2, "heads": 4, "width": 32, "d_ff": 64, "positions": 128}


def _wordpiece():
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(CORPUS, trainers.WordPieceTrainer(vocab_size=160, special_tokens=specials))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                       special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return tok


def _byte_bpe():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=320, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS, trainer)
    return tok


def _spread(model, seed: int, std: float = 0.3):
    """Weights far from the default init (std 0.02, near-uniform attention): peaked heads test more.
    LayerNorm gains stay near 1, as trained ones are."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            gain = name.endswith("weight") and ("LayerNorm" in name or ".ln_" in name or name.startswith("ln_"))
            p.copy_(torch.randn(p.shape, generator=gen) * std + (1.0 if gain else 0.0))
    return model


def make_bert(folder: Path, sizes: dict = SIZES) -> Path:
    import transformers

    tok = _wordpiece()
    s = sizes
    config = transformers.BertConfig(vocab_size=tok.get_vocab_size(), hidden_size=s["width"],
                                     num_hidden_layers=s["layers"], num_attention_heads=s["heads"],
                                     intermediate_size=s["d_ff"], max_position_embeddings=s["positions"])
    torch.manual_seed(0)
    model = _spread(transformers.BertModel(config, add_pooling_layer=False), seed=1)
    model.save_pretrained(folder)
    tok.save(str(folder / "tokenizer.json"))
    return folder


def make_gpt2(folder: Path, sizes: dict = SIZES) -> Path:
    """Saved from GPT2LMHeadModel, so its names carry the "transformer." prefix, as a language model's do."""
    import transformers

    tok = _byte_bpe()
    s = sizes
    config = transformers.GPT2Config(vocab_size=tok.get_vocab_size(), n_embd=s["width"], n_layer=s["layers"],
                                     n_head=s["heads"], n_positions=s["positions"], n_inner=s["d_ff"],
                                     bos_token_id=0, eos_token_id=0)  # <|endoftext|> is id 0 here
    torch.manual_seed(0)
    model = _spread(transformers.GPT2LMHeadModel(config), seed=2)
    model.save_pretrained(folder)
    tok.save(str(folder / "tokenizer.json"))
    return folder


def copy_without(src: Path, dst: Path, *left_out: str) -> Path:
    dst.mkdir(parents=True)
    for f in src.iterdir():
        if f.name not in left_out:
            shutil.copy(f, dst / f.name)
    return dst


def as_bin(src: Path, dst: Path, prefix: str = "") -> Path:
    """The same model as the older pytorch_model.bin (names with `prefix`), read with torch.load."""
    from safetensors.torch import load_file

    copy_without(src, dst, "model.safetensors")
    torch.save({prefix + k: v for k, v in load_file(str(src / "model.safetensors")).items()},
               dst / "pytorch_model.bin")
    return dst


def with_config(src: Path, dst: Path, **changes) -> Path:
    copy_without(src, dst)
    cfg = json.loads((dst / "config.json").read_text())
    (dst / "config.json").write_text(json.dumps(cfg | changes))
    return dst


def hub_layout(src: Path, hub: Path, repo: str, revision: str = "0123abcd") -> Path:
    """`src` as the Hugging Face cache keeps a download: blobs, a snapshot of links to them, refs/main."""
    root = hub / ("models--" + repo.replace("/", "--"))
    snapshot = root / "snapshots" / revision
    (root / "blobs").mkdir(parents=True)
    snapshot.mkdir(parents=True)
    (root / "refs").mkdir()
    (root / "refs" / "main").write_text(revision)
    for i, f in enumerate(sorted(src.iterdir())):
        blob = root / "blobs" / f"blob{i}"
        shutil.copy(f, blob)
        (snapshot / f.name).symlink_to(Path("..", "..", "blobs", blob.name))
    return snapshot
