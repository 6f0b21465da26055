"""Bulk data: whole lists and histories streamed as CSV and JSON lines, validated by ETag."""

from __future__ import annotations

import csv
import io
import json
from datetime import date
from http import HTTPStatus

import pytest
from django.http import StreamingHttpResponse

from ladder.api import bulk
from ladder.files.exports import csv_chunks, csv_text
from ladder.records import Player
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from tests.factories import PlayerFactory, UnratedPlayerFactory

pytestmark = pytest.mark.django_db

BULK = "/api/v1/bulk/rating-list/"
LIST = "/api/v1/rating-list/"


def history_url(player: Player) -> str:
    return f"/api/v1/bulk/players/{player.pk}/history/"


def body(response) -> str:
    assert isinstance(response, StreamingHttpResponse)  # never the whole list in memory
    return b"".join(response.streaming_content).decode()


def json_lines(response) -> list[dict]:
    return [json.loads(line) for line in body(response).splitlines()]


def csv_rows(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(body(response))))


def as_csv(row: dict) -> dict:
    """A JSON row as the CSV writes its cells."""
    return {k: "" if v is None else str(v) for k, v in row.items()}


def ordinary(client, **params) -> list[dict]:
    answer = client.get(LIST, params).json()
    assert answer["next"] is None  # one page: the whole list
    return answer["results"]


@pytest.fixture
def mixed(club, committed):
    """The club, plus a player with entry data only and one whose name is a formula."""
    with committed():
        PlayerFactory(name="Dora Entry", entry_rating=1900)
        UnratedPlayerFactory(name="=HYPERLINK(0)")
    return club


# --- the content: the ordinary rating list's, whole --------------------------------------------


@pytest.mark.parametrize("which", ["march", "april_period"])
def test_a_live_list_has_the_rating_lists_rows_in_both_formats(anon, mixed, which):
    period = getattr(mixed, which).pk
    expected = ordinary(anon, period=period)
    assert len(expected) == 5

    lines = json_lines(anon.get(BULK, {"period": period, "format": "jsonl"}))
    rows = csv_rows(anon.get(BULK, {"period": period, "format": "csv"}))

    assert lines == expected  # every field, every value, the same order
    formula = {**as_csv(next(r for r in expected if r["name"] == "=HYPERLINK(0)"))}
    formula["name"] = "'=HYPERLINK(0)"  # neutralised, as every CSV Ladder writes
    assert rows == [formula if r["name"] == "=HYPERLINK(0)" else as_csv(r) for r in expected]


def test_the_default_is_the_latest_period_and_other_lists_read_too(anon, mixed):
    assert json_lines(anon.get(BULK, {"format": "jsonl"})) == ordinary(anon)
    rapid = json_lines(anon.get(BULK, {"format": "jsonl", "list": "rapid"}))
    assert rapid == ordinary(anon, list="rapid")


def test_a_closed_period_streams_its_published_list(anon, closed_march):
    march = closed_march.march
    expected = ordinary(anon, period=march.pk)
    assert expected[0]["revision"] == 1

    assert json_lines(anon.get(BULK, {"period": march.pk, "format": "jsonl"})) == expected
    by_label = anon.get(BULK, {"period_label": "2026-03", "format": "csv"})
    assert csv_rows(by_label) == [as_csv(row) for row in expected]
    both = anon.get(BULK, {"period": march.pk, "period_label": "2026-03", "format": "jsonl"})
    assert json_lines(both) == expected  # naming the same period both ways
    assert by_label["Content-Disposition"] == (
        'attachment; filename="rating-list-standard-2026-03-r1.csv"'
    )


def test_a_published_list_after_a_revision(anon, closed_march, committed, editor_user):
    march = closed_march.march
    first = json_lines(anon.get(BULK, {"period": march.pk, "format": "jsonl"}))
    actions.reopen_period(period=march, reason="Entered reversed.", user=editor_user)
    with committed():
        actions.correct_game(game=closed_march.win, changes={"result": "0-1"})
    actions.close_period(period=march, user=editor_user)

    latest = json_lines(anon.get(BULK, {"period": march.pk, "format": "jsonl"}))
    assert {row["revision"] for row in latest} == {2}
    assert latest == ordinary(anon, period=march.pk)
    anna = next(row for row in latest if row["name"] == "Anna Alekhina")
    assert anna["rating"] < 2000  # the reversed game: a loss
    as_first = anon.get(BULK, {"period": march.pk, "revision": 1, "format": "jsonl"})
    assert json_lines(as_first) == first
    official = anon.get(BULK, {"as_published": "true", "format": "jsonl"})
    assert json_lines(official) == ordinary(anon, as_published="true")


