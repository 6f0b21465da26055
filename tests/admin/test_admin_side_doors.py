"""The admin's side doors: every view of every registered model, walked as a superuser, leaves
every published list as it was and never answers 500; then one test per door that was open
(History revert, adding a period, deleting players and periods)."""

from __future__ import annotations

import re
from datetime import date
from http import HTTPStatus
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.contrib.messages import get_messages
from django.core.exceptions import ValidationError
from django.forms import MultiWidget
from django.urls import URLPattern, URLResolver, reverse

from ladder.records import (
    Game,
    PeriodStatus,
    Player,
    RatingPeriod,
    WebhookEndpoint,
    closed_message,
)
from ladder.writes import actions, webhooks
from ladder.writes.validation import GameEntry
from ratings.models import Publication, PublishedRating, RatingRun
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

TODAY = date(2026, 12, 1)  # the walk's "now": games may be dated up to 2027-01-31


def published() -> tuple[list[dict], ...]:
    """Every published list: its rows, every line of it, and the closed periods they publish
    (label, dates, status: a reopened period's list is no longer the published one)."""
    return (
        list(Publication.objects.order_by("pk").values()),
        list(PublishedRating.objects.order_by("pk").values()),
        list(RatingPeriod.objects.filter(publications__isnull=False).distinct()
             .order_by("pk").values("pk", "label", "start", "end", "status", "closed_at")),
    )  # fmt: skip


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


@pytest.fixture
def boss(db) -> User:
    return User.objects.create_superuser("boss", "boss@example.org", "pw")


@pytest.fixture
def boss_client(client, boss):
    client.force_login(boss)
    return client


@pytest.fixture
def lists(club, committed, boss, monkeypatch):
    """March and April closed (their lists published), May open with a game, June open and
    empty, a newcomer with no game and no published line."""
    monkeypatch.setattr("django.utils.timezone.localdate", lambda *a, **k: TODAY)
    alice, bob, carol, dan = club.values()

    def enter(day: date, white: Player, black: Player, result: str) -> None:
        with committed():
            actions.enter_games(games=[GameEntry(date=day, white=white, black=black,
                                                 result=result)], user=boss)  # fmt: skip

    listed = PlayerFactory(name="Olga Listed", entry_rating=1750)  # on the lists, no game
    enter(date(2026, 3, 3), alice, bob, "1-0")
    enter(date(2026, 3, 10), carol, dan, "1/2-1/2")
    actions.close_period(period=RatingPeriod.objects.get(label="2026-03"), user=boss)
    enter(date(2026, 4, 7), bob, carol, "0-1")
    actions.close_period(period=RatingPeriod.objects.get(label="2026-04"), user=boss)
    enter(date(2026, 5, 5), alice, dan, "1-0")
    june = actions.save_period(
        period=RatingPeriod(label="2026-06", start=date(2026, 6, 1), end=date(2026, 6, 30))
    )
    newcomer = PlayerFactory(name="Nina New")
    assert Publication.objects.count() == 6  # two periods, three lists
    # A webhook endpoint and a delivery: the walk reaches their pages and the send-test button
    # (events recorded, never sent: the test's transaction never commits).
    endpoint = WebhookEndpoint.objects.create(url="https://example.org/h", events=["run.failed"])
    webhooks.send_test_event(endpoint=endpoint)
    return {**club, "june": june, "newcomer": newcomer, "listed": listed}


# --- the walk -----------------------------------------------------------------------------------


def form_data(response) -> dict[str, Any]:
    """What the page's form would post as it stands (its fields and inline formsets)."""
    context = response.context
    if context is None or "adminform" not in context:
        return {}
    forms = [context["adminform"].form]
    for inline in context.get("inline_admin_formsets") or []:
        forms += [inline.formset.management_form, *inline.formset.forms]
    data: dict[str, Any] = {}
    for form in forms:
        for bound in form:
            value, widget = bound.value(), bound.field.widget
            if bound.field.disabled or value is None:
                continue
            if isinstance(widget, MultiWidget):
                for index, part in enumerate(widget.decompress(value)):
                    if part is not None:
                        data[f"{bound.html_name}_{index}"] = part
            elif isinstance(value, bool):
                if value:
                    data[bound.html_name] = "on"
            elif isinstance(value, list | tuple):
                data[bound.html_name] = [str(v) for v in value]
            else:
                data[bound.html_name] = value
    return data


