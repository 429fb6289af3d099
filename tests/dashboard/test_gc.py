"""A full garbage collection walks every long-lived object: some 250 000 once torch, Altair and
pandas are loaded (~160 ms). Streamlit's collection after every run is off (.streamlit/
config.toml), and the lab freezes what its first run imported, so Python's own full collections
skip them too: checked here by count, not by a clock."""

import gc


def test_the_first_run_freezes_the_imported_objects(make_app):
    at = make_app()
    assert not at.exception
    assert gc.get_freeze_count() > 50_000  # torch alone brings more long-lived objects than this


def test_later_runs_do_not_freeze_again(make_app):
    """Only once per server: what later runs leave behind (cycles included) stays collectable."""
    at = make_app()
    frozen = gc.get_freeze_count()
    at.sidebar.select_slider(key="ctl_temperature").set_value(0.5).run()  # the lesson view alone
    at.run()  # a full run, which ends where the first one froze
    assert not at.exception
    assert gc.get_freeze_count() <= frozen  # (a frozen object freed by refcount leaves the count)
