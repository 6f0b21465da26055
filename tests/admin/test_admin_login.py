"""Logging in: an unsafe "next" is never followed, and the login lands on the admin."""

import pytest
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("unsafe", ["https://evil.example/", "//evil.example/admin/", ""])
def test_an_unsafe_next_lands_on_the_admin_index(client, unsafe):
    get_user_model().objects.create_superuser("root", password="a long password 12")

    response = client.post(
        f"/admin/login/?next={unsafe}",
        {"username": "root", "password": "a long password 12", "next": unsafe},
    )

    assert response.status_code == 302
    assert response.url == "/admin/"
    assert client.get(response.url).status_code == 200


def test_the_admin_names_the_records_in_the_readers_language(admin_client):
    index = admin_client.get("/admin/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    for name in ("Wertungsperioden", "Turniere", "Basiskorrekturen", "Wertungsläufe"):
        assert name in index
    index = admin_client.get("/admin/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Périodes de classement" in index