def named_patterns(patterns) -> list[URLPattern]:
    found = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            found += named_patterns(pattern.url_patterns)
        elif pattern.name:
            found.append(pattern)
    return found


def parameters(pattern: URLPattern) -> set[str]:
    regex = pattern.pattern.regex
    if regex.groups and not regex.groupindex:  # simple-history's revert: two unnamed groups
        return {"object_id", "version_id"} if regex.groups == 2 else {f"{regex.groups} groups"}
    return set(getattr(pattern.pattern, "converters", {})) | set(regex.groupindex)


def site_urls() -> list[str]:
    """The site's own views (index, login, password change, ...), the apps' pages and
    "view on site" for each kind of object that has a page."""
    urls = []
    for pattern in admin.site.get_urls():
        if not isinstance(pattern, URLPattern) or not pattern.name:
            continue
        params = parameters(pattern)
        if not params:
            urls.append(reverse(f"admin:{pattern.name}"))
        elif params == {"app_label"}:
            labels = {model._meta.app_label for model in admin.site._registry}
            urls += [reverse("admin:app_list", args=[label]) for label in sorted(labels)]
        elif params == {"content_type_id", "object_id"}:
            for model in (Player, RatingPeriod):
                kind = ContentType.objects.get_for_model(model).pk
                urls += [reverse(f"admin:{pattern.name}", args=[kind, pk])
                         for pk in model.objects.values_list("pk", flat=True)]  # fmt: skip
        else:
            raise AssertionError(f"The walk has no values for {pattern.name}: {params}.")
    return urls


def model_urls(model, model_admin) -> dict[str, list[str]]:
    """Every named view of one model's admin, for every object (and every history version),
    by kind of view: the changelist, deletes, and the rest."""
    found: dict[str, list[str]] = {"changelist": [], "delete": [], "other": []}
    objects = list(model._default_manager.all())
    for pattern in named_patterns(model_admin.get_urls()):
        name, params = f"admin:{pattern.name}", parameters(pattern)
        if not params:
            urls = [reverse(name)]
        elif params in ({"object_id"}, {"id"}):  # {"id"}: a user's password page
            urls = [reverse(name, args=[quote(obj.pk)]) for obj in objects]
        elif params == {"object_id", "version_id"}:
            urls = [reverse(name, args=[quote(obj.pk), version])
                    for obj in objects
                    for version in obj.history.values_list("history_id", flat=True)]  # fmt: skip
        else:
            raise AssertionError(f"The walk has no values for {pattern.name}: {params}.")
        kind = pattern.name.rsplit("_", 1)[-1]
        found[kind if kind in found else "other"] += urls
    return found


# Plausible adds beside each add page's own defaults: the three periods that moved published
# lists, games in and before them, a newcomer.
ADDS: dict[str, list[dict[str, Any]]] = {
    "ladder_ratingperiod_add": [
        {"label": "2026-02", "start": "2026-02-01", "end": "2026-02-28"},
        {"label": "9999-01", "start": "9999-01-01", "end": "9999-01-31"},
        {"label": "2026-07", "start": "2026-07-01", "end": "2036-06-30"},
        {"label": "2026-07", "start": "2026-07-01", "end": "2026-07-31"},
    ],
    "ladder_game_add": [
        {"date": day, "result": "1-0"} for day in ("2026-03-20", "2026-02-10", "2026-05-20")
    ],  # fmt: skip
    "ladder_player_add": [{"name": "Walk Newcomer"}],
}


WALKED: list[tuple[str, str, int]] = []  # (method, url, status) of the walk's requests


def check(client, method: str, url: str, before, data: dict | None = None):
    response = getattr(client, method)(url, data or {})
    WALKED.append((method, url, response.status_code))
    assert response.status_code < HTTPStatus.INTERNAL_SERVER_ERROR, (method, url)
    assert published() == before, f"{method.upper()} {url} changed a published list"
    return response


