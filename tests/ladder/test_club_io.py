"""export_club / import_club: a club survives the round trip whole -- every list as published,
every revision, every live list -- and a damaged file is refused, naming where."""

from __future__ import annotations

import json
from datetime import date
from io import StringIO

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.core.management import CommandError, call_command
from django.test import override_settings

from ladder.files import backup
from ladder.records import (
    ApiToken,
    BaseCorrection,
    FideListEntry,
    Game,
    NotDuplicate,
    PeriodLog,
    Player,
    PlayerMerge,
    RatingList,
    RatingPeriod,
    Tournament,
)
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings import runs, selectors
from ratings.models import Publication, PublishedRating, RatingChange, RatingRun
from tests.factories import PlayerFactory, UnratedPlayerFactory

pytestmark = pytest.mark.django_db(transaction=True)

CHANGE_FIELDS = [f.attname for f in RatingChange._meta.fields if f.name != "id"]
PUBLICATION_FIELDS = [
    "pk",
    "period_id",
    "rating_list",
    "revision",
    "published_at",
    "published_by__username",
    "reason",
    "corrected_in_id",
    "players_changed",
    "differences",
]


def club(*, second_record=False):
    """Three lists, two closed months and an open one; July reopened, corrected and closed
    again (a revision of July and of August), then August reopened. ``second_record``: a
    second record of the first player ("Dup", no FIDE id) plays the fifth in every month."""
    players = [
        PlayerFactory(
            fide_id=100 + i,
            entry_rating=1500 + 50 * i,
            rapid_entry_rating=1450 + 40 * i,
            rapid_entry_rated_games=30,
            blitz_entry_rating=1400 + 30 * i,
            blitz_entry_rated_games=30,
        )
        for i in range(6)
    ]
    players.append(UnratedPlayerFactory(fide_id=200))
    controls = ["", "", "", "", "15+10", "3+2"]
    games = [
        GameEntry(
            date=date(2026, month, 2 + i),
            white=players[i],
            black=players[(i + month - 5) % 7],
            result=["1-0", "0-1", "1/2-1/2"][(i + month) % 3],
            time_control=controls[i],
        )
        for month in (7, 8, 9)
        for i in range(6)
    ]
    if second_record:
        dup = PlayerFactory(name="Dup", fide_id=None, entry_rating=1550, federation="NOR")
        games += [
            GameEntry(date=date(2026, month, 20), white=dup, black=players[4], result="1-0")
            for month in (7, 8, 9)
        ]
    actions.enter_games(games=games)
    boss = User.objects.create_superuser("boss", "boss@example.org", "secret-pw")
    secretary = User.objects.create_user("sec", password="also-secret")
    group, _ = Group.objects.get_or_create(name="Club administrators")
    group.permissions.set(Permission.objects.filter(codename__in=["add_game", "change_game"]))
    secretary.groups.add(group)
    secretary.user_permissions.add(Permission.objects.get(codename="add_player"))
    ApiToken.issue(secretary, days=9)
    july, august = (RatingPeriod.objects.get(label=label) for label in ("2026-07", "2026-08"))
    for period in (july, august):
        actions.close_period(period=period, user=boss)
    actions.reopen_period(period=july, reason="Wrong result\nin round 1", user=boss)
    game = Game.objects.filter(period=july, rating_list=RatingList.STANDARD).first()
    actions.correct_game(game=game, changes={"result": "0-1" if game.result != "0-1" else "1-0"})
    actions.close_period(period=july, user=boss)
    actions.reopen_period(period=august, reason="Typo", user=boss)


def snapshot():
    """Everything a reader can see: every list (live and published, every revision), the
    players' histories and state, the periods with their log, the runs' outcomes."""
    periods = list(RatingPeriod.objects.order_by("start"))
    live = {
        (p.label, name): [e.as_dict() for e in selectors.rating_list(p, name)]
        for p in periods
        for name in RatingList.values
    }
    published = list(Publication.objects.order_by("pk").values_list(*PUBLICATION_FIELDS))
    lines = list(
        PublishedRating.objects.order_by("publication_id", "player_id").values_list(
            "publication_id", "player_id", "status", "rating", "change", "k", "games", "total_games"
        )
    )
    histories = list(
        RatingChange.objects.order_by("player_id", "rating_list", "period__start").values_list(
            *CHANGE_FIELDS
        )
    )
    players = list(Player.objects.order_by("pk").values())
    for player in players:
        del player["created"], player["updated"]
    logs = list(
        PeriodLog.objects.order_by("at").values_list(
            "period__label", "action", "reason", "user__username", "at"
        )
    )
    states = list(RatingPeriod.objects.values_list("pk", "label", "status", "closed_at"))
    games = list(
        Game.objects.order_by("pk").values_list(
            "pk", "date", "white_id", "black_id", "result", "period_id", "rating_list"
        )
    )
    return live, published, lines, histories, players, logs, states, games


