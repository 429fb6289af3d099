"""How fast does core run all-MiniLM-L6-v2 next to transformers' BertModel, in the same run?

Ratios (ours / reference, lower is better), one thread, inference mode, one sentence of
8 / 32 / 64 word pieces:
- forward: core's model with every attention weight kept (`MiniLM(ids)`) vs `BertModel(ids,
  output_attentions=True)` with eager attention (the one that returns the weights);
- trace: `trained_trace(text)`, what a lesson calls (the forward, then each layer's full trace,
  numpy out) vs the same reference.
Goal: forward ratio <= 1.0 at every size. Also: loading the model cold, in a fresh process
(the dashboard loads it once per server).

Local checkpoints (issue 27), in the same run: a BERT of BERT-base's shape and a GPT-2 of GPT-2
small's (12 layers, 12 heads, d_model 768, d_ff 3072; random weights, made here and saved as a
teacher's folder, read back by core.models), core's forward against transformers' eager
`BertModel` / `GPT2Model` with `output_attentions=True` on the same ids, the two families
measured one after the other at each length, each in alternating rounds against its reference.
`--quick`: 4 layers, 8 heads, d_model 256 instead.

    python benchmarks/model_bench.py [--quick] [--only-checkpoints]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import torch
from torch.utils import benchmark

from core import trained_trace
from core.bert import load_minilm
from core.pretrained import encode, model_dir

PIECES = (8, 32, 64)
TEXT = ("Attention lets every word in a sentence look at every other word, weigh how much each one matters, "
        "and build its new meaning from that weighted mix of values; a trained model learns what to look at. ") * 2


def _ratio(ours, ref, min_run_time, rounds=7):
    """Median time of ours / median time of ref, measured in alternating rounds.

    The machine is shared and noisy: alternating short rounds lets a slow spell hit both.
    """
    timers = [benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=1) for fn in (ours, ref)]
    times = ([], [])
    for _ in range(rounds):
        for timer, out in zip(timers, times, strict=True):
            out.append(timer.blocked_autorange(min_run_time=min_run_time).median)
    return statistics.median(times[0]) / statistics.median(times[1]), statistics.median(times[1])


def _text_of(n: int) -> str:
    """A text that the tokenizer turns into exactly n word pieces, [CLS] and [SEP] included."""
    words = TEXT.split()
    for k in range(len(words)):
        text = " ".join(words[:k])
        if len(encode([text])[0][0]) >= n:
            assert len(encode([text])[0][0]) == n, "pick another text: no prefix gives exactly n pieces"
            return text
    raise ValueError(f"the text is shorter than {n} word pieces")


def measure(n, reference, min_run_time):
    text = _text_of(n)
    ids = torch.tensor(encode([text])[1])  # (1, n)
    ours = load_minilm("cpu")
    with torch.inference_mode():
        ref = lambda: reference(input_ids=ids, output_attentions=True)
        forward, ref_time = _ratio(lambda: ours(ids), ref, min_run_time)
        trace, _ = _ratio(lambda: trained_trace(text, device="cpu"), ref, min_run_time)
    return {"forward": forward, "trace": trace, "ref_ms": ref_time * 1e3}


def cold_load() -> dict:
    """Seconds to import core and to load the model, each in a fresh process; transformers alike."""
    code = textwrap.dedent("""
        import time
        t0 = time.perf_counter()
        {imports}
        t1 = time.perf_counter()
        {load}
        t2 = time.perf_counter()
        print(t1 - t0, t2 - t1)
    """)
    runs = {
        "core": ("import core", "core.trained_trace('Hi', device='cpu')"),
        "transformers": ("import transformers, core.pretrained",
                         "transformers.BertModel.from_pretrained(core.pretrained.model_dir(), "
                         "attn_implementation='eager')"),
    }
    out = {}
    for name, (imports, load) in runs.items():
        done = subprocess.run([sys.executable, "-c", code.format(imports=imports, load=load)],
                              capture_output=True, text=True, check=True)
        out[name] = tuple(float(x) for x in done.stdout.split()[-2:])
    return out


BASE = {"layers": 12, "heads": 12, "width": 768, "d_ff": 3072, "positions": 512}  # BERT-base, GPT-2 small
QUICK = {"layers": 4, "heads": 8, "width": 256, "d_ff": 1024, "positions": 128}


def checkpoints_bench(sizes: dict, min_run_time: float) -> list[dict]:
    """core's BERT and GPT-2 against transformers' eager models, same folders, same ids."""
    import transformers

    from core import models
    from tests import checkpoints  # the tests' maker of random checkpoints (dev-only, as transformers is)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folders = {"bert": checkpoints.make_bert(Path(tmp) / "bench-bert", sizes),
                   "gpt2": checkpoints.make_gpt2(Path(tmp) / "bench-gpt2", sizes)}
        os.environ["ATTENTION_LAB_MODELS"] = os.pathsep.join(map(str, folders.values()))
        refs = {"bert": transformers.BertModel.from_pretrained(folders["bert"], attn_implementation="eager",
                                                               add_pooling_layer=False).eval(),
                "gpt2": transformers.GPT2Model.from_pretrained(folders["gpt2"], attn_implementation="eager").eval()}
        ours = {f: models.load(models.find(folder.name), torch.device("cpu")) for f, folder in folders.items()}
        gen = torch.Generator().manual_seed(0)
        for n in PIECES:
            for family in ("bert", "gpt2"):
                ids = torch.randint(5, 150, (1, n), generator=gen)  # (1, n), inside both tiny vocabularies
                with torch.inference_mode():
                    ref = lambda ids=ids, family=family: refs[family](input_ids=ids, output_attentions=True)
                    ratio, ref_time = _ratio(lambda ids=ids, family=family: ours[family](ids), ref, min_run_time)
                rows.append({"family": family, "n": n, "forward": ratio, "ref_ms": ref_time * 1e3})
    return rows


def report_checkpoints(sizes: dict, min_run_time: float):
    print(f"local checkpoints, {sizes['layers']} layers x {sizes['heads']} heads, d_model {sizes['width']}:")
    print(f"{'family':>6} {'pieces':>6} {'forward':>8} {'reference ms':>13}")
    rows = checkpoints_bench(sizes, min_run_time)
    for r in rows:
        print(f"{r['family']:>6} {r['n']:>6} {r['forward']:>8.3f} {r['ref_ms']:>13.2f}")
    for family in ("bert", "gpt2"):
        mine = [r["forward"] for r in rows if r["family"] == family]
        print(f"{family}: median forward ratio {statistics.median(mine):.3f} (max {max(mine):.3f}), "
              "ours / transformers eager, lower is better")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter timings (noisier), smaller checkpoints")
    parser.add_argument("--only-checkpoints", action="store_true", help="skip MiniLM: the local checkpoints only")
    args = parser.parse_args()
    from transformers import BertModel
    from transformers.utils import logging

    logging.set_verbosity_error()
    logging.disable_progress_bar()
    torch.set_num_threads(1)
    min_run_time = 0.05 if args.quick else 0.2
    if args.only_checkpoints:
        return report_checkpoints(QUICK if args.quick else BASE, min_run_time)
    # No pooler: core does not compute BERT's pooled [CLS] output, so neither does the reference.
    reference = BertModel.from_pretrained(model_dir(), attn_implementation="eager", add_pooling_layer=False).eval()
    print(f"{'pieces':>6} {'forward':>8} {'trace':>8} {'reference ms':>13}")
    rows = []
    for n in PIECES:
        r = measure(n, reference, min_run_time)
        rows.append(r)
        print(f"{n:>6} {r['forward']:>8.3f} {r['trace']:>8.3f} {r['ref_ms']:>13.2f}")
    print(f"median ratio: forward {statistics.median(r['forward'] for r in rows):.3f} "
          f"(max {max(r['forward'] for r in rows):.3f}), trace {statistics.median(r['trace'] for r in rows):.3f} "
          f"(ours / transformers eager, lower is better)")
    for name, (imports, load) in cold_load().items():
        print(f"cold start, {name}: import {imports:.2f} s, load and first run {load:.2f} s")
    report_checkpoints(QUICK if args.quick else BASE, min_run_time)


if __name__ == "__main__":
    main()
