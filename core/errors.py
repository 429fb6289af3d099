"""`ConfigError`: a setting that cannot work, explained in words a student understands.

Every check raises it, from a lesson's settings to a model folder's files, so that every front end
catches one error and shows its sentence.
"""


class ConfigError(ValueError):
    """A lesson setting that cannot work, explained; `field` names the setting."""

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.field = field


def check(ok: bool, field: str, message: str):
    """Refuse a setting (`field`) that cannot work, saying why in `message`."""
    if not ok:
        raise ConfigError(message, field)