def finished_runs():
    return list(
        RatingRun.objects.filter(status__in=["done", "failed"])
        .order_by("pk")
        .values_list("pk", "status", "rating_list", "reason", "summary", "periods", "finished_at")
    )


def export(tmp_path):
    path = tmp_path / "club.json"
    call_command("export_club", str(path), stderr=StringIO())
    return path


def empty_the_club():
    for model in (
        RatingChange,
        PublishedRating,
        Publication,
        PlayerMerge,
        NotDuplicate,
        BaseCorrection,
        FideListEntry,
        Game,
        Tournament,
        PeriodLog,
        RatingRun,
        RatingPeriod,
        Player,
        ApiToken,
        User,
        Group,
    ):
        if model is Player:
            Player.objects.filter(merged_into__isnull=False).delete()  # they protect the kept
        model.objects.all().delete()


def restore(path, *args):
    out = StringIO()
    call_command("import_club", str(path), *args, stdout=out)
    return out.getvalue()


def test_a_club_round_trips_with_every_list_published_and_live_identical(tmp_path):
    club()
    before, runs_before = snapshot(), finished_runs()
    assert len(before[1]) > 6, "revisions were published"
    assert {p[2] for p in before[1]} == set(RatingList.values)
    path = export(tmp_path)
    text = path.read_text()
    for secret in ("secret-pw", "pbkdf2", "digest"):  # no password, hash or token
        assert secret not in text
    document = json.loads(text)
    assert (document["format"], document["version"]) == ("ladder-club", 6)
    empty_the_club()

    output = restore(path)

    assert "Restored 2 users, 7 players, 3 periods, 18 games, " in output
    assert "Rapid list: 2026-07 to 2026-09 recomputed" in output
    assert "Blitz list: 2026-07 to 2026-09 recomputed" in output
    assert snapshot() == before
    assert finished_runs()[: len(runs_before)] == runs_before  # then the recompute's own run
    sec = User.objects.get(username="sec")
    assert not sec.has_usable_password()
    assert sec.has_perm("ladder.add_game")
    assert sec.has_perm("ladder.add_player")
    assert not ApiToken.objects.exists()


def test_a_restored_club_goes_on_as_before(tmp_path):
    club()
    path = export(tmp_path)
    empty_the_club()
    restore(path)
    september = RatingPeriod.objects.get(label="2026-09")
    actions.close_period(period=RatingPeriod.objects.get(label="2026-08"))
    actions.close_period(period=september)
    assert Publication.objects.filter(period=september).count() == 3
    restored = max(Player.objects.values_list("pk", flat=True))
    assert Player.objects.create(name="Newcomer").pk > restored  # the ids go on after the file's


_EXPORTED: list[str] = []  # the club's export, built once: the tampered cases change a copy


def tamper(tmp_path, change):
    if not _EXPORTED:
        club()
        _EXPORTED.append(export(tmp_path).read_text())
        empty_the_club()
    document = json.loads(_EXPORTED[0])
    change(document)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(document))
    return path


def december_game_in_july(document):
    july = next(p["id"] for p in document["periods"] if p["label"] == "2026-07")
    document["games"][3].update(date="2026-12-05", period=july, tournament=None)


def december_game_in_a_july_tournament(document):
    document["games"][3].update(date="2026-12-05")


def tournament_rated_too_late(document):
    document["periods"].append(
        {"id": 999, "label": "2026-11", "start": "2026-11-01", "end": "2026-11-30",
         "status": "open", "closed_at": None, "log": []}
    )  # fmt: skip
    document["tournaments"][0]["rated_in"] = 999


def overlapping_periods(document):
    document["periods"][1]["start"] = "2026-07-20"


def game_in_2999(document):
    document["games"][5]["date"] = "2999-01-01"


