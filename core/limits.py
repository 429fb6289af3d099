"""The lab's limits, in one place: every widget's range and every link's accepted range are read from
here, never typed again."""

MAX_TOKENS = 64  # heatmaps stay legible and a lesson stays instant
MAX_TEXT_CHARS = 2000
# What a text box may hold: a paste a few times too long is kept, so the student can shorten it and
# is told how long it was; beyond this the box (and Streamlit's server) cut it, so a session never
# holds more than this of refused text.
MAX_BOX_CHARS = 4 * MAX_TEXT_CHARS
MAX_NUMBER_CHARS = 100  # a number box: room for any number a student types, and a clear refusal
# A link's query string, as the lab writes it (lesson/state.py, link_chars): the longest lesson a student can
# make (a 2,000-character sentence of 4-byte letters, 12 characters each once percent-encoded, and
# a 64 × 64 custom mask) fits; the hall's proxy takes any link up to this (hall/haproxy.py).
MAX_LINK_CHARS = 32_768
MAX_FIELD_CHARS = 256  # a PIN or a host name box: more than either needs (a DNS name has at most 253)
MAX_D_MODEL = 1024
MAX_HEADS = 64
MAX_SEED = 2**32 - 1
MIN_TEMPERATURE, MAX_TEMPERATURE = 0.01, 100.0  # below 0.01 the scaled scores can overflow float32
MAX_ENTRY = 1e4  # hand-entered numbers: q·k stays far from float32's overflow (3e38)
# A trained model's sentence: at most this many attention weights, layers × heads × T², in one request
# (12 layers × 12 heads at 64 word pieces, as BERT-base or GPT-2). Every one of them is computed,
# kept in the trace four times (scores, scaled, masked, weights) and drawn in the model view.
MAX_ATTENTION_CELLS = 12 * 12 * MAX_TOKENS**2
# A model folder's tokenizer.json (core/checkpoint.py), looked at on disk before it is read: the built-in
# model's is 466,247 bytes. `tokenizers` holds the whole file while it parses it (a 600 MB one raised a lab
# process's peak memory from 670 to 1,270 MiB, issue 47).
MAX_TOKENIZER_BYTES = 16 * 10**6
