"""The handout's fixed texts: its formulas, typeset in MathML written here by hand (browsers render MathML
Core offline, with no TeX and no script), the reading list, and the page's style.

Nothing here comes from a deck: these are the lab's own constants. classroom/handout.py picks the formulas a
screen shows by its topic (the page, scene or question kind it names). And how the handout prints a number.
"""

import math

DECIMALS = 3  # every number the handout prints, as its header says


def _row(*parts: str) -> str:
    return f"<mrow>{''.join(parts)}</mrow>"


def _i(name: str) -> str:  # an identifier: a letter is italic, a word ("softmax") upright
    return f"<mi>{name}</mi>"


def _o(op: str) -> str:
    return f"<mo>{op}</mo>"


def _n(number: str) -> str:
    return f"<mn>{number}</mn>"


def _sub(base: str, index: str) -> str:
    return f"<msub>{base}{index}</msub>"


def _sup(base: str, power: str) -> str:
    return f"<msup>{base}{power}</msup>"


def _subsup(base: str, index: str, power: str) -> str:
    return f"<msubsup>{base}{index}{power}</msubsup>"


def _frac(top: str, bottom: str) -> str:
    return f"<mfrac>{top}{bottom}</mfrac>"


def _sqrt(inside: str) -> str:
    return f"<msqrt>{inside}</msqrt>"


def _paren(*inside: str) -> str:
    return _row(_o("("), *inside, _o(")"))


def _math(alt: str, *parts: str) -> str:
    """A displayed formula; `alt` is its plain-text reading, for copying and for screen readers."""
    return f'<math display="block" alttext="{alt}">{_row(*parts)}</math>'


_DK = _sub(_i("d"), _i("k"))
_SQRT_DK = _sqrt(_DK)
_KT = _sup(_i("K"), _i("T"))
_QKT = _row(_i("Q"), _KT)
_S_IJ = _sub(_i("s"), _row(_i("i"), _i("j")))
_W_IJ = _sub(_i("w"), _row(_i("i"), _i("j")))
_DOT = _row(_sub(_i("q"), _i("i")), _o("·"), _sub(_i("k"), _i("j")))
_SOFTMAX = '<mi mathvariant="normal">softmax</mi>'


def _word(word: str) -> str:
    return f'<mi mathvariant="normal">{word}</mi>'


def _cases(*rows: tuple) -> str:
    """A brace, then (value, condition) rows, the conditions aligned left."""
    cells = "".join(f"<mtr><mtd>{value}</mtd><mtd style='text-align: left'>{when}</mtd></mtr>" for value, when in rows)
    return _row(_o("{"), f"<mtable>{cells}</mtable>")


_SPACE = "<mspace width='0.3em'/>"
_SEES = _row(_i("j"), _o("may be seen by"), _i("i"))


def _position(fn: str, index: str) -> tuple:
    """PE(p, index) = fn(p / 10000^(2i/d_model)): one half of the sinusoidal table."""
    power = _sup(_n("10000"), _row(_n("2"), _i("i"), _o("/"), _sub(_i("d"), _word("model"))))
    return _word("PE"), _paren(_i("p"), _o(","), index), _o("="), _word(fn), _paren(_frac(_i("p"), power))