def unknown_player(document):
    document["games"][2]["white"] = 999999


def bad_birth_year(document):
    document["players"][1]["birth_year"] = "nineteen"


def publication_of_no_period(document):
    document["publications"][0]["period"] = 4242


def unknown_user(document):
    document["periods"][0]["log"][0]["user"] = "nobody"


TAMPERED = {
    "a December game attached to July": (
        december_game_in_july,
        "games[3].date: The game is dated 2026-12-05, outside its period "
        "2026-07 (2026-07-01 to 2026-07-31).",
    ),
    "a December game in a July tournament": (
        december_game_in_a_july_tournament,
        "games[3].date: 2026-12-05 lies outside the tournament Games of 2026-07 "
        "(2026-07-01 to 2026-07-31).",
    ),
    "a tournament rated past the third list after it": (
        tournament_rated_too_late,
        "tournaments[0].rated_in: The period 2026-11 is past the third list after the "
        "tournament's end (2026-07-31): FIDE does not rate a report that late (9.1).",
    ),
    "overlapping periods": (
        overlapping_periods,
        "periods[1].start: The period 2026-08 (2026-07-20 to 2026-08-31) "
        "overlaps 2026-07 (2026-07-01 to 2026-07-31); periods cannot overlap.",
    ),
    "a label that is a path": (
        lambda d: d["periods"][0].update(label="../../x"),
        "periods[0].label: A period label is letters, digits",
    ),
    "a game dated 2999": (game_in_2999, "games[5].date: A game cannot be dated after"),
    "a player who is not in the file": (
        unknown_player,
        "games[2].white: No player of the file has the id 999999.",
    ),
    "a birth year that is no number": (
        bad_birth_year,
        "players[1].birth_year: 'nineteen' is not a whole number.",
    ),
    "a negative entry rating": (
        lambda d: d["players"][0].update(entry_rating=-5),
        "players[0].entry_rating: ",
    ),
    "a publication of no period": (
        publication_of_no_period,
        "publications[0].period: No period of the file has the id 4242.",
    ),
    "a user who is not in the file": (
        unknown_user,
        "periods[0].log[0].user: No user is named 'nobody' in the file.",
    ),
    "a player twice": (
        lambda d: d["players"][2].update(id=d["players"][1]["id"]),
        "players[2].id: Another player of the file has this id (players[1]).",
    ),
    "a revision naming a player by a name": (
        lambda d: d["publications"][-1].update(differences=[["Alice", 1, 2, 3, 4]]),
        "differences: Each difference is [player id, old rating, new rating, old change, "
        "new change].",
    ),
    "a username that is no username": (
        lambda d: d["users"][0].update(username="bad name!"),
        "users[0].username: Enter a valid username.",
    ),
    "a player against themselves": (
        lambda d: d["games"][4].update(black=d["games"][4]["white"]),
        "games[4].black: A player cannot play themselves.",
    ),
    "a group with no name": (
        lambda d: d["groups"][0].update(name=""),
        "groups[0].name: This field cannot be blank.",
    ),
    "a game missing its result": (
        lambda d: d["games"][0].pop("result"),
        "games[0].result: This value is missing.",
    ),
}


@pytest.mark.parametrize("case", TAMPERED)
def test_a_tampered_file_is_refused_naming_where_and_nothing_changes(tmp_path, case):
    change, message = TAMPERED[case]
    path = tamper(tmp_path, change)
    with pytest.raises(CommandError) as refused:
        restore(path)
    assert str(refused.value).startswith("Nothing was restored.\n")
    assert message in str(refused.value)
    for model in (Player, RatingPeriod, Game, Publication, RatingRun, User):
        assert not model.objects.exists(), model


def test_every_problem_of_a_file_is_named_at_once(tmp_path):
    def two(document):
        game_in_2999(document)
        bad_birth_year(document)

    path = tamper(tmp_path, two)
    with pytest.raises(CommandError) as refused:
        restore(path)
    assert "games[5].date" in str(refused.value)
    assert "players[1].birth_year" in str(refused.value)


