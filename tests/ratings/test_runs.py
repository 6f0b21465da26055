"""Rating runs: a change records a durable request, runs coalesce, execute, fail and recover."""

from datetime import date
from http import HTTPStatus
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction
from django.test import override_settings
from django.urls import reverse

from ladder.records import Game, Player
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings import runs
from ratings.exceptions import RunQueueError
from ratings.models import RatingChange, RatingRun
from ratings.recompute import services
from ratings.runs import queue
from tests.factories import GameFactory, PlayerFactory
from tests.ratings.snapshots import snapshot

pytestmark = pytest.mark.django_db

BACKGROUND = {
    "LADDER_RECOMPUTE": "background",
    "TASKS": {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}},
}


def test_a_change_records_a_queued_run_in_its_own_transaction():
    a, b = PlayerFactory(), PlayerFactory()
    with transaction.atomic():
        game = GameFactory(white=a, black=b)
        run = RatingRun.objects.get()
        assert (run.status, run.from_period, run.players) == ("queued", game.period, [a.pk, b.pk])
        transaction.set_rollback(True)
    assert not RatingRun.objects.exists()  # rolled back with the change: nothing to rate


def test_a_raw_orm_save_is_rated(committed):
    a, b = PlayerFactory(entry_rating=1800), PlayerFactory(entry_rating=1800)
    with committed():
        Game.objects.create(date=date(2026, 3, 5), white=a, black=b, result="1-0")
    a.refresh_from_db()
    assert a.rating > 1800
    assert RatingRun.objects.get().status == "done"


def test_changes_while_a_run_waits_merge_into_it():
    players = PlayerFactory.create_batch(6)
    GameFactory(date=date(2026, 4, 5), white=players[0], black=players[1])
    GameFactory(date=date(2026, 2, 5), white=players[2], black=players[3])
    GameFactory(date=date(2026, 3, 5), white=players[4], black=players[5])
    run = RatingRun.objects.get()  # the test transaction never commits: nothing ran yet
    assert run.changes == 3
    assert run.from_period.label == "2026-02"  # the earliest dirty period
    assert run.players == sorted(p.pk for p in players)


def test_a_crash_after_the_commit_loses_nothing():
    # The change committed, but the process died before its run executed (simulated by not
    # running the on-commit callbacks): the queued run records it, and the next executor rates it.
    a, b = PlayerFactory(entry_rating=1800), PlayerFactory(entry_rating=1800)
    GameFactory(white=a, black=b, result="1-0")
    a.refresh_from_db()
    assert a.rating == 1800
    (run,) = runs.execute_pending()
    assert run.status == "done"
    a.refresh_from_db()
    assert a.rating > 1800


def test_an_entry_data_change_is_rated_from_the_players_first_game(committed):
    a, b = PlayerFactory(entry_rating=1800), PlayerFactory(entry_rating=1800)
    with committed():
        GameFactory(date=date(2026, 3, 5), white=a, black=b, result="1-0")
        GameFactory(date=date(2026, 5, 5), white=a, black=b, result="1-0")
    with committed():
        player = Player.objects.get(pk=a.pk)
        player.entry_rating = 1500
        actions.save_player(player=player)
    run = RatingRun.objects.order_by("-pk").first()
    assert (run.status, run.from_period.label, run.players) == ("done", "2026-03", [a.pk])
    state = snapshot()
    services.recompute_from(None)
    assert snapshot() == state
    assert Player.objects.get(pk=a.pk).rating < 1600


def test_a_failing_run_is_recorded_retried_and_left_failed(committed, monkeypatch):
    def fail(*args, **kwargs):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(services, "recompute_from", fail)
    with committed():
        GameFactory()
    run = RatingRun.objects.get()
    assert run.status == "failed"
    assert run.attempts == runs.MAX_ATTEMPTS
    assert "RuntimeError: the disk is full" in run.error
    assert runs.freshness().failed_run == run.pk
    assert not RatingChange.objects.exists()  # rolled back: no half-written period
    monkeypatch.undo()
    with committed():
        GameFactory()  # the next change rates everything again
    assert RatingRun.objects.order_by("-pk").first().status == "done"
    assert runs.freshness().failed_run is None


def test_a_run_abandoned_by_a_dead_process_is_retried(committed):
    with committed():
        GameFactory(result="1-0")
    expected = snapshot()
    RatingChange.objects.all().delete()
    RatingRun.objects.create(status="running", players=None, attempts=1, reason="killed")
    (run,) = runs.execute_pending()
    assert (run.status, run.attempts) == ("done", 2)
    assert snapshot() == expected