def test_no_admin_view_changes_a_published_list_or_answers_500(boss_client, boss, lists):
    before = published()
    WALKED.clear()
    alice, bob = lists["Alice Brown"], lists["Bob Green"]
    pages = {model: model_urls(model, model_admin)
             for model, model_admin in admin.site._registry.items()}  # fmt: skip
    own_delete = reverse("admin:auth_user_delete", args=[boss.pk])

    for url in [*site_urls(), "/admin/no-such-page/"]:
        check(boss_client, "get", url, before)
    for url in site_urls():
        if not url.endswith("/logout/"):
            check(boss_client, "post", url, before)
    for found in pages.values():  # every form as it stands, history reverts included
        for url in found["other"]:
            page = check(boss_client, "get", url, before)
            check(boss_client, "post", url, before, form_data(page))
    for name, adds in ADDS.items():
        url = reverse(f"admin:{name}")
        defaults = form_data(boss_client.get(url))
        for data in adds:
            players = {"white": alice.pk, "black": bob.pk} if "result" in data else {}
            check(boss_client, "post", url, before, {**defaults, **players, **data})
    # Every bulk action but closing and reopening, whose job is to publish and to unpublish
    # (with a recorded reason; tests/admin/test_admin_periods.py).
    for model, found in pages.items():
        for url in found["changelist"]:
            check(boss_client, "get", url, before)
            request = boss_client.get(url).wsgi_request
            chosen = [quote(pk) for pk in model._default_manager.values_list("pk", flat=True)]
            for action in admin.site._registry[model].get_actions(request):
                if action not in ("close_periods", "reopen_periods"):
                    data = {"action": action, "_selected_action": chosen, "post": "yes",
                            "apply": "1", "reason": "The walk reopens it."}  # fmt: skip
                    check(boss_client, "post", url, before, data)
    for found in pages.values():  # deletes last: the object's page, then all of them at once
        for url in found["delete"]:
            if url != own_delete:
                check(boss_client, "get", url, before)
                check(boss_client, "post", url, before, {"post": "yes"})
    assert published() == before
    walked = {(method, url) for method, url, _ in WALKED}
    for model in admin.site._registry:  # the walk reached every model, reverts included
        opts = model._meta
        assert ("get", reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")) in walked
    for model in (Player, Game, RatingPeriod):
        revert = re.compile(rf"/admin/ladder/{model._meta.model_name}/\d+/history/\d+/")
        assert any(m == "post" and revert.fullmatch(url) for m, url in walked), model
    assert RatingPeriod.objects.filter(label__in=["2026-03", "2026-04"]).count() == 2
    assert not RatingPeriod.objects.filter(label__in=["2026-02", "9999-01"]).exists()


# --- History revert -----------------------------------------------------------------------------


def revert_url(obj, version) -> str:
    opts = obj._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_simple_history",
                   args=[obj.pk, version.history_id])  # fmt: skip


def test_reverting_a_closed_period_is_refused_and_changes_nothing(boss_client, lists):
    march = RatingPeriod.objects.get(label="2026-03")
    first = march.history.order_by("history_date").first()  # created open
    assert first.status == PeriodStatus.OPEN
    page = boss_client.get(revert_url(march, first))
    assert 'value="Revert"' not in page.content.decode()
    response = boss_client.post(revert_url(march, first), form_data(page))
    assert response.status_code == HTTPStatus.FOUND
    assert messages_of(response)[-1].startswith("Nothing was reverted. A period is not reverted")
    march.refresh_from_db()
    assert (march.status, march.log.count()) == (PeriodStatus.CLOSED, 1)


def test_reverting_a_frozen_game_is_refused_with_the_closed_message(boss_client, lists):
    game = Game.objects.get(date=date(2026, 3, 3))
    version = game.history.first()
    page = boss_client.get(revert_url(game, version))
    assert page.status_code == HTTPStatus.OK
    response = boss_client.post(revert_url(game, version), form_data(page))
    assert response.status_code == HTTPStatus.FOUND
    assert messages_of(response)[-1] == f"Nothing was reverted. {closed_message(game.period)}"


def test_reverting_an_open_game_is_a_correction(boss_client, lists, committed):
    game = Game.objects.get(date=date(2026, 5, 5))
    with committed():
        actions.correct_game(game=game, changes={"result": "0-1"})
    first = game.history.order_by("history_date").first()
    page = boss_client.get(revert_url(game, first))
    with committed():
        response = boss_client.post(revert_url(game, first), form_data(page))
    assert response.status_code == HTTPStatus.FOUND
    game.refresh_from_db()
    assert game.result == "1-0"
    assert RatingRun.objects.filter(reason=f"Game #{game.pk} corrected").count() == 2


