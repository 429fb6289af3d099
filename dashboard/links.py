"""The lesson in the URL: a copied address reproduces the screen; a bad link opens with a notice."""

import streamlit as st

from core import PRESETS, AttentionConfig, ConfigError, available_devices

DEFAULT = PRESETS["default"]
WIDGET_FIELDS = ("source", "text", "seq_len", "d_model", "num_heads", "mask", "pad_length", "window",
                 "positional", "scale", "temperature", "seed", "device")
MATRIX_FIELDS = ("custom_mask", "q", "k", "v")
CONFIG_FIELDS = WIDGET_FIELDS + MATRIX_FIELDS


def config_from_url(params: dict) -> tuple[AttentionConfig, str]:
    """The lesson a link describes, or the defaults and a notice saying why not."""
    values = {k: v for k, v in params.items() if k in CONFIG_FIELDS}
    try:
        return AttentionConfig.from_dict(values), ""
    except ConfigError as err:
        if err.field == "device":  # a link made on a machine with a GPU: same lesson, another device
            fallback, notice = config_from_url({**values, "device": "auto"})
            if not notice:
                return fallback, f"{err} The lesson runs on the {fallback_device()} instead."
        return DEFAULT, f"This link has a setting that cannot work, so the lab opened with its defaults. {err}"
    except (ValueError, TypeError) as err:
        return DEFAULT, f"This link has a setting that cannot work, so the lab opened with its defaults. {err}"


def fallback_device() -> str:
    return {"cuda": "GPU", "mps": "Apple GPU"}.get(available_devices()[0], "CPU")


def url_params(cfg: AttentionConfig) -> dict[str, str]:
    """Only the settings that differ from the defaults: short links, same lesson."""
    default = DEFAULT.to_dict()
    return {k: v for k, v in cfg.to_dict().items() if v != default[k]}


def sync_url(cfg: AttentionConfig):
    want = url_params(cfg)
    for name in CONFIG_FIELDS:
        if name in want and st.query_params.get(name) != want[name]:
            st.query_params[name] = want[name]
        elif name not in want and name in st.query_params:
            del st.query_params[name]
