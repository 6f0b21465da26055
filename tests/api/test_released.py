"""An API answer, once written, is freed by reference counting, not left to the cyclic garbage
collector (``ApiMixin._release``): DRF's view and answer hold each other, and a read's data
and rows waited in those cycles for the collector, a sixth of a history read's CPU."""

import gc
import weakref
from http import HTTPStatus

import pytest
from django.test import RequestFactory
from django.test.client import ClientHandler

pytestmark = pytest.mark.django_db


def answered(path: str, method: str = "GET", **extra):
    """``path`` through Django's handler as the server calls it (not the test client, whose
    answers carry a parser bound to themselves), the answer closed as the server closes it."""
    path, _, query = path.partition("?")
    environ = RequestFactory()._base_environ(  # type: ignore[attr-defined]  # the client's
        PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD=method, **extra
    )
    return ClientHandler(enforce_csrf_checks=True)(environ)


@pytest.fixture
def no_collector():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/api/v1/players/{anna}/history/", HTTPStatus.OK),
        ("/api/v1/players/?ordering=-rating", HTTPStatus.OK),
        ("/api/v1/players/{anna}/", HTTPStatus.OK),
        ("/api/v1/games/?player={anna}", HTTPStatus.OK),
        ("/api/v1/players/{anna}/history/?page=99", HTTPStatus.NOT_FOUND),
        ("/api/v1/players/999999/", HTTPStatus.NOT_FOUND),
        ("/api/v1/players/{anna}/history/?list=bogus", HTTPStatus.BAD_REQUEST),
    ],
)
def test_an_answer_is_freed_when_the_server_lets_go_of_it(club, no_collector, path, status):
    response = answered(path.format(anna=club.anna.pk))
    assert response.status_code == status, response.content[:300]
    assert response.content  # written before anything was let go
    view = response.renderer_context["view"]
    assert vars(view) == {}  # nothing of the request or the answer held by the view
    freed = weakref.ref(response)
    del response, view
    assert freed() is None, "the answer waits in a reference cycle for the garbage collector"


def test_an_answers_data_stays_readable_where_it_is_kept(club, no_collector):
    """The answer keeps what it was given (its data, its headers); only the view and the
    renderer's context let go."""
    response = answered(f"/api/v1/players/{club.anna.pk}/")
    assert response.data["name"] == "Anna Alekhina"
    assert response["Content-Type"].startswith("application/json")
    assert "response" not in response.renderer_context


def test_a_write_is_released_too(club, no_collector):
    """A refused write (anonymous) goes through the same door out."""
    response = answered("/api/v1/games/", method="POST")
    assert response.status_code == HTTPStatus.UNAUTHORIZED
    freed = weakref.ref(response)
    del response
    assert freed() is None
