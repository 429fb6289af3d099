"""Page 1: one head of scaled dot-product attention, step by step (its lesson view: steps.one_head)."""

from dashboard.app_pages import steps
from dashboard.app_pages.ui import introduction
from dashboard.lesson import rerun

introduction(
    "Scaled dot-product attention",
    "Each token's vector x is multiplied by three matrices: W_Q gives its **query** q (what it looks for), "
    "W_K its **key** k (what the queries are matched against) and W_V its **value** v (what it passes on). "
    "How well query i matches key j is the dot product qᵢ·kⱼ. Divided by √d_k and passed through a softmax, "
    "each row of scores becomes **weights** that add up to 1, and token i's output is the weighted average of "
    "the values: `softmax(Q·Kᵀ / √d_k) · V`."
)
rerun.view(steps.one_head)
