"""Round entry: preview with each line's problem, then all games saved at once."""

from datetime import date
from http import HTTPStatus

import pytest

from ladder.records import Game, Player, RatingPeriod
from tests.factories import GameFactory, PeriodFactory, PlayerFactory

pytestmark = pytest.mark.django_db

URL = "/admin/ladder/game/enter-round/"
ROWS = 10


def post_round(client, *, paste="", rows=(), day="2026-03-14", save=False, **header):
    data = {
        "date": day,
        "event": header.get("event", ""),
        "round": header.get("round", ""),
        "paste": paste,
        "rows-TOTAL_FORMS": str(ROWS),
        "rows-INITIAL_FORMS": "0",
        "rows-MIN_NUM_FORMS": "0",
        "rows-MAX_NUM_FORMS": "1000",
    }
    for number, (white, black, result) in enumerate(rows):
        data |= {f"rows-{number}-white": white, f"rows-{number}-black": black}
        data[f"rows-{number}-result"] = result
    data["_save" if save else "_preview"] = "1"
    return client.post(URL, data)


def test_changelist_links_to_round_entry(admin_client):
    response = admin_client.get("/admin/ladder/game/")
    assert URL.encode() in response.content
    assert b"Enter a round" in response.content


def test_form_offers_players_in_a_datalist(admin_client, club):
    response = admin_client.get(URL)
    assert response.status_code == HTTPStatus.OK
    assert '<option value="Alice Brown" label="1900, FIDE 1001">' in response.content.decode()


def test_preview_saves_nothing_and_offers_save(admin_client, club):
    response = post_round(admin_client, paste="Alice Brown - Bob Green 1-0\n1003 - 1004 ½-½")
    assert response.status_code == HTTPStatus.OK
    assert Game.objects.count() == 0
    content = response.content.decode()
    assert content.count(">OK<") == 2
    assert 'value="Save 2 games"' in content


def test_save_records_all_games_and_says_what_the_recompute_changed(admin_client, club, committed):
    paste = "\n".join(
        [
            "Alice Brown - Bob Green 1-0",
            "1003 - 1004 =",
            "# a comment line is skipped",
            "",
            "Bob Green - Carol White 1/2",
        ]
    )
    with committed():
        response = post_round(
            admin_client,
            paste=paste,
            rows=[("Dan Black", "alice brown", "0-1")],
            save=True,
            event="Spring Open",  # no round: each player plays twice (one round: refused)
        )
    assert response.status_code == HTTPStatus.FOUND
    games = list(Game.objects.order_by("pk").values_list("white__name", "black__name", "result"))
    assert games == [
        ("Dan Black", "Alice Brown", "0-1"),
        ("Alice Brown", "Bob Green", "1-0"),
        ("Carol White", "Dan Black", "1/2-1/2"),
        ("Bob Green", "Carol White", "1/2-1/2"),
    ]
    assert set(Game.objects.values_list("event", "round", "date")) == {
        ("Spring Open", "", date(2026, 3, 14))
    }
    # K 20 for all: Alice +10 (2 of 1.49), Bob -10 (0.5 of 1.00); Carol and Dan round to 0.
    messages = [str(m) for m in response.wsgi_request._messages]
    assert messages == [
        "Saved 4 games of 2026-03-14 (Spring Open). 2026-03 recomputed: 2 players' ratings changed."
    ]
    assert Player.objects.get(name="Alice Brown").rating == 1910
    assert Player.objects.get(name="Bob Green").rating == 1790


def test_unplayed_results_are_understood(admin_client, club, committed):
    with committed():
        post_round(
            admin_client,
            paste="Alice Brown - Bob Green +/-\nCarol White - Dan Black 0-0",
            save=True,
        )
    assert sorted(Game.objects.values_list("result", flat=True)) == ["+/-", "0-0"]


PROBLEMS = [
    (
        "Alise Brown - Bob Green 1-0",
        "No player is named 'Alise Brown'. Did you mean 'Alice Brown'?",
    ),
    ("9999 - Bob Green 1-0", "No player has the FIDE id 9999."),
    (
        "Alice Brown - Alice Brown 1-0",
        "A player cannot play themselves.",
    ),
    (
        "Alice Brown - Bob Green 2-0",
        "'2-0' is not a result; use 1-0, 0-1, 1/2-1/2, +/-, -/+ or 0-0.",
    ),
    (
        "Alice Brown beat Bob Green",
        "'Alice Brown beat Bob Green' is not a game; write 'White Name - Black Name 1-0'.",
    ),
]


@pytest.mark.parametrize(("line", "problem"), PROBLEMS)
def test_each_problem_is_shown_and_nothing_is_saved(admin_client, club, line, problem):
    response = post_round(admin_client, paste=f"Carol White - Dan Black 1-0\n{line}", save=True)
    assert response.status_code == HTTPStatus.OK
    content = response.content.decode()
    assert problem.replace("'", "&#x27;") in content
    assert "1 line needs correcting (of 2); nothing was saved." in content
    assert 'id="save-round"' not in content
    assert Game.objects.count() == 0


def test_ambiguous_name_asks_for_the_fide_id(admin_client, club):
    PlayerFactory(name="Alice Brown", fide_id=2001)
    response = post_round(admin_client, rows=[("Alice Brown", "Bob Green", "1-0")])
    assert (
        "Several players are named &#x27;Alice Brown&#x27;; enter the FIDE id instead "
        "(1001, 2001)." in response.content.decode()
    )
    response = post_round(admin_client, rows=[("2001", "Bob Green", "1-0")])
    assert ">OK<" in response.content.decode()


