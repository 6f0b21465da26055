"""manage.py issue_token USERNAME."""

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db


def issue(username: str) -> str:
    out = StringIO()
    call_command("issue_token", username, stdout=out)
    return out.getvalue().strip()


def test_prints_the_users_token_and_keeps_it():
    user = User.objects.create_user("admin")

    first = issue("admin")

    assert first == Token.objects.get(user=user).key
    assert issue("admin") == first


def test_unknown_user_is_an_error():
    with pytest.raises(CommandError, match="No user is named 'nobody'"):
        issue("nobody")


def test_inactive_user_is_an_error():
    User.objects.create_user("gone", is_active=False)

    with pytest.raises(CommandError, match="inactive"):
        issue("gone")