def test_freshness_says_what_is_rated_and_what_waits(committed):
    assert runs.freshness() == runs.Freshness(rated_up_to=None, pending=0, failed_run=None)
    assert runs.freshness().current  # no run yet: nothing waits
    with committed():
        GameFactory()
    found = runs.freshness()
    assert found.rated_up_to == RatingRun.objects.get().last_change_at
    assert found.current
    GameFactory()  # not committed: its run waits
    assert runs.freshness().pending == 1


def test_pages_say_how_fresh_the_ratings_are(client, committed):
    with committed():
        GameFactory()
    assert "Rated up to the change of" in client.get(reverse("ladder:standings")).content.decode()
    GameFactory()
    page = client.get(reverse("ladder:standings")).content.decode()
    assert "are still being rated" in page


def test_api_lists_runs_and_freshness(client, committed):
    with committed():
        GameFactory()
    body = client.get("/api/v1/freshness/").json()
    assert (body["pending"], body["current"]) == (0, True)
    runs_page = client.get("/api/v1/rating-runs/?status=done").json()
    assert runs_page["count"] == 1
    assert runs_page["results"][0]["summary"].endswith("players' ratings changed.")
    assert "error" not in runs_page["results"][0]
    assert client.get("/api/v1/rating-runs/?status=bogus").status_code == HTTPStatus.BAD_REQUEST


@override_settings(**BACKGROUND)
def test_background_mode_queues_one_task_and_leaves_the_run_queued(committed):
    from django_tasks_db.models import DBTaskResult

    with committed():
        actions.enter_games(
            games=[
                GameEntry(
                    date=date(2026, 3, 2),
                    white=PlayerFactory(),
                    black=PlayerFactory(),
                    result="1-0",
                )
                for _ in range(3)
            ]  # fmt: skip
        )
        GameFactory()
    run = RatingRun.objects.get()
    assert run.status == "queued"
    assert DBTaskResult.objects.count() == 1  # one task, however many changes merged
    assert str(DBTaskResult.objects.get().id) == run.task_id
    assert "a worker (manage.py rating_worker) will rate it" in runs.describe(run)
    (done,) = runs.execute_pending()  # what the worker's task does
    assert done.status == "done"


def test_recompute_command_goes_through_a_run(committed):
    with committed():
        GameFactory()
    out = StringIO()
    call_command("recompute_ratings", stdout=out)
    assert "recomputed" in out.getvalue()
    run = RatingRun.objects.order_by("-pk").first()
    assert (run.status, run.players, run.reason) == (
        "done",
        None,
        "Full recompute of every period requested",
    )
    with pytest.raises(CommandError, match="No rating period is labelled '1999-01'"):
        call_command("recompute_ratings", "--from", "1999-01")


def test_worker_refuses_to_start_in_immediate_mode():
    with pytest.raises(CommandError, match="set LADDER_RECOMPUTE=background"):
        call_command("rating_worker", "--batch")


@pytest.mark.parametrize("user_name", ["admin"])
def test_admin_lists_runs_read_only(admin_client, committed, user_name):
    with committed():
        GameFactory()
    run = RatingRun.objects.get()
    page = admin_client.get(reverse("admin:ratings_ratingrun_changelist")).content.decode()
    assert "Game #" in page
    change = admin_client.get(reverse("admin:ratings_ratingrun_change", args=[run.pk]))
    assert change.status_code == HTTPStatus.OK
    assert 'name="_save"' not in change.content.decode()
    assert admin_client.get(reverse("admin:ratings_ratingrun_add")).status_code == 403


def test_a_database_error_inside_a_run_rolls_it_back_and_is_recorded(committed, monkeypatch):
    from django.db import connection

    real = services.recompute_from

    def write_then_fail(*args, **kwargs):
        real(*args, **kwargs)  # every row written...
        with connection.cursor() as cursor:
            cursor.execute("SELECT * FROM no_such_table")  # ...then the database refuses

    monkeypatch.setattr(services, "recompute_from", write_then_fail)
    with committed():
        GameFactory()
    run = RatingRun.objects.get()
    assert run.status == "failed"
    assert "no_such_table" in run.error
    assert not RatingChange.objects.exists()  # the run's writes were rolled back


