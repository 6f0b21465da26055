"""The API reads JSON bodies only (the tournament import a multipart file): any other body is a
415 that names what the endpoint reads, and the schema declares that one type per write."""

from http import HTTPStatus
from urllib.parse import urlencode

import pytest
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from ladder.api.parsers import NamedMediaTypesNegotiation
from ladder.api.renderers import CSVRenderer

pytestmark = pytest.mark.django_db

CALCULATOR = "/api/v1/calculator/"
GAME = {"rating": 1800, "k": 20, "opponent": 2000}


def test_a_form_body_is_a_415_that_says_to_send_json(anon):
    response = anon.generic(
        "POST", CALCULATOR, urlencode(GAME), content_type="application/x-www-form-urlencoded"
    )

    assert response.status_code == HTTPStatus.UNSUPPORTED_MEDIA_TYPE
    assert response.json()["detail"] == (
        "This endpoint reads application/json only, not application/x-www-form-urlencoded "
        "(the Content-Type)."
    )


def test_a_multipart_write_is_a_415(editor, club):
    response = editor.patch(f"/api/v1/games/{club.win.pk}/", {"result": "0-1"}, format="multipart")

    assert response.status_code == HTTPStatus.UNSUPPORTED_MEDIA_TYPE
    assert "reads application/json only, not multipart/form-data" in response.json()["detail"]
    club.win.refresh_from_db()
    assert club.win.result == "1-0"


def test_the_same_body_as_json_is_read(anon):
    response = anon.post(CALCULATOR, GAME, format="json")

    assert response.status_code == HTTPStatus.OK


def test_the_tournament_import_names_the_types_it_reads(superuser):
    response = superuser.post("/api/v1/tournaments/import/", {"preview": True}, format="json")

    assert response.status_code == HTTPStatus.UNSUPPORTED_MEDIA_TYPE
    assert response.json()["detail"] == (
        "This endpoint reads multipart/form-data or application/x-www-form-urlencoded only, "
        "not application/json (the Content-Type)."
    )


def test_every_write_declares_json_only_and_the_import_multipart(anon):
    paths = anon.get("/api/v1/schema/?format=json").json()["paths"]
    bodies = {
        (method, path): set(operation["requestBody"]["content"])
        for path, operations in paths.items()
        for method, operation in operations.items()
        if "requestBody" in operation
    }

    assert bodies.pop(("post", "/api/v1/tournaments/import/")) == {"multipart/form-data"}
    assert {("post", "/api/v1/calculator/"), ("patch", "/api/v1/games/{id}/")} <= set(bodies)
    for where, types in bodies.items():
        assert types == {"application/json"}, where


# --- the answer's type --------------------------------------------------------------------

ACCEPTS = [
    None, "*/*", "", "application/json", "application/json; indent=4", "text/csv",
    "text/html", "text/html,*/*;q=0.8", "application/*", "image/png", "*/*; q=0.1",
    "application/json;q=0.5, text/csv",
]  # fmt: skip


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("query", [{}, {"format": "json"}, {"format": "csv"}, {"page": "2"}])
@pytest.mark.parametrize("suffix", [None, "json", "csv"])
@pytest.mark.parametrize("renderers", ["json", "json, browsable, csv", "csv, json"])
def test_the_renderer_chosen_is_drfs_choice(accept, query, suffix, renderers):
    kinds = {"json": JSONRenderer, "browsable": BrowsableAPIRenderer, "csv": CSVRenderer}
    chosen = [kinds[name.strip()]() for name in renderers.split(",")]
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(APIRequestFactory().get("/api/v1/players/", query, **headers))

    def choice(negotiation):
        try:
            renderer, media_type = negotiation.select_renderer(request, chosen, suffix)
        except Exception as error:  # noqa: BLE001 - the refusal is part of the choice
            return type(error)
        return type(renderer), media_type

    ours = choice(NamedMediaTypesNegotiation())
    assert ours == choice(DefaultContentNegotiation())
