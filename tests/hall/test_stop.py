"""Ctrl+C (SIGTERM here) stops the whole hall: every process it started is gone."""

import os

import pytest

from hall.background import stop

pytestmark = pytest.mark.hall


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_sigterm_stops_every_process_of_the_hall(hall):
    """Runs last among the hall tests (it ends the shared hall)."""
    pids = hall.current()["processes"]
    assert pids and all(alive(pid) for pid in pids.values())
    assert stop(hall.proc) == 0
    assert not [name for name, pid in pids.items() if alive(pid)], "processes outlived the hall"
    assert "The hall has stopped." in hall.output.read_text()