def test_row_with_a_missing_player_or_result(admin_client, club):
    response = post_round(admin_client, rows=[("Alice Brown", "", "")])
    content = response.content.decode()
    assert "Black is missing." in content
    assert "The result is missing." in content


def test_duplicate_of_a_recorded_game_is_refused(admin_client, club, march):
    game = GameFactory(
        date=date(2026, 3, 14), white=club["Alice Brown"], black=club["Bob Green"], result="1-0"
    )
    response = post_round(
        admin_client, paste="Alice Brown - Bob Green 0-1\nBob Green - Alice Brown 1-0"
    )
    content = response.content.decode()
    assert (
        f"This game is already recorded: Alice Brown - Bob Green 1-0 on 2026-03-14 "
        f"(game #{game.pk})." in content
    )
    assert content.count(">OK<") == 1  # the same players with the colours reversed are fine


def test_game_entered_twice_is_refused(admin_client, club):
    response = post_round(
        admin_client,
        rows=[("Alice Brown", "Bob Green", "1-0")],
        paste="1001 - 1002 1-0",
    )
    assert "This game repeats row 1." in response.content.decode()


def test_closed_period_is_refused(admin_client, club, march):
    march.status = "closed"
    march.save()
    response = post_round(admin_client, paste="Alice Brown - Bob Green 1-0", save=True)
    assert (
        "The period 2026-03 is closed; its games are frozen. Reopen it first"
        in response.content.decode()
    )
    assert Game.objects.count() == 0


def test_an_empty_round_is_refused(admin_client):
    response = post_round(admin_client)
    assert "Enter at least one game, in the rows or in the paste box." in response.content.decode()


def test_invalid_date_is_a_form_error(admin_client, club):
    response = post_round(admin_client, day="14/03/2026", paste="Alice Brown - Bob Green 1-0")
    assert "Enter a valid date." in response.content.decode()
    assert Game.objects.count() == 0


def test_preview_queries_do_not_grow_with_lines(admin_client, django_assert_max_num_queries):
    players = PlayerFactory.create_batch(80)
    for count in (3, 40):
        paste = "\n".join(
            f"{players[2 * i].name} - {players[2 * i + 1].name} 1-0" for i in range(count)
        )
        with django_assert_max_num_queries(12):
            response = post_round(admin_client, paste=paste)
        assert response.content.decode().count(">OK<") == count


@pytest.mark.parametrize("save", [False, True])
def test_a_date_no_period_can_hold_is_refused(admin_client, club, save):
    PeriodFactory(label="Spring", start=date(2026, 3, 10), end=date(2026, 4, 9))
    response = post_round(
        admin_client, day="2026-04-20", paste="Alice Brown - Bob Green 1-0", save=save
    )
    assert (
        "No rating period holds 2026-04-20, and the month&#x27;s period would overlap Spring; "
        "create a period for this date first." in response.content.decode()
    )
    assert Game.objects.count() == 0
    assert not RatingPeriod.objects.filter(label="2026-04").exists()


@pytest.mark.parametrize("day", ["1899-12-31", "3000-01-01"])
def test_a_date_outside_1900_to_2999_is_a_form_error_before_the_preview(admin_client, club, day):
    response = post_round(admin_client, day=day, paste="Alice Brown - Bob Green 1-0")
    html = response.content.decode()
    assert "A game must be dated between 1900-01-01 and 2999-12-31." in html
    assert ">OK<" not in html
    assert Game.objects.count() == 0


def test_did_you_mean_is_fixed_in_one_click(admin_client, club):
    preview = post_round(
        admin_client,
        paste="Alise Brown - Bob Green 1-0\nCarol White - Dan Black 0-1",
        rows=[("alise brown", "Dan Black", "1-0")],
    ).content.decode()
    assert 'name="_fix" value="Alise Brown&#10;Alice Brown"' in preview
    data = {
        "date": "2026-03-14", "event": "", "round": "",
        "paste": "Alise Brown - Bob Green 1-0\r\nCarol White - Dan Black 0-1",
        "rows-TOTAL_FORMS": str(ROWS), "rows-INITIAL_FORMS": "0",
        "rows-MIN_NUM_FORMS": "0", "rows-MAX_NUM_FORMS": "1000",
        "rows-0-white": "alise brown", "rows-0-black": "Dan Black", "rows-0-result": "1-0",
        "_fix": "Alise Brown\r\nAlice Brown",  # a browser sends the newline as CR LF
    }  # fmt: skip
    fixed = admin_client.post(URL, data)
    content = fixed.content.decode()
    assert content.count(">OK<") == 3  # the paste and the row now name Alice Brown
    assert "Alice Brown - Bob Green 1-0" in content
    assert 'value="Save 3 games"' in content
    assert Game.objects.count() == 0  # a fix previews; it never saves


def test_existing_events_are_suggested_and_the_paste_box_comes_first(admin_client, club):
    GameFactory(white=club["Alice Brown"], black=club["Bob Green"], event="Club Championship")
    page = admin_client.get(URL).content.decode()
    assert 'list="ladder-events"' in page
    assert '<option value="Club Championship"></option>' in page
    assert page.index('name="paste"') < page.index('name="rows-0-white"')


def test_after_saving_a_round_the_list_shows_that_dates_games(admin_client, club, committed):
    with committed():
        response = post_round(
            admin_client, paste="Alice Brown - Bob Green 1-0", day="2026-03-14", save=True
        )
    assert response.status_code == HTTPStatus.FOUND
    assert response.url == "/admin/ladder/game/?date__year=2026&date__month=3&date__day=14"
    listing = admin_client.get(response.url)
    assert [g.date for g in listing.context["cl"].result_list] == [date(2026, 3, 14)]
