"""The OpenAPI schema and the interactive docs (which must work offline)."""

import re
from http import HTTPStatus

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from ladder.records import Result, bounds, kept_lists
from ladder.records.text import refuse_control_characters, refuse_control_characters_but_lines
from ratings.rules import calculator, fide

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
        "/api/v1/players/{id}/head-to-head/{other}/",
        "/api/v1/players/{id}/rating/",
        "/api/v1/players/{id}/merge/",
        "/api/v1/players/{id}/unmerge/",
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
        "/api/v1/rules/",
        "/api/v1/tournaments/import/",
        "/api/v1/tournaments/export/",
        "/api/v1/tournaments/",
        "/api/v1/tournaments/{id}/",
        "/api/v1/base-corrections/",
        "/api/v1/base-corrections/{id}/",
        "/api/v1/bulk/rating-list/",
        "/api/v1/bulk/players/{id}/history/",
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


def _components(client) -> dict:
    return schema(client)["components"]["schemas"]


def test_the_bounds_in_the_schema_are_the_validators(anon):
    components = _components(anon)
    player = components["PlayerRequest"]["properties"]
    for name in ("entry_rating", "entry_peak_rating", "rapid_entry_rating", "blitz_entry_rating"):
        assert (player[name]["minimum"], player[name]["maximum"]) == (
            bounds.ENTRY_RATING_FLOOR,
            bounds.MAX_RATING,
        ), name
    assert player["entry_rated_games"]["maximum"] == bounds.MAX_ENTRY_RATED_GAMES
    assert player["birth_year"]["minimum"] == bounds.MIN_BIRTH_YEAR
    assert (player["fide_id"]["minimum"], player["fide_id"]["maximum"]) == (1, bounds.MAX_FIDE_ID)
    for shape in ("OneGameCalculatorRequest", "EventCalculatorRequest"):
        body = components[shape]["properties"]
        assert (body["rating"]["minimum"], body["rating"]["maximum"]) == (
            bounds.MIN_RATING,
            bounds.MAX_RATING,
        )
        assert (body["k"]["minimum"], body["k"]["maximum"]) == (calculator.MIN_K, calculator.MAX_K)
    games = components["EventCalculatorRequest"]["properties"]["games"]
    assert (games["minItems"], games["maxItems"]) == (1, calculator.MAX_EVENT_GAMES)
    assert components["ScoreEnum"]["enum"] == list(calculator.SCORE_WORDS)


def test_the_calculator_takes_one_game_or_an_event_never_both(anon):
    body = schema(anon)["paths"]["/api/v1/calculator/"]["post"]["requestBody"]
    components = _components(anon)

    assert body["content"]["application/json"]["schema"]["$ref"].endswith("/CalculatorRequest")
    shapes = [ref["$ref"].rsplit("/", 1)[1] for ref in components["CalculatorRequest"]["oneOf"]]
    assert sorted(shapes) == ["EventCalculatorRequest", "OneGameCalculatorRequest"]
    one, event = components["OneGameCalculatorRequest"], components["EventCalculatorRequest"]
    assert "opponent" in one["required"]
    assert "games" not in one["properties"]
    assert "games" in event["required"]
    assert "opponent" not in event["properties"]


@pytest.mark.parametrize(
    "text", ["Anna", "Åsa Öberg", "Line\x1bone", "a\u202eb", "nul\x00", "tab\t"]
)
def test_a_text_pattern_accepts_what_the_validator_accepts(anon, text):
    game = _components(anon)["GameRequest"]["properties"]
    try:
        refuse_control_characters(text)
        valid = True
    except ValidationError:
        valid = False

    for name in ("event", "round"):
        assert bool(re.search(game[name]["pattern"], text)) is valid, name
    assert (
        bool(re.search(_components(anon)["PlayerRequest"]["properties"]["name"]["pattern"], text))
        is valid
    )


@pytest.mark.parametrize(
    "text", ["90+30", "15 + 10", "60", "010", "3+2", "x", "1234", "90+", "+30", "0", "00+5"]
)
def test_the_time_control_pattern_is_the_rules(anon, text):
    shape = _components(anon)["GameRequest"]["properties"]["time_control"]["oneOf"][0]
    try:
        fide.parse_time_control(text)
        valid = True
    except ValueError:
        valid = False

    assert bool(re.search(shape["pattern"], text)) is valid


def test_choices_and_query_numbers(anon):
    components = _components(anon)
    assert components["ResultEnum"]["enum"] == Result.values
    assert components["RatingListEnum"]["enum"] == kept_lists()
    reason = components["ReopenRequest"]["properties"]["reason"]
    assert reason["minLength"] == 1
    assert "\\u0000" in reason["pattern"]
    paths = schema(anon)["paths"]
    periods = {p["name"]: p["schema"] for p in paths["/api/v1/periods/"]["get"]["parameters"]}
    games = {p["name"]: p["schema"] for p in paths["/api/v1/games/"]["get"]["parameters"]}
    assert periods["year"] == {"type": "integer", "minimum": 1, "maximum": 9999}
    for name in ("period", "player", "white", "black"):
        assert games[name]["type"] == "integer", name


def test_the_import_example_is_a_file_the_api_takes(superuser):
    operation = schema(superuser)["paths"]["/api/v1/tournaments/import/"]["post"]
    (example,) = operation["requestBody"]["content"]["multipart/form-data"]["examples"].values()
    upload = SimpleUploadedFile("example.trf", example["value"]["file"].encode())

    response = superuser.post(
        "/api/v1/tournaments/import/",
        {"file": upload, "preview": example["value"]["preview"]},
        format="multipart",
    )

    assert response.status_code == HTTPStatus.OK, response.json()
    assert response.json()["counts"]["players"] == 4


def test_the_export_example_names_the_event_of_the_game_example(anon):
    paths = schema(anon)["paths"]
    export = paths["/api/v1/tournaments/export/"]["get"]["parameters"]
    (event,) = [p for p in export if p["name"] == "event"]
    games = paths["/api/v1/games/"]["post"]["requestBody"]["content"]["application/json"]

    assert event["examples"]["AnEvent"]["value"] == games["examples"]["ADraw"]["value"]["event"]


@pytest.mark.parametrize("text", ["Entered twice.", "Two lines\nof reason", "a\u202eb", "\x92"])
def test_a_merge_reason_pattern_is_the_validator_the_merge_applies(anon, text):
    components = _components(anon)
    try:
        refuse_control_characters_but_lines(text)
        valid = True
    except ValidationError:
        valid = False

    for name in ("MergeRequestRequest", "UnmergeRequestRequest"):
        pattern = components[name]["properties"]["reason"]["pattern"]
        assert bool(re.search(pattern, text)) is valid, name


def test_a_body_with_required_fields_is_required_whatever_its_shapes(anon):
    paths = schema(anon)["paths"]
    components = _components(anon)

    def has_required(ref: str) -> bool:
        component = components[ref.rsplit("/", 1)[1]]
        if "oneOf" in component:
            return all(has_required(shape["$ref"]) for shape in component["oneOf"])
        return bool(component.get("required"))

    assert paths["/api/v1/calculator/"]["post"]["requestBody"]["required"] is True
    for path, operations in paths.items():
        for method, operation in operations.items():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if body is None:
                continue
            ref = next(iter(body["content"].values()))["schema"]["$ref"]
            assert bool(body.get("required")) is has_required(ref), f"{method} {path}"