FORMULAS = {
    "attention": _math("Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V",
                       _word("Attention"), _paren(_i("Q"), _o(","), _i("K"), _o(","), _i("V")), _o("="),
                       _SOFTMAX, _paren(_frac(_QKT, _SQRT_DK)), _i("V")),
    "scores": _math("s_ij = q_i · k_j, that is S = Q K^T", _S_IJ, _o("="), _DOT, _o(","),
                    _o("&#x2003;"), _i("S"), _o("="), _QKT),
    "scale": _math("s_ij = q_i · k_j / (sqrt(d_k) · τ), τ the temperature (1 unless changed)",
                   _S_IJ, _o("="), _frac(_DOT, _row(_SQRT_DK, _o("·"), _i("τ")))),
    "softmax": _math("w_ij = exp(s_ij) / Σ_l exp(s_il)", _W_IJ, _o("="),
                     _frac(_sup(_i("e"), _S_IJ),
                           _row(_sub(_o("∑"), _i("l")), _sup(_i("e"), _sub(_i("s"), _row(_i("i"), _i("l"))))))),
    "mask": _math("s_ij = s_ij if query i may see key j, −∞ if not; so w_ij = 0 for a blocked key",
                  _S_IJ, _o("←"), _cases((_S_IJ, _row(_word("if"), _SPACE, _SEES)),
                                         (_row(_o("−"), _i("∞")), _word("if not")))),
    # the causal mask's rule: beside the rule above where the screen draws a causal mask (the masking page and
    # video), not on a screen about another mask (padding blocks PAD keys, whatever the query's place)
    "causal": _math("causal: query i may see key j if and only if j ≤ i",
                    _word("causal:"), _SPACE, _SEES, _o("⇔"), _i("j"), _o("≤"), _i("i")),
    "heads": _math("head_h = softmax(Q_h K_h^T / sqrt(d_k)) V_h; MultiHead = Concat(head_1, …, head_H) W_O; "
                   "d_k = d_model / H",
                   _sub(_word("head"), _i("h")), _o("="), _SOFTMAX,
                   _paren(_frac(_row(_sub(_i("Q"), _i("h")), _sup(_sub(_i("K"), _i("h")), _i("T"))), _SQRT_DK)),
                   _sub(_i("V"), _i("h")), _o(","), _o("&#x2003;"),
                   _word("MultiHead"), _o("="), _word("Concat"),
                   _paren(_sub(_word("head"), _n("1")), _o(","), _o("…"), _o(","), _sub(_word("head"), _i("H"))),
                   _sub(_i("W"), _i("O")), _o(","), _o("&#x2003;"),
                   _DK, _o("="), _frac(_sub(_i("d"), _word("model")), _i("H"))),
    "positions": _math("PE(p, 2i) = sin(p / 10000^(2i/d_model)), PE(p, 2i+1) = cos(p / 10000^(2i/d_model))",
                       *_position("sin", _row(_n("2"), _i("i"))), _o(","), _o("&#x2003;"),
                       *_position("cos", _row(_n("2"), _i("i"), _o("+"), _n("1")))),
    "block": _math("post-LN: h = LN(x + MHA(x)), y = LN(h + FFN(h)); pre-LN: h = x + MHA(LN(x)), y = h + FFN(LN(h))",
                   _word("post-LN:"), _i("h"), _o("="), _word("LN"),
                   _paren(_i("x"), _o("+"), _word("MHA"), _paren(_i("x"))), _o(","),
                   _i("y"), _o("="), _word("LN"), _paren(_i("h"), _o("+"), _word("FFN"), _paren(_i("h"))),
                   _o("&#x2003;"), _word("pre-LN:"), _i("h"), _o("="), _i("x"), _o("+"), _word("MHA"),
                   _paren(_word("LN"), _paren(_i("x"))), _o(","), _i("y"), _o("="), _i("h"), _o("+"),
                   _word("FFN"), _paren(_word("LN"), _paren(_i("h")))),
    "norm": _math("‖α_ij f^h(x_j)‖, with f^h(x) = (x W_V^h + b_V^h) W_O^h (W_O^h: head h's rows of W_O): what key j "
                  "passes on to query i through head h (Kobayashi et al. 2020)",
                  _o("‖"), _sub(_i("α"), _row(_i("i"), _i("j"))), _sup(_i("f"), _i("h")),
                  _paren(_sub(_i("x"), _i("j"))), _o("‖"), _o(","), _o("&#x2003;"), _sup(_i("f"), _i("h")),
                  _paren(_i("x")), _o("="),
                  _paren(_i("x"), _subsup(_i("W"), _i("V"), _i("h")), _o("+"), _subsup(_i("b"), _i("V"), _i("h"))),
                  _subsup(_i("W"), _i("O"), _i("h"))),
}