def test_import_refuses_a_club_that_is_not_empty_unless_told_to_replace(tmp_path):
    club()
    path = export(tmp_path)
    before = snapshot()
    with pytest.raises(
        CommandError,
        match=r"The club is not empty \(7 players, 3 periods, "
        r"18 games\): restore into a new database, or give --replace",
    ):
        restore(path)
    assert snapshot() == before
    PlayerFactory(name="Someone added since")
    actions.enter_games(
        games=[
            GameEntry(
                date=date(2026, 10, 3),
                white=Player.objects.first(),
                black=Player.objects.last(),
                result="1-0",
            )
        ]
    )

    restore(path, "--replace")

    assert not Player.objects.filter(name="Someone added since").exists()
    assert snapshot() == before


def test_a_replace_refused_by_a_bad_file_leaves_the_club_as_it_was(tmp_path):
    restore(tamper(tmp_path, lambda document: None))
    path = tamper(tmp_path, game_in_2999)
    before = snapshot()
    with pytest.raises(CommandError, match=r"games\[5\]\.date"):
        restore(path, "--replace")
    assert snapshot() == before


def test_a_version_1_file_is_still_restored_and_its_closed_lists_published_again(tmp_path):
    alice, bob = PlayerFactory(fide_id=11), PlayerFactory(fide_id=12)
    actions.enter_games(
        games=[
            GameEntry(date=date(2026, month, 4), white=alice, black=bob, result="1-0")
            for month in (3, 4)
        ]
    )
    actions.close_period(period=RatingPeriod.objects.get(label="2026-03"))
    path = export(tmp_path)
    document = json.loads(path.read_text())
    document["version"] = 1  # as version 1 wrote it: no publications, no runs, no game ids
    for game in document["games"]:
        del game["id"]
    del document["publications"], document["runs"]
    path.write_text(json.dumps(document))
    live, published, lines, *inputs, games = snapshot()
    assert len(published) == 3  # one a list
    empty_the_club()

    output = restore(path)

    assert "Restored 0 users, 2 players, 2 periods, 2 games, 0 publications." in output
    live_after, published_after, lines_after, *inputs_after, games_after = snapshot()
    assert (live_after, inputs_after) == (live, inputs)
    assert [game[1:] for game in games_after] == [game[1:] for game in games]  # new game ids
    # The list of the closed month is published as it was (nothing has changed since).
    assert [p[1:4] + p[5:] for p in published_after] == [p[1:4] + p[5:] for p in published]
    assert [line[1:] for line in lines_after] == [line[1:] for line in lines]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2", "is not JSON"),
        ('{"format": "other"}', "This is not a Ladder club export"),
        ('{"format": "ladder-club", "version": 9}', "this Ladder reads versions 1, 2, 3, 4"),
        ('{"format": "ladder-club", "version": 2, "players": 3}', "players: A list was expected."),
        (
            '{"format": "ladder-club", "version": 2, "games": [7]}',
            "games[0]: An object was expected.",
        ),
    ],
)
def test_a_file_that_is_no_export_is_refused(tmp_path, text, message):
    path = tmp_path / "club.json"
    path.write_text(text)
    with pytest.raises(CommandError) as refused:
        restore(path)
    assert message in str(refused.value)
    assert not User.objects.exists()


def test_an_export_takes_a_fixed_number_of_queries(django_assert_max_num_queries):
    club()
    with django_assert_max_num_queries(19):  # a query a kind of record
        document = backup.export_club()
    assert len(document["publications"]) == Publication.objects.count()


@override_settings(
    LADDER_RECOMPUTE="background",
    TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}},
)
def test_in_background_mode_the_restore_leaves_the_ratings_to_a_worker(tmp_path):
    alice, bob = PlayerFactory(fide_id=11), PlayerFactory(fide_id=12)
    actions.enter_games(
        games=[GameEntry(date=date(2026, 3, 4), white=alice, black=bob, result="1-0")]
    )
    runs.execute_pending()
    path = export(tmp_path)
    before = snapshot()
    empty_the_club()

    output = restore(path)

    assert "a worker (manage.py rating_worker) will rate it" in output
    runs.execute_pending()  # what the worker's task does
    assert snapshot() == before


# --- who is who: merges, answers, base corrections and FIDE's rows (version 5) ---------------