def test_a_players_whole_history_in_both_formats(anon, club):
    history = anon.get(f"/api/v1/players/{club.anna.pk}/history/").json()["results"]
    assert len(history) == 2
    expected = [
        {
            "period_id": entry["period"]["id"],
            "period": entry["period"]["label"],
            "start": entry["period"]["start"],
            "end": entry["period"]["end"],
            **{k: v for k, v in entry.items() if k not in {"period", "lines"}},
        }
        for entry in history
    ]

    assert json_lines(anon.get(history_url(club.anna), {"format": "jsonl"})) == expected
    rows = csv_rows(anon.get(history_url(club.anna), HTTP_ACCEPT="text/csv"))
    assert rows == [as_csv(row) for row in expected]


def test_rows_are_written_in_pieces_that_make_the_same_file(anon, mixed, monkeypatch):
    whole = {name: body(anon.get(BULK, {"format": name})) for name in ("csv", "jsonl")}
    monkeypatch.setattr(bulk, "ROWS_PER_CHUNK", 2)

    for name, text in whole.items():
        pieces = list(anon.get(BULK, {"format": name}).streaming_content)
        assert len(pieces) == 3, name  # 5 rows (and the CSV's header with the first piece)
        assert b"".join(pieces).decode() == text
    rows = [("=1+1", None, True, -8), ("@SUM", "x", False, 0), ("+/-", "-8.40", None, 1)]
    header = ("a", "b", "c", "d")
    assert (
        "".join(csv_chunks(header, rows, size=2))
        == csv_text(header, rows)
        == ("a,b,c,d\n'=1+1,,True,-8\n'@SUM,x,False,0\n+/-,-8.40,,1\n")
    )


# --- formats ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "media"),
    [
        ("text/csv", "text/csv"),
        ("application/x-ndjson", "application/x-ndjson"),
        ("application/jsonl", "application/jsonl"),
        ("application/json;q=0.9, application/x-ndjson", "application/x-ndjson"),
        ("*/*", "text/csv"),
        ("", "text/csv"),
    ],
)
def test_the_accept_header_chooses_the_format(anon, club, accept, media):
    response = anon.get(BULK, HTTP_ACCEPT=accept) if accept else anon.get(BULK)

    assert response.status_code == HTTPStatus.OK
    assert response["Content-Type"] == f"{media}; charset=utf-8"
    text = body(response)
    assert text.startswith("id,name,") if media == "text/csv" else json.loads(text.split("\n")[0])
    assert "Accept" in response["Vary"]


def test_format_wins_over_accept(anon, club):
    response = anon.get(BULK, {"format": "jsonl"}, HTTP_ACCEPT="text/csv")
    assert response["Content-Type"] == "application/x-ndjson; charset=utf-8"


def test_an_accept_header_for_neither_is_406_in_json(anon, club):
    response = anon.get(BULK, HTTP_ACCEPT="application/json")

    assert response.status_code == HTTPStatus.NOT_ACCEPTABLE
    assert "format=csv" in response.json()["detail"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"format": "xml"}, "format"),
        ({"period": "march"}, "period"),
        ({"period": "0"}, "period"),
        ({"list": "chess"}, "list"),
        ({"revision": "0"}, "revision"),
        ({"as_published": "maybe"}, "as_published"),
        ({"as_published": "true"}, "as_published"),  # nothing published yet
        ({"period": "1", "period_label": "2026-04"}, "period_label"),  # another period
    ],
)
def test_bad_parameters_are_400_naming_the_field(anon, club, params, field):
    if params.get("period") == "1":
        params = {**params, "period": club.march.pk}

    response = anon.get(BULK, params)

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response["Content-Type"] == "application/json"
    assert field in response.json(), response.json()


def test_a_revision_never_published_is_400_naming_it(anon, closed_march):
    response = anon.get(BULK, {"period": closed_march.march.pk, "revision": 9})

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == {
        "revision": ["The standard list of 2026-03 has no revision 9: it has revisions 1 to 1."]
    }


def test_unknown_periods_and_players_are_404(anon, club):
    assert anon.get(BULK, {"period": 999_999}).status_code == HTTPStatus.NOT_FOUND
    unknown = anon.get(BULK, {"period_label": "1999-01"})
    assert unknown.status_code == HTTPStatus.NOT_FOUND
    assert "period_label" in unknown.json()["detail"]
    assert anon.get("/api/v1/bulk/players/999999/history/").status_code == HTTPStatus.NOT_FOUND
    bad = anon.get(history_url(club.anna), {"list": "chess", "format": "csv"})
    assert bad.status_code == HTTPStatus.BAD_REQUEST
    assert "list" in bad.json()