def test_reverting_a_player_keeps_their_ratings_and_their_published_entry_data(boss_client, lists):
    alice = Player.objects.get(name="Alice Brown")
    rating = alice.rating
    first = alice.history.order_by("history_date").first()
    alice.name = "Alice Brown-Smith"
    actions.save_player(player=alice)
    page = boss_client.get(revert_url(alice, first))
    boss_client.post(revert_url(alice, first), form_data(page))
    alice.refresh_from_db()
    assert (alice.name, alice.rating) == ("Alice Brown", rating)  # derived state kept

    # Entry data behind the published list of March: refused with the validator's sentence.
    response = boss_client.post(revert_url(alice, first), {**form_data(page), "entry_rating": 1850})
    assert messages_of(response)[-1].startswith(
        "Nothing was reverted. Alice Brown has standard games in the published list of 2026-03"
    )
    alice.refresh_from_db()
    assert alice.entry_rating == 1900


# --- adding and changing periods ----------------------------------------------------------------

BEFORE_PUBLISHED = (
    "A period must start after 2026-04-30, the end of 2026-04 (the latest published list): its "
    "games would change lists already published."
)
FAR_AHEAD = (
    "A period cannot end after 2027-01-31, the last day a game may be dated today: 9999-01-31 "
    "is still to come."
)
TOO_LONG = (
    "A rating period is at most one month long (FIDE publishes its lists monthly): a period "
    "starting on 2026-07-01 ends on 2026-07-31 at the latest."
)
BAD_PERIODS = [
    pytest.param(("2026-02", date(2026, 2, 1), date(2026, 2, 28)), "start", BEFORE_PUBLISHED,
                 id="before-the-published-lists"),
    pytest.param(("9999-01", date(9999, 1, 1), date(9999, 1, 31)), "end", FAR_AHEAD,
                 id="year-9999"),
    pytest.param(("2026-07", date(2026, 7, 1), date(2026, 9, 30)), "end", TOO_LONG,
                 id="three-months"),
]  # fmt: skip


@pytest.mark.parametrize(("period", "field", "message"), BAD_PERIODS)
def test_a_bad_period_is_refused_by_the_admin_and_the_action_alike(
    boss_client, lists, period, field, message
):
    label, start, end = period
    data = {"label": label, "start": start.isoformat(), "end": end.isoformat()}
    response = boss_client.post(reverse("admin:ladder_ratingperiod_add"), data)
    assert response.status_code == HTTPStatus.OK
    assert response.context["adminform"].form.errors == {field: [message]}
    with pytest.raises(ValidationError) as refused:
        actions.save_period(period=RatingPeriod(label=label, start=start, end=end))
    assert refused.value.message_dict == {field: [message]}
    assert not RatingPeriod.objects.filter(label=label).exists()


def test_a_month_after_the_published_lists_is_added(boss_client, lists):
    url = reverse("admin:ladder_ratingperiod_add")
    data = {"label": "2026-07", "start": "2026-07-01", "end": "2026-07-31"}
    response = boss_client.post(url, {**form_data(boss_client.get(url)), **data})
    assert response.status_code == HTTPStatus.FOUND
    assert RatingPeriod.objects.get(label="2026-07").status == PeriodStatus.OPEN


def test_two_month_periods_in_fides_two_month_years(monkeypatch):
    monkeypatch.setattr("django.utils.timezone.localdate", lambda *a, **k: TODAY)
    actions.save_period(period=RatingPeriod(label="2010-01", start=date(2010, 1, 1),
                                            end=date(2010, 2, 28)))  # fmt: skip
    with pytest.raises(ValidationError) as refused:
        actions.save_period(period=RatingPeriod(label="2010-03", start=date(2010, 3, 1),
                                                end=date(2010, 5, 31)))  # fmt: skip
    assert refused.value.messages == [
        "A rating period is at most two months long (FIDE published its lists every two months "
        "until June 2012): a period starting on 2010-03-01 ends on 2010-04-30 at the latest."
    ]