def merged_club():
    """The club with a second record of its first player merged into it (games in a closed
    month among those moved, and a base correction), an earlier merge undone, a "not a
    duplicate" answer and FIDE's rows of October. Return the two records and the club's
    state before the merge (``never_merged``)."""
    club(second_record=True)
    boss = User.objects.get(username="boss")
    kept, dup = Player.objects.get(fide_id=100), Player.objects.get(name="Dup")
    september = RatingPeriod.objects.get(label="2026-09")
    actions.save_base_correction(
        correction=BaseCorrection(player=dup, period=september, rating=1560, reason="FIDE's"),
        user=boss,
    )
    twin = PlayerFactory(name="Twin", fide_id=None, entry_rating=1500)
    actions.merge_players(keep=Player.objects.get(fide_id=101).pk, other=twin.pk, reason="Same")
    actions.unmerge_players(other=twin.pk, reason="Twins after all")
    actions.mark_not_duplicate(
        first=Player.objects.get(fide_id=102), second=Player.objects.get(fide_id=103), user=boss
    )
    for fide_id in (100, 104, 999_999):  # the last one is no player of the club
        FideListEntry.objects.create(
            month=date(2026, 10, 1), fide_id=fide_id, name=f"Player {fide_id}", federation="NOR",
            standard_rating=1700, standard_games=3, standard_k=20, birth_year=1990,
        )  # fmt: skip
    baseline = never_merged()
    actions.merge_players(keep=kept.pk, other=dup.pk, reason="One person, two cards", user=boss)
    return kept, dup, baseline


def who_is_who():
    """The merges, answers, base corrections and FIDE rows as stored (users by name)."""
    merges = PlayerMerge.objects.order_by("pk").values_list(
        "pk", "kept_id", "merged_id", "reason", "user__username", "at", "from_period_id",
        "moved", "undone_at", "undone_by__username", "undo_reason",
    )  # fmt: skip
    answers = NotDuplicate.objects.order_by("pk").values_list(
        "pk", "first_id", "second_id", "user__username", "at", "note"
    )
    corrections = BaseCorrection.objects.order_by("pk").values_list(
        "pk", "player_id", "period_id", "rating_list", "rating", "reason", "user__username", "at"
    )
    fide = FideListEntry.objects.order_by("month", "fide_id").values()
    return (
        list(merges),
        list(answers),
        list(corrections),
        [{k: v for k, v in row.items() if k != "id"} for row in fide],
    )


def never_merged():
    """What an unmerge must give back (test_merges' state, but a restored player's moment of
    creation is the restore's)."""
    from tests.ladder.test_merges import state

    found = state()
    found["players"] = sorted(
        Player.objects.values_list(
            *(
                f.attname
                for f in Player._meta.concrete_fields
                if f.name not in ("created", "updated")
            )
        )
    )
    return found


def test_a_club_with_merges_round_trips_and_unmerges_after_the_restore(tmp_path, client):
    kept, dup, unmerged = merged_club()
    assert never_merged() != unmerged
    before, identity = snapshot(), who_is_who()
    assert len(identity[0]) == 2
    assert len(identity[3]) == 3
    path = export(tmp_path)
    document = json.loads(path.read_text())
    assert [row["fide_id"] for row in document["fide_list"]] == [100, 104]  # the club's only
    empty_the_club()
    FideListEntry.objects.create(month=date(2026, 10, 1), fide_id=104, name="Held already")

    output = restore(path)

    assert "1 base corrections, 2 merges, 1 not-duplicate answers, 2 FIDE list rows" in output
    assert snapshot() == before
    restored = who_is_who()
    assert restored[:3] == identity[:3]
    held = [row for row in restored[3] if row["fide_id"] == 104]
    assert held[0]["name"] == "Held already"  # a row FIDE's list held already stays
    # The merged id still leads to the kept player at every door.
    page = client.get(f"/players/{dup.pk}/")
    assert (page.status_code, page["Location"]) == (301, f"/players/{kept.pk}/")
    read = client.get(f"/api/v1/players/{dup.pk}/")
    assert read.status_code == 301
    assert read.json()["merged_into"] == kept.pk
    client.force_login(User.objects.get(username="boss"))
    written = client.patch(
        f"/api/v1/players/{dup.pk}/", {"name": "X"}, content_type="application/json"
    )
    assert written.status_code == 410

    actions.unmerge_players(other=dup.pk, reason="Not one person after all")

    after = never_merged()
    assert after == unmerged  # every history row, player, list and latest published list


_MERGED: list[str] = []  # the merged club's export, built once


def tamper_merged(tmp_path, change):
    if not _MERGED:
        merged_club()
        _MERGED.append(export(tmp_path).read_text())
        empty_the_club()
    document = json.loads(_MERGED[0])
    change(document)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(document))
    return path