# The reading list: (authors, year, title, where, link). Links are the only addresses the handout holds,
# as plain <a> a reader follows when online: nothing is loaded from them.
READING = (
    ("Ashok Kumar Yadav", "", "Transformer Architecture and the Self-Attention Mechanism",
     "Module 10: Generative AI, LLMs & Prompt Engineering. The article this lecture follows.", ""),
    ("Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit, Llion Jones, Aidan N. Gomez, Łukasz Kaiser, "
     "Illia Polosukhin", "2017", "Attention Is All You Need",
     "Advances in Neural Information Processing Systems 30 (NeurIPS 2017).", "https://arxiv.org/abs/1706.03762"),
    ("Nelson Elhage, Neel Nanda, Catherine Olsson, Tom Henighan, et al.", "2021",
     "A Mathematical Framework for Transformer Circuits", "Transformer Circuits Thread (Anthropic).",
     "https://transformer-circuits.pub/2021/framework/index.html"),
    ("Catherine Olsson, Nelson Elhage, Neel Nanda, Nicholas Joseph, et al.", "2022",
     "In-context Learning and Induction Heads", "Transformer Circuits Thread (Anthropic).",
     "https://arxiv.org/abs/2209.11895"),
    ("Kevin Clark, Urvashi Khandelwal, Omer Levy, Christopher D. Manning", "2019",
     "What Does BERT Look At? An Analysis of BERT's Attention",
     "Proceedings of the 2019 ACL Workshop BlackboxNLP: Analyzing and Interpreting Neural Networks for NLP, "
     "pages 276–286.", "https://arxiv.org/abs/1906.04341"),
    ("Goro Kobayashi, Tatsuki Kuribayashi, Sho Yokoi, Kentaro Inui", "2020",
     "Attention is Not Only a Weight: Analyzing Transformers with Vector Norms",
     "Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing (EMNLP), "
     "pages 7057–7075.", "https://arxiv.org/abs/2004.10102"),
    ("Sarthak Jain, Byron C. Wallace", "2019", "Attention is not Explanation",
     "Proceedings of the 2019 Conference of the North American Chapter of the Association for Computational "
     "Linguistics (NAACL-HLT), pages 3543–3556.", "https://arxiv.org/abs/1902.10186"),
    ("Sarah Wiegreffe, Yuval Pinter", "2019", "Attention is not not Explanation",
     "Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing and the 9th "
     "International Joint Conference on Natural Language Processing (EMNLP-IJCNLP), pages 11–20.",
     "https://arxiv.org/abs/1908.04626"),
    ("Paul Michel, Omer Levy, Graham Neubig", "2019", "Are Sixteen Heads Really Better than One?",
     "Advances in Neural Information Processing Systems 32 (NeurIPS 2019).", "https://arxiv.org/abs/1905.10650"),
    ("Elena Voita, David Talbot, Fedor Moiseev, Rico Sennrich, Ivan Titov", "2019",
     "Analyzing Multi-Head Self-Attention: Specialized Heads Do the Heavy Lifting, the Rest Can Be Pruned",
     "Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics (ACL 2019), "
     "pages 5797–5808.", "https://arxiv.org/abs/1905.09418"),
    ("Wenhui Wang, Furu Wei, Li Dong, Hangbo Bao, Nan Yang, Ming Zhou", "2020",
     "MiniLM: Deep Self-Attention Distillation for Task-Agnostic Compression of Pre-Trained Transformers",
     "Advances in Neural Information Processing Systems 33 (NeurIPS 2020).", "https://arxiv.org/abs/2002.10957"),
    ("Jianlin Su, Yu Lu, Shengfeng Pan, Ahmed Murtadha, Bo Wen, Yunfeng Liu", "2021",
     "RoFormer: Enhanced Transformer with Rotary Position Embedding", "Neurocomputing 568, 127063 (2024; "
     "arXiv 2104.09864, 2021): the rotary encoding, RoPE.", "https://arxiv.org/abs/2104.09864"),
)

# Nothing is loaded from anywhere: no script, no font, no image but data: URIs (the browser enforces it).
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

STYLE = """
body { font: 16px/1.5 "DejaVu Sans", system-ui, sans-serif; color: #1a1a1a; max-width: 60rem;
       margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.8rem; margin-bottom: .2rem; } h2 { font-size: 1.3rem; margin: 0 0 .3rem; }
.about, .meta { color: #555; } .meta { font-size: .9rem; margin: 0 0 .6rem; }
.screen { border-top: 1px solid #ccc; padding: 1rem 0; break-inside: avoid-page; }
.number { color: #0072B2; margin-right: .4rem; }
.note { border-left: 4px solid #0072B2; padding: .1rem .8rem; background: #f4f8fb; }
math[display="block"] { margin: .6rem 0; font-size: 1.15rem; overflow-x: auto; }
table.numbers { border-collapse: collapse; margin: .4rem 0 .8rem; font-variant-numeric: tabular-nums; }
table.numbers caption { text-align: left; font-weight: bold; padding-bottom: .2rem; white-space: nowrap; }
table.numbers th, table.numbers td { border: 1px solid #ccc; padding: .15rem .45rem; text-align: right; }
table.numbers th { background: #f0f0f0; font-weight: normal; }
.chart { max-width: 100%; height: auto; }
.charts { display: flex; flex-wrap: wrap; align-items: flex-start; }
.tokens { font-family: "DejaVu Sans Mono", monospace; }
.choices { list-style: none; padding-left: 1rem; } .letter { font-weight: bold; }
.answer { border-left: 4px solid #009E73; padding: .1rem .8rem; background: #f2faf6; }
nav ol { columns: 2; column-gap: 3rem; } nav li { break-inside: avoid; } .reading li { margin-bottom: .5rem; }
@media (max-width: 640px) { nav ol { columns: 1; } }
@media print { body { padding: 0; } nav { display: none; } }
"""


def number(x: float) -> str:
    """A number as the handout prints it: rounded to DECIMALS decimals, as the handout's header says (a weight
    of 5.06e-6 is 0.000, never a power of ten), −∞ for a blocked score; the minus sign is U+2212, as the lab's
    charts print it, and a number that rounds to zero has none."""
    if not math.isfinite(x):
        return "−∞" if x < 0 else "∞" if x > 0 else "NaN"
    text = f"{x:.{DECIMALS}f}"
    if float(text) == 0:
        text = text.lstrip("-")  # -0.000: a negative number too small to show is 0.000, as a positive one
    return text.replace("-", "−")
