"""The admin upload page and the API endpoints for tournament files."""

import html
from http import HTTPStatus

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from ladder.records import Game, Player
from tests.tournaments.files import ROUND_ROBIN, SWISS, put

pytestmark = pytest.mark.django_db

PAGE = "/admin/ladder/game/import-file/"
IMPORT = "/api/v1/tournaments/import/"
EXPORT = "/api/v1/tournaments/export/"
BAD = put(ROUND_ROBIN, "001    2", 49, "24O8")
BAD_MESSAGE = "Line 12, column 49: &#x27;24O8&#x27; is not a rating (a whole number)."


def upload(text, name="event.trf"):
    return SimpleUploadedFile(name, text.encode("utf-8"), content_type="text/plain")


@pytest.fixture
def api(admin_user):
    client = APIClient()
    client.force_authenticate(admin_user)
    return client


# --- admin ---------------------------------------------------------------------------------


def test_the_games_page_links_to_the_upload(admin_client):
    assert PAGE.encode() in admin_client.get("/admin/ladder/game/").content


def test_upload_preview_then_confirm(admin_client, committed):
    response = admin_client.post(PAGE, {"file": upload(ROUND_ROBIN), "_preview": "1"})
    assert response.status_code == HTTPStatus.OK
    page = response.content.decode()
    assert "TRF-16 file: &#x27;Spring Round Robin&#x27;, 3 rounds" in page
    assert "Players: 0 matched, 4 new." in page
    assert 'value="Import 6 games"' in page
    assert not Game.objects.exists()  # a preview writes nothing
    content = response.context["form"].initial["content"]
    with committed():
        response = admin_client.post(PAGE, {"content": content, "_import": "1"})
    assert Game.objects.count() == 6
    assert response.status_code == HTTPStatus.FOUND
    (message,) = [str(m) for m in response.wsgi_request._messages]
    assert message.startswith("Imported 6 games of 'Spring Round Robin' and 4 new players. ")
    assert "2026-03 recomputed" in message


def test_a_refused_file_shows_every_problem_and_saves_nothing(admin_client):
    response = admin_client.post(PAGE, {"file": upload(BAD), "_preview": "1"})
    page = response.content.decode()
    assert BAD_MESSAGE in page
    assert "Import " not in page.split('id="import-tournament-form"')[1].split("</form>")[0]
    assert not Player.objects.exists()


def test_the_same_event_twice_at_the_admin(admin_client):
    admin_client.post(PAGE, {"file": upload(ROUND_ROBIN), "_import": "1"})
    assert Game.objects.count() == 6
    response = admin_client.post(PAGE, {"file": upload(ROUND_ROBIN), "_preview": "1"})
    assert "This event was already imported on" in response.content.decode()
    assert Game.objects.count() == 6


def test_no_file(admin_client):
    response = admin_client.post(PAGE, {"_preview": "1"})
    assert "Choose a file to import." in response.content.decode()


def test_staff_without_the_permissions_cannot_import(client):
    client.force_login(User.objects.create_user("staff", is_staff=True))
    assert client.get(PAGE).status_code == HTTPStatus.FORBIDDEN


def test_the_admin_action_exports_the_event(admin_client):
    admin_client.post(PAGE, {"file": upload(ROUND_ROBIN), "_import": "1"})
    ids = list(Game.objects.values_list("pk", flat=True))
    response = admin_client.post("/admin/ladder/game/", {"action": "export_event_trf",
                                                         "_selected_action": ids})  # fmt: skip
    assert response["Content-Disposition"] == 'attachment; filename="spring-round-robin.trf"'
    assert response.content.decode().startswith("012 Spring Round Robin\n")


# --- API -----------------------------------------------------------------------------------


def test_api_preview_writes_nothing(api):
    response = api.post(IMPORT, {"file": upload(SWISS), "preview": "true"}, format="multipart")
    assert response.status_code == HTTPStatus.OK
    body = response.json()
    assert body["imported"] is False
    assert body["format"] == "TRF-2026"
    assert body["counts"] == {"players": 6, "matched": 0, "new": 6, "rated": 4, "forfeits": 2,
                              "short": 2, "pending": 1, "byes": 4}  # fmt: skip
    assert body["players"][0] == {"line": 6, "name": "Alpha, Anna", "player": None,
                                  "player_name": "Anna Alpha", "matched_by": "new"}  # fmt: skip
    assert "round 2: Gamma, Cem, half-point bye" in body["not_recorded"]
    assert body["games"] == []
    assert not Game.objects.exists()


def test_api_import(api):
    response = api.post(IMPORT, {"file": upload(ROUND_ROBIN), "event": "Cup"}, format="multipart")
    assert response.status_code == HTTPStatus.CREATED
    body = response.json()
    assert body["imported"] is True
    assert body["event"] == "Cup"
    assert sorted(body["games"]) == sorted(Game.objects.values_list("pk", flat=True))
    assert len(body["games"]) == 6