def dup_index(document):
    return next(i for i, p in enumerate(document["players"]) if p["name"] == "Dup")


def twice_merged(document):
    document["merges"][0].update(undone_at=None, merged=document["merges"][1]["merged"])


TAMPERED_MERGES = {
    "a merged record without its merge": (
        lambda d: d["merges"].pop(),
        lambda d: (
            f"players[{dup_index(d)}].merged_into: No merge of the file (not undone) "
            f"merges this player into player {d['players'][0]['id']}."
        ),
    ),
    "a merge of a player not marked merged": (
        lambda d: d["players"][dup_index(d)].update(merged_into=None),
        lambda d: (
            f"merges[1].merged: The player {d['players'][dup_index(d)]['id']} is not "
            f"marked merged into player {d['players'][0]['id']}."
        ),
    ),
    "a merge into no player of the file": (
        lambda d: d["merges"][1].update(kept=4242),
        lambda d: "merges[1].kept: No player of the file has the id 4242.",
    ),
    "what a merge moved, broken": (
        lambda d: d["merges"][1].update(moved={"white": ["game 3"]}),
        lambda d: 'merges[1].moved: What a merge moved is {"white": [game ids], ',
    ),
    "a merge that is no object": (
        lambda d: d["merges"][1].update(moved=[1, 2]),
        lambda d: "merges[1].moved: [1, 2] is not an object.",
    ),
    "a player merged twice": (
        twice_merged,
        lambda d: "merges[1].merged: This player is merged already (merges[0]).",
    ),
    "a merge without a reason": (
        lambda d: d["merges"][1].update(reason=""),
        lambda d: "merges[1].reason: This field cannot be blank.",
    ),
    "an answer with the higher id first": (
        lambda d: d["not_duplicates"][0].update(
            first=d["not_duplicates"][0]["second"], second=d["not_duplicates"][0]["first"]
        ),
        lambda d: "not_duplicates[0].second: The lower id comes first",
    ),
    "a base correction of no period": (
        lambda d: d["base_corrections"][0].update(period=4242),
        lambda d: "base_corrections[0].period: No period of the file has the id 4242.",
    ),
    "a base correction by no user": (
        lambda d: d["base_corrections"][0].update(user="nobody"),
        lambda d: "base_corrections[0].user: No user is named 'nobody' in the file.",
    ),
    "a FIDE row dated mid-month": (
        lambda d: d["fide_list"][0].update(month="2026-10-15"),
        lambda d: "fide_list[0].month: A list's month is its first day (YYYY-MM-01).",
    ),
    "a FIDE row twice": (
        lambda d: d["fide_list"].append(d["fide_list"][0]),
        lambda d: (
            "fide_list[2].month: Another row of the file has this month and FIDE id (fide_list[0])."
        ),
    ),
}


@pytest.mark.parametrize("case", TAMPERED_MERGES)
def test_a_tampered_merge_is_refused_naming_where_and_nothing_changes(tmp_path, case):
    change, message = TAMPERED_MERGES[case]
    path = tamper_merged(tmp_path, change)
    with pytest.raises(CommandError) as refused:
        restore(path)
    assert message(json.loads(path.read_text())) in str(refused.value)
    for model in (Player, PlayerMerge, BaseCorrection, NotDuplicate, FideListEntry, User):
        assert not model.objects.exists(), model


def test_a_club_with_merges_is_replaced_whole(tmp_path):
    restore(tamper_merged(tmp_path, lambda document: None))
    before, identity = snapshot(), who_is_who()
    restore(tamper_merged(tmp_path, lambda document: None), "--replace")
    assert snapshot() == before
    assert who_is_who()[:3] == identity[:3]


def test_a_version_4_file_restores_a_merged_record_as_a_player_of_its_own(tmp_path):
    def as_version_4(document):
        document["version"] = 4
        for key in ("base_corrections", "merges", "not_duplicates", "fide_list"):
            del document[key]
        for player in document["players"]:
            del player["merged_into"]

    output = restore(tamper_merged(tmp_path, as_version_4))
    assert "merges" not in output
    assert not Player.objects.filter(merged_into__isnull=False).exists()
    dup = Player.objects.get(name="Dup")
    assert not Game.objects.filter(white=dup).exists()  # its games were the kept player's
