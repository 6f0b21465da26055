"""Values no form expects: the admin answers with a form error, never a 500."""

import pytest
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("value", ["abc", "1e400", "-1", "99999999999999999999999", "١٢"])
def test_a_game_whose_player_is_no_id_is_a_form_error(client, value):
    client.force_login(get_user_model().objects.create_superuser("root"))

    response = client.post(
        "/admin/ladder/game/add/",
        {"date": "2026-03-02", "white": value, "black": value, "result": "1-0"},
    )

    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