def test_the_work_of_a_run_that_gave_up_is_taken_on_by_the_next_run(committed, monkeypatch):
    def fail(*args, **kwargs):
        raise RuntimeError("the disk is full")

    a, b = PlayerFactory(entry_rating=1800), PlayerFactory(entry_rating=1800)
    monkeypatch.setattr(services, "recompute_from", fail)
    with committed():
        GameFactory(date=date(2026, 3, 5), white=a, black=b, result="1-0")
    failed = RatingRun.objects.get()
    assert failed.status == "failed"
    monkeypatch.undo()
    with committed():  # a later change about other players, in a later month
        GameFactory(date=date(2026, 5, 5))
    failed.refresh_from_db()
    later = failed.folded_into
    assert later.status == "done"
    assert later.from_period.label == "2026-03"
    assert {a.pk, b.pk} <= set(later.players)
    assert Player.objects.get(pk=a.pk).rating > 1800  # rated after all
    state = snapshot()
    services.recompute_from(None)
    assert snapshot() == state
    assert runs.freshness().failed_run is None


@override_settings(**BACKGROUND)
def test_full_recomputes_of_the_three_lists_execute_in_one_pass(committed, monkeypatch):
    """``recompute_ratings`` queues a full run per list; the executor takes them together
    (``services.recompute_lists``), records each, and leaves a partial run of a list alone."""
    with committed():
        GameFactory(rating_list="rapid", time_control="15+10")
        GameFactory(rating_list="blitz", time_control="3+2")
    runs.execute_pending()
    passes = []
    together = services.recompute_lists

    def recompute_lists(*args, **kwargs):
        passes.append(sorted(kwargs["rating_lists"]))
        return together(*args, **kwargs)

    monkeypatch.setattr(services, "recompute_lists", recompute_lists)
    with committed():
        actions.recompute(period=None, rating_list=None)
    queued = RatingRun.objects.filter(status="queued")
    assert sorted(queued.values_list("rating_list", flat=True)) == ["blitz", "rapid", "standard"]
    done = runs.execute_pending()
    assert passes == [["blitz", "rapid", "standard"]]
    assert sorted(run.rating_list for run in done) == ["blitz", "rapid", "standard"]
    assert all(run.status == "done" and run.periods for run in done)
    blitz = RatingRun.objects.get(pk=next(run.pk for run in done if run.rating_list == "blitz"))
    assert (blitz.rows_written, blitz.status) == (2, "done")


def test_merging_into_a_run_taken_meanwhile_says_so_in_a_sentence():
    """A request that saw a queued run, which a worker took before the request could join it,
    raises a clear error (a real check: ``python -O`` strips asserts) and saves nothing."""
    with pytest.raises(RunQueueError) as caught, transaction.atomic():
        queue.merge_into_waiting("rapid", None, [1], "Game #1 entered", None)
    assert str(caught.value) == (
        "The queued rating run of the rapid list was taken by another process while more work "
        "was joining it, so nothing was saved. Please try again."
    )
    assert not RatingRun.objects.exists()


def test_freshness_reads_what_every_run_says(django_assert_num_queries):
    """Runs are kept for good; freshness reads only those that can move it (waiting, failed,
    the latest change done), and says what the whole table says."""
    from datetime import timedelta

    from django.utils import timezone

    now = timezone.now()

    def run(status, minutes, folded_into=None):
        return RatingRun.objects.create(
            status=status, reason="test", last_change_at=now - timedelta(minutes=minutes),
            folded_into=folded_into,
        )  # fmt: skip

    def expected():
        every = list(RatingRun.objects.select_related("folded_into"))
        done = [r.last_change_at for r in every if r.status == "done"]
        unhealed = [
            r.pk for r in every if r.status == "failed"
            and (r.folded_into is None or r.folded_into.status != "done")
        ]  # fmt: skip
        return runs.Freshness(
            rated_up_to=max(done, default=None),
            pending=sum(r.status in ("queued", "running") for r in every),
            failed_run=max(unhealed, default=None),
        )

    assert runs.freshness() == expected()
    latest = run("done", 1)
    run("done", 30)  # made later, an earlier change: not the latest change rated
    run("failed", 40, folded_into=latest)  # healed: a later run did its work
    assert runs.freshness() == expected()
    assert runs.freshness().rated_up_to == latest.last_change_at
    assert runs.freshness().failed_run is None
    waiting = run("queued", 0)
    run("failed", 50, folded_into=waiting)  # its work still waits
    alone = run("failed", 60)
    run("running", 0)
    with django_assert_num_queries(1):
        found = runs.freshness()
    assert found == expected()
    assert (found.pending, found.failed_run) == (2, alone.pk)
