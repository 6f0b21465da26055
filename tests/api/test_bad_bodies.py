"""Bodies an attacker crafts: a charset that is no text encoding (zlib would decompress a
small body into a huge one before any size check) is a 400 with a sentence, never a 500. An
unknown charset is ignored by Django itself, which reads the body as UTF-8."""

import bz2
import json
import zlib
from http import HTTPStatus

import pytest

pytestmark = pytest.mark.django_db

CALCULATOR = "/api/v1/calculator/"
GAME = {"rating": 1800, "k": 20, "opponent": 2000}


def post(anon, body: bytes, charset: str):
    return anon.generic(
        "POST", CALCULATOR, body, content_type=f"application/json; charset={charset}"
    )


@pytest.mark.parametrize(
    ("charset", "encode"),
    [
        ("zlib", zlib.compress),
        ("zlib_codec", zlib.compress),
        ("bz2", bz2.compress),
        ("rot13", lambda raw: raw),
        ("base64", lambda raw: raw),
        ("hex", lambda raw: raw),
    ],
)
def test_a_charset_that_is_no_text_encoding_is_refused(anon, charset, encode):
    response = post(anon, encode(json.dumps(GAME).encode()), charset)

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert f"The charset '{charset}' is not a text encoding" in response.json()["detail"]


def test_a_zlib_bomb_is_refused_before_it_is_inflated(anon):
    bomb = zlib.compress(b'{"rating": 1800, "pad": "' + b" " * 20_000_000 + b'"}', 9)

    response = post(anon, bomb, "zlib")

    assert len(bomb) < 100_000
    assert response.status_code == HTTPStatus.BAD_REQUEST


@pytest.mark.parametrize("charset", ["utf-8", "UTF-8", "utf-16", "latin-1"])
def test_real_text_encodings_are_read(anon, charset):
    response = post(anon, json.dumps(GAME).encode(charset), charset)

    assert response.status_code == HTTPStatus.OK
    assert response.json()["outcomes"]["win"]["change"] == 15


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1E999"])
def test_a_number_beyond_a_float_is_a_400(editor, number):
    body = f'{{"date": "2026-03-02", "white": {number}, "black": 1, "result": "1-0"}}'

    response = editor.generic("POST", "/api/v1/games/", body, content_type="application/json")

    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert f"the number {number} is out of range" in response.json()["detail"]
