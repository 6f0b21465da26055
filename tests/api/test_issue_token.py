"""manage.py issue_token USERNAME: tokens hashed at rest, with an expiry and a revocation."""

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.test import APIClient

from ladder.records import ApiToken

pytestmark = pytest.mark.django_db


def issue(username: str, *args: str) -> str:
    out = StringIO()
    call_command("issue_token", username, *args, stdout=out)
    return out.getvalue().strip()


def answer(key: str):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/v1/players/")


def test_prints_a_key_that_works_and_stores_only_its_hash():
    User.objects.create_user("admin")
    key = issue("admin")
    assert answer(key).status_code == 200
    token = ApiToken.objects.get()
    assert key not in (token.digest, token.prefix)
    assert token.digest == ApiToken.hash(key)
    assert token.expires_at - timezone.now() > timedelta(days=89)


def test_each_issue_is_a_new_token():
    User.objects.create_user("admin")
    assert issue("admin") != issue("admin")
    assert ApiToken.objects.count() == 2


def test_an_expired_token_is_refused():
    User.objects.create_user("admin")
    key = issue("admin", "--days", "1")
    ApiToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    response = answer(key)
    assert response.status_code == 401
    assert response.json() == {"detail": "This token has expired; ask for a new one."}


def test_a_revoked_token_is_refused():
    User.objects.create_user("admin")
    key = issue("admin")
    assert issue("admin", "--revoke", key[:8]) == "Revoked 1 token."
    response = answer(key)
    assert response.status_code == 401
    assert response.json() == {"detail": "This token was revoked; ask for a new one."}
    assert "revoked" in issue("admin", "--list")


def test_revoke_all():
    User.objects.create_user("admin")
    keys = [issue("admin"), issue("admin")]
    assert issue("admin", "--revoke-all") == "Revoked 2 tokens."
    assert [answer(key).status_code for key in keys] == [401, 401]


def test_unknown_user_is_an_error():
    with pytest.raises(CommandError, match="No user is named 'nobody'"):
        issue("nobody")


def test_inactive_user_is_an_error():
    User.objects.create_user("gone", is_active=False)

    with pytest.raises(CommandError, match="inactive"):
        issue("gone")


def test_a_token_of_a_user_made_inactive_is_refused():
    user = User.objects.create_user("admin")
    key = issue("admin")
    user.is_active = False
    user.save()
    assert answer(key).status_code == 401


def test_no_key_starts_like_an_option(monkeypatch):
    """A key's prefix is typed after --revoke: one starting with '-' would read as an option
    (one key in 64 did, and its revoke failed)."""
    import secrets

    keys = iter(["-looks-like-an-option" + "x" * 22, "Abc-not-an-option" + "y" * 26])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(keys))
    User.objects.create_user("admin")
    key = issue("admin")
    assert key.startswith("Abc")
    assert issue("admin", "--revoke", key[:8]) == "Revoked 1 token."