def test_a_list_with_no_period_yet_is_every_players_entry(anon, db):
    PlayerFactory(name="Eve Early", entry_rating=1700)
    UnratedPlayerFactory(name="Finn First")

    assert json_lines(anon.get(BULK, {"format": "jsonl"})) == ordinary(anon)
    assert body(anon.get(BULK, {"format": "csv"})).count("\n") == 3


# --- conditional requests --------------------------------------------------------------------


def test_a_conditional_get_is_304_until_the_data_changes(
    anon, club, committed, django_assert_max_num_queries
):
    first = anon.get(BULK, {"format": "csv"})
    etag, modified = first["ETag"], first["Last-Modified"]
    body(first)
    assert first["Cache-Control"] == "no-cache"

    with django_assert_max_num_queries(1):  # the data version, nothing read nor streamed
        unchanged = anon.get(BULK, {"format": "csv"}, HTTP_IF_NONE_MATCH=etag)
    assert unchanged.status_code == HTTPStatus.NOT_MODIFIED
    assert not isinstance(unchanged, StreamingHttpResponse)
    assert unchanged.content == b""
    assert unchanged["ETag"] == etag
    since = anon.get(BULK, {"format": "csv"}, HTTP_IF_MODIFIED_SINCE=modified)
    assert since.status_code == HTTPStatus.NOT_MODIFIED
    # Another representation of the same list has its own validator.
    other = anon.get(BULK, {"format": "jsonl"}, HTTP_IF_NONE_MATCH=etag)
    assert other.status_code == HTTPStatus.OK
    assert other["ETag"] != etag

    with committed():
        actions.enter_games(
            games=[
                GameEntry(date=date(2026, 4, 20), white=club.cleo, black=club.anna, result="1-0")
            ]  # fmt: skip
        )
    changed = anon.get(BULK, {"format": "csv"}, HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == HTTPStatus.OK
    assert changed["ETag"] != etag
    assert body(changed) != body(first)


def test_a_histories_conditional_get(anon, club):
    first = anon.get(history_url(club.anna), {"format": "jsonl"})
    again = anon.get(history_url(club.anna), {"format": "jsonl"}, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == HTTPStatus.NOT_MODIFIED


def test_head_answers_the_headers_without_the_body(anon, club):
    response = anon.head(BULK, {"format": "jsonl"})

    assert response.status_code == HTTPStatus.OK
    assert not isinstance(response, StreamingHttpResponse)
    assert response.content == b""
    assert response["ETag"]
    assert response["Content-Type"].startswith("application/x-ndjson")


# --- queries: constant whatever the size -------------------------------------------------------


@pytest.mark.parametrize("size", [3, 40])
def test_streams_read_in_a_constant_number_of_queries(
    anon, closed_march, django_assert_max_num_queries, size
):
    PlayerFactory.create_batch(size)
    # the data version, the period (or the latest publication), the publication, its lines
    for params in (
        {"format": "csv"},
        {"format": "jsonl", "period": closed_march.march.pk},
        {"format": "csv", "as_published": "true"},
        {"format": "jsonl", "period_label": "2026-03", "revision": 1},
    ):
        with django_assert_max_num_queries(4):
            rows = body(anon.get(BULK, params)).count("\n")
        assert rows >= 3, params
    with django_assert_max_num_queries(3):  # the data version, the player, the history
        body(anon.get(history_url(closed_march.anna), {"format": "csv"}))


# --- the schema --------------------------------------------------------------------------------


def test_the_schema_documents_the_streams_and_their_media_types(anon):
    paths = anon.get("/api/v1/schema/?format=json").json()["paths"]

    for path in ("/api/v1/bulk/rating-list/", "/api/v1/bulk/players/{id}/history/"):
        get = paths[path]["get"]
        assert {"text/csv", "application/x-ndjson", "application/jsonl"} <= set(
            get["responses"]["200"]["content"]
        ), path
        assert {"304", "400", "404", "406"} <= set(get["responses"]), path
        names = {p["name"] for p in get["parameters"]}
        assert {"format", "list"} <= names, path
    names = {p["name"] for p in paths["/api/v1/bulk/rating-list/"]["get"]["parameters"]}
    assert {"period", "period_label", "as_published", "revision"} <= names
