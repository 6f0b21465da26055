"""The admin's doors to duplicates and merges."""

from __future__ import annotations

from datetime import date
from http import HTTPStatus

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.urls import reverse

from ladder.records import Game, NotDuplicate, Player, PlayerMerge
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss_client(client, db):
    client.force_login(User.objects.create_superuser("boss", "boss@example.org", "pw"))
    return client


@pytest.fixture
def pair(committed):
    ann = PlayerFactory(name="Ann Able", fide_id=101, birth_year=1980, federation="ENG")
    dup = PlayerFactory(name="Able, Ann", birth_year=1980, federation="ENG")
    bob = PlayerFactory(name="Bob Best", birth_year=1970)
    with committed():
        actions.enter_games(
            games=[GameEntry(date=date(2026, 3, 2), white=dup, black=bob, result="1-0")]
        )
    return ann, dup, bob


def said(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_the_duplicates_page_lists_the_pair_and_remembers_not_a_duplicate(
    boss_client, pair, django_assert_max_num_queries
):
    ann, dup, bob = pair
    with django_assert_max_num_queries(12):
        page = boss_client.get(reverse("admin:ladder_player_duplicates"))
    assert page.status_code == HTTPStatus.OK
    text = page.content.decode()
    assert "the same name in another order (Ann Able / Able, Ann)" in text
    assert f"?keep={ann.pk}&amp;other={dup.pk}" in text
    answer = boss_client.post(
        reverse("admin:ladder_player_not_duplicate"), {"first": ann.pk, "second": dup.pk}
    )
    assert answer.status_code == HTTPStatus.FOUND
    assert NotDuplicate.objects.filter(first=ann, second=dup).exists()
    again = boss_client.get(reverse("admin:ladder_player_duplicates"))
    assert "No likely duplicates." in again.content.decode()


def test_the_merge_page_merges_and_shows_field_errors(boss_client, pair, committed):
    ann, dup, bob = pair
    url = reverse("admin:ladder_player_merge")
    page = boss_client.get(f"{url}?keep={ann.pk}&other={dup.pk}")
    assert page.status_code == HTTPStatus.OK
    assert f'value="{dup.pk}"' in page.content.decode()
    refused = boss_client.post(url, {"keep": ann.pk, "other": dup.pk, "reason": ""})
    assert refused.status_code == HTTPStatus.OK
    assert refused.context["form"].errors == {
        "reason": ["Give a reason for the merge; it is recorded."]
    }
    refused = boss_client.post(url, {"keep": ann.pk, "other": ann.pk, "reason": "r"})
    assert refused.context["form"].errors == {
        "other": ["A player cannot be merged with themselves."]
    }
    assert PlayerMerge.objects.count() == 0
    with committed():
        done = boss_client.post(url, {"keep": ann.pk, "other": dup.pk, "reason": "Twice"})
    assert done.status_code == HTTPStatus.FOUND
    assert done["Location"] == reverse("admin:ladder_player_change", args=[ann.pk])
    assert Game.objects.get().white_id == ann.pk


def test_the_list_actions_merge_two_and_unmerge(boss_client, pair, committed):
    ann, dup, bob = pair
    changelist = reverse("admin:ladder_player_changelist")
    three = boss_client.post(
        changelist, {"action": "merge_selected", "_selected_action": [ann.pk, dup.pk, bob.pk]}
    )
    assert "Select exactly two players to merge." in said(three)
    two = boss_client.post(
        changelist, {"action": "merge_selected", "_selected_action": [ann.pk, dup.pk]}
    )
    assert two["Location"] == f"{reverse('admin:ladder_player_merge')}?keep={ann.pk}&other={dup.pk}"
    with committed():
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="Twice")
    with committed():
        undone = boss_client.post(
            changelist, {"action": "unmerge_selected", "_selected_action": [dup.pk]}, follow=True
        )
    assert any(m.startswith("Unmerged Able, Ann from Ann Able (101)") for m in said(undone))
    assert Player.objects.get(pk=dup.pk).merged_into_id is None


def test_the_merges_list_undoes_a_merge_with_a_reason(boss_client, pair, committed):
    ann, dup, bob = pair
    with committed():
        actions.merge_players(keep=ann.pk, other=dup.pk, reason="Twice")
    record = PlayerMerge.objects.get()
    changelist = reverse("admin:ladder_playermerge_changelist")
    assert boss_client.get(changelist).status_code == HTTPStatus.OK
    asked = boss_client.post(changelist, {"action": "undo", "_selected_action": [record.pk]})
    assert asked.status_code == HTTPStatus.OK
    assert "Able, Ann merged into Ann Able (101)" in asked.content.decode()
    with committed():
        boss_client.post(
            changelist,
            {"action": "undo", "_selected_action": [record.pk], "apply": "1", "reason": "Twins"},
        )
    record.refresh_from_db()
    assert record.undo_reason == "Twins"
    assert Game.objects.get().white_id == dup.pk