def test_api_refusal_is_a_400_with_the_line_and_column(api):
    response = api.post(IMPORT, {"file": upload(BAD)}, format="multipart")
    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert response.json() == {
        "file": ["Line 12, column 49: '24O8' is not a rating (a whole number)."]
    }
    assert not Player.objects.exists()


def test_api_needs_the_permissions(db):
    anonymous = APIClient()
    response = anonymous.post(IMPORT, {"file": upload(ROUND_ROBIN)}, format="multipart")
    assert response.status_code == HTTPStatus.UNAUTHORIZED
    viewer = APIClient()
    viewer.force_authenticate(User.objects.create_user("viewer"))
    response = viewer.post(IMPORT, {"file": upload(ROUND_ROBIN)}, format="multipart")
    assert response.status_code == HTTPStatus.FORBIDDEN


def test_api_export(api):
    api.post(IMPORT, {"file": upload(ROUND_ROBIN)}, format="multipart")
    response = api.get(EXPORT, {"event": "Spring Round Robin"})
    assert response.status_code == HTTPStatus.OK
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content.decode().startswith("012 Spring Round Robin\n")
    missing = APIClient().get(EXPORT, {"event": "Nothing"})
    assert missing.status_code == HTTPStatus.BAD_REQUEST
    assert missing.json() == {"event": ["No game has the event 'Nothing'."]}


# --- one rule, one sentence ----------------------------------------------------------------


def _through_command(tmp_path, text):
    path = tmp_path / "event.trf"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        call_command("import_trf", str(path))
    return str(caught.value).splitlines()[1:]


def _through_admin(admin_client, text):
    page = admin_client.post(PAGE, {"file": upload(text), "_preview": "1"}).content.decode()
    block = page.split('id="import-problems">')[1].split("</div>")[0]
    return [html.unescape(p) for p in block.split("<p>")[2:] for p in [p.split("</p>")[0]]]


def _through_api(api, text):
    return api.post(IMPORT, {"file": upload(text)}, format="multipart").json()["file"]


@pytest.mark.parametrize(
    "text",
    [BAD, put(ROUND_ROBIN, "001    4", 99, "1"), put(ROUND_ROBIN, "042", 5, "2026/13/45")],
    ids=["rating", "disagree", "date"],
)
def test_every_door_gives_the_same_sentences(tmp_path, admin_client, api, text):
    expected = _through_command(tmp_path, text)
    assert expected
    assert _through_admin(admin_client, text) == expected
    assert _through_api(api, text) == expected


def test_api_export_of_a_name_no_event_can_have(api):
    response = APIClient().get(EXPORT, {"event": "Open\x00"})
    assert response.status_code == HTTPStatus.BAD_REQUEST


def test_an_event_on_several_lists_is_exported_one_list_at_a_time(api, tmp_path):
    api.post(IMPORT, {"file": upload(ROUND_ROBIN)}, format="multipart")
    game = Game.objects.filter(event="Spring Round Robin").first()
    # The same name on the rapid list (another side of a festival, say).
    Game.objects.create(
        date=game.date, white=game.white, black=game.black, result="1-0", event=game.event,
        rating_list="rapid", period=game.period,
    )  # fmt: skip
    both = APIClient().get(EXPORT, {"event": "Spring Round Robin"})
    assert both.status_code == HTTPStatus.CONFLICT
    assert both.json() == {
        "event": [
            "The event 'Spring Round Robin' has games on several lists (rapid, standard); a "
            "TRF holds one: choose the list."
        ]
    }
    standard = APIClient().get(EXPORT, {"event": "Spring Round Robin", "rating_list": "standard"})
    assert standard.status_code == HTTPStatus.OK
    assert standard.content.decode().startswith("012 Spring Round Robin\n")
    rapid = APIClient().get(EXPORT, {"event": "Spring Round Robin", "rating_list": "rapid"})
    assert rapid.status_code == HTTPStatus.OK
    assert rapid.content.decode().count("\n001 ") == 2
    bad = APIClient().get(EXPORT, {"event": "Spring Round Robin", "rating_list": "fast"})
    assert bad.status_code == HTTPStatus.BAD_REQUEST
    assert bad.json() == {"rating_list": ["'fast' is not a list; use standard, rapid or blitz."]}
    with pytest.raises(CommandError, match="several lists"):
        call_command("export_trf", "--event", "Spring Round Robin")
    out = tmp_path / "rapid.trf"
    call_command("export_trf", "--event", "Spring Round Robin", "--list", "rapid", "--output", out)
    assert out.read_text().startswith("012 Spring Round Robin\n")


def test_the_import_states_the_events_characters(api):
    schema = api.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    event = schema["components"]["schemas"]["TournamentFileRequest"]["properties"]["event"]
    assert "\\u0000" in event["pattern"]
    answer = api.post(IMPORT, {"file": upload(ROUND_ROBIN), "event": "Cup\x1b"}, format="multipart")
    assert answer.status_code == HTTPStatus.BAD_REQUEST
    assert answer.json() == {
        "event": ["Contains the control character U+001B; use plain printable text."]
    }