def test_a_closed_periods_label_and_dates_never_change(boss_client, lists):
    march = RatingPeriod.objects.get(label="2026-03")
    url = reverse("admin:ladder_ratingperiod_change", args=[march.pk])
    boss_client.post(url, {"label": "2026-3", "start": "2026-02-15", "end": "2026-03-31"})
    march.refresh_from_db()
    assert (march.label, march.start, march.status) == ("2026-03", date(2026, 3, 1), "closed")
    march.start = date(2026, 2, 15)
    with pytest.raises(ValidationError) as refused:
        actions.save_period(period=march)
    assert refused.value.message_dict == {"start": [
        "The period 2026-03 is closed; its label and dates belong to its published list. Reopen "
        "it first (admin action 'Reopen', or: manage.py reopen_period 2026-03 --reason '...')."
    ]}  # fmt: skip


def test_an_open_periods_new_dates_are_rated_again(boss_client, lists, committed):
    june = lists["june"]
    url = reverse("admin:ladder_ratingperiod_change", args=[june.pk])
    data = {**form_data(boss_client.get(url)), "end": "2026-06-15"}
    with committed():
        response = boss_client.post(url, data)
    assert response.status_code == HTTPStatus.FOUND
    june.refresh_from_db()
    assert (june.end, june.status) == (date(2026, 6, 15), PeriodStatus.OPEN)
    assert RatingRun.objects.filter(reason="Full recompute from 2026-06 requested").exists()


# --- deleting players and periods ---------------------------------------------------------------


def delete_selected(client, model: str, *objects):
    data = {"action": "delete_selected", "_selected_action": [o.pk for o in objects], "post": "yes"}
    return client.post(reverse(f"admin:ladder_{model}_changelist"), data)


def test_a_player_with_games_or_a_published_line_is_not_deleted(boss_client, lists):
    alice, listed = lists["Alice Brown"], lists["listed"]
    assert PublishedRating.objects.filter(player=listed).exists()
    for player in (alice, listed):
        url = reverse("admin:ladder_player_delete", args=[player.pk])
        response = boss_client.post(url, {"post": "yes"})
        assert response.url == reverse("admin:ladder_player_change", args=[player.pk])
    assert messages_of(response) == [
        "Nothing was deleted. Alice Brown has games in the ladder; a player with games cannot be "
        "deleted.",
        "Nothing was deleted. Olga Listed is on the published list of 2026-03; published lists "
        "keep every line, so the player cannot be deleted.",
    ]
    response = delete_selected(boss_client, "player", alice, listed, lists["newcomer"])
    assert messages_of(response)[-1] == (
        "Nothing was deleted. Alice Brown has games in the ladder; a player with games cannot be "
        "deleted. Olga Listed is on the published list of 2026-03; published lists keep every "
        "line, so the player cannot be deleted."
    )
    assert Player.objects.filter(pk__in=[alice.pk, listed.pk, lists["newcomer"].pk]).count() == 3


def test_a_player_with_no_game_and_no_published_line_is_deleted(boss_client, lists):
    response = delete_selected(boss_client, "player", lists["newcomer"])
    assert response.status_code == HTTPStatus.FOUND
    assert not Player.objects.filter(name="Nina New").exists()


def test_a_closed_period_or_one_with_games_is_not_deleted(boss_client, lists):
    march, may = RatingPeriod.objects.filter(label__in=["2026-03", "2026-05"]).order_by("start")
    response = delete_selected(boss_client, "ratingperiod", march, may, lists["june"])
    assert messages_of(response) == [
        "Nothing was deleted. The period 2026-03 is closed; its published list is kept, so it "
        "cannot be deleted. The period 2026-05 holds 1 game; delete or move them first."
    ]
    url = reverse("admin:ladder_ratingperiod_delete", args=[march.pk])
    assert boss_client.get(url).status_code == HTTPStatus.FOUND
    assert RatingPeriod.objects.count() == 4


@pytest.mark.parametrize("door", ["page", "bulk"])
def test_an_empty_open_period_is_deleted(boss_client, lists, door):
    june = lists["june"]
    if door == "page":
        url = reverse("admin:ladder_ratingperiod_delete", args=[june.pk])
        response = boss_client.post(url, {"post": "yes"})
    else:
        response = delete_selected(boss_client, "ratingperiod", june)
    assert response.status_code == HTTPStatus.FOUND
    assert not RatingPeriod.objects.filter(label="2026-06").exists()
