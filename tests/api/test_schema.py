"""The OpenAPI schema and the interactive docs (which must work offline)."""

from http import HTTPStatus

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def schema(client) -> dict:
    response = client.get("/api/v1/schema/?format=json")
    assert response.status_code == HTTPStatus.OK
    return response.json()


def test_schema_is_openapi_3_and_lists_every_endpoint(anon):
    body = schema(anon)

    assert body["openapi"].startswith("3.")
    assert set(body["paths"]) == {
        "/api/v1/players/",
        "/api/v1/players/{id}/",
        "/api/v1/players/{id}/history/",
        "/api/v1/games/",
        "/api/v1/games/{id}/",
        "/api/v1/periods/",
        "/api/v1/periods/{id}/",
        "/api/v1/periods/{id}/close/",
        "/api/v1/periods/{id}/reopen/",
        "/api/v1/rating-list/",
        "/api/v1/calculator/",
        "/api/v1/rating-runs/",
        "/api/v1/rating-runs/{id}/",
        "/api/v1/freshness/",
        "/api/v1/tournaments/import/",
        "/api/v1/tournaments/export/",
    }


def test_every_operation_is_described(anon):
    for path, operations in schema(anon)["paths"].items():
        for method, operation in operations.items():
            assert operation.get("summary"), f"{method.upper()} {path} has no summary"
            assert operation.get("description"), f"{method.upper()} {path} has no description"


def test_writes_document_their_errors(anon):
    paths = schema(anon)["paths"]

    # 200: the answer to a dry run (?dry_run=true), which records nothing.
    assert set(paths["/api/v1/games/"]["post"]["responses"]) == {
        "200", "201", "400", "401", "403", "409"
    }  # fmt: skip
    assert "409" in paths["/api/v1/games/{id}/"]["delete"]["responses"]
    examples = paths["/api/v1/games/"]["post"]["requestBody"]["content"]["application/json"]
    assert examples["examples"]


def test_docs_work_without_internet(anon):
    response = anon.get("/api/v1/docs/")

    assert response.status_code == HTTPStatus.OK
    html = response.content.decode()
    assert "drf_spectacular_sidecar/swagger-ui-dist" in html
    assert "cdn.jsdelivr.net" not in html
    assert "/api/v1/schema/" in html


def test_schema_validates_without_warnings(tmp_path):
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml")
    )

    assert (tmp_path / "schema.yaml").read_text().startswith("openapi: 3.")


def test_public_reads_are_shown_as_public_and_writes_need_authentication(anon):
    paths = schema(anon)["paths"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            public = {} in operation.get("security", [])
            if method == "get" or path == "/api/v1/calculator/":
                assert public, f"{method.upper()} {path} is a public read"
            else:
                assert not public, f"{method.upper()} {path} needs authentication"


def test_game_writes_document_their_dry_run(anon):
    paths = schema(anon)["paths"]
    game = "/api/v1/games/{id}/"
    writes = [("/api/v1/games/", "post"), (game, "put"), (game, "patch"), (game, "delete")]
    for path, method in writes:
        operation = paths[path][method]
        assert "dry_run" in {p["name"] for p in operation["parameters"]}, f"{method} {path}"
        assert "200" in operation["responses"], f"{method} {path}"
    preview = paths["/api/v1/games/{id}/"]["delete"]["responses"]["200"]
    assert preview["content"]["application/json"]["schema"]["$ref"].endswith("/Preview")


def test_requests_have_their_own_components_without_the_servers_fields(anon):
    components = schema(anon)["components"]["schemas"]
    game, player = components["GameRequest"], components["PlayerRequest"]

    # A client builds a new game or player from what it knows; the server adds the rest.
    assert set(game["required"]) == {"date", "white", "black", "result"}
    assert set(player["required"]) == {"name"}
    assert not {"id", "period", "created", "updated"} & set(game["properties"])
    assert not {"id", "rating", "k", "ratings", "created"} & set(player["properties"])
    assert "required" not in components["PatchedGameRequest"]
    for name, component in components.items():
        if name.endswith("Request"):
            for field, shape in component.get("properties", {}).items():
                assert not shape.get("readOnly"), f"{name}.{field} is read-only"
    assert {"id", "period", "created"} <= set(components["GameRead"]["required"])


def test_writes_refer_to_request_components(anon):
    paths = schema(anon)["paths"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            body = operation.get("requestBody")
            if body is None:
                continue
            for content in body["content"].values():
                assert content["schema"]["$ref"].endswith("Request"), f"{method} {path}"
