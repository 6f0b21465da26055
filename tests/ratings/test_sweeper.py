"""The sweeper: a serving process picks up runs nobody executes, with no write to set it off
(a web process killed after its commit, in immediate mode, left them)."""

import os

import pytest
from django.test import Client

from ratings.models import RatingChange, RatingRun
from ratings.runs import sweeper
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def test_a_sweep_executes_a_run_abandoned_by_a_killed_process(committed):
    with committed():
        GameFactory(result="1-0")
    rated = list(RatingChange.objects.values_list("player_id", "rating_after"))
    RatingChange.objects.all().delete()  # as if its process died before writing them
    RatingRun.objects.create(status="running", players=None, attempts=1, reason="killed")

    assert sweeper.tick() is True

    assert list(RatingChange.objects.values_list("player_id", "rating_after")) == rated
    assert not RatingRun.objects.filter(status__in=("queued", "running")).exists()


def test_a_sweep_with_nothing_waiting_does_nothing(committed):
    with committed():
        GameFactory()
    assert sweeper.tick() is False


@pytest.fixture
def quiet(monkeypatch):
    """The thread's loop replaced by one that returns at once: start() is what is tested."""
    started = []
    monkeypatch.setattr(sweeper, "_loop", lambda seconds: started.append(seconds))
    monkeypatch.setattr(sweeper, "_started_in", None)
    return started


def test_one_thread_a_process_started_by_its_first_request(quiet, settings):
    settings.LADDER_RUN_SWEEP_SECONDS = 30
    Client().get("/healthz")
    Client().get("/healthz")
    assert sweeper.start(30) is False  # already running in this process
    assert quiet == [30]


def test_a_forked_process_starts_its_own(quiet, monkeypatch):
    assert sweeper.start(30) is True
    monkeypatch.setattr(os, "getpid", lambda: -1)
    assert sweeper.start(30) is True
    assert quiet == [30, 30]


def test_none_in_background_mode_or_when_switched_off(quiet, settings):
    settings.LADDER_RUN_SWEEP_SECONDS = 30
    settings.LADDER_RECOMPUTE = "background"
    Client().get("/healthz")
    settings.LADDER_RECOMPUTE = "immediate"
    settings.LADDER_RUN_SWEEP_SECONDS = 0
    Client().get("/healthz")
    assert quiet == []
