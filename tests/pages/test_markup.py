"""Markup checks on every page: well-formed, lang, one h1, labelled fields, live references."""

from html.parser import HTMLParser

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr", "circle", "line", "polyline", "path", "rect"}  # fmt: skip
OPTIONAL_END = {"p", "li", "tr", "td", "th", "thead", "tbody", "tfoot", "option", "dt", "dd"}


class Audit(HTMLParser):
    """Collect what the checks need while verifying that elements nest properly."""

    def __init__(self):
        super().__init__()
        self.stack, self.ids, self.problems = [], [], []
        self.labels_for, self.fields, self.references, self.headings = set(), [], [], []
        self.lang = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            self.lang = attrs.get("lang")
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "label" and attrs.get("for"):
            self.labels_for.add(attrs["for"])
        if tag in {"input", "select", "textarea"} and attrs.get("type") not in {"hidden", "submit"}:
            self.fields.append(attrs.get("id"))
        for name in ("aria-labelledby", "aria-describedby"):
            self.references.extend((attrs.get(name) or "").split())
        if tag in {"h1", "h2", "h3", "h4"}:
            self.headings.append(int(tag[1]))
        if tag not in VOID and not self.get_starttag_text().endswith("/>"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        while self.stack and self.stack[-1] != tag and self.stack[-1] in OPTIONAL_END:
            self.stack.pop()
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"unexpected </{tag}> inside {self.stack[-3:]}")
            return
        self.stack.pop()


def audit(response) -> Audit:
    parser = Audit()
    parser.feed(response.content.decode())
    parser.close()
    return parser


@pytest.fixture
def urls(example_a):
    return [
        reverse("ladder:standings"),
        reverse("ladder:standings") + "?q=zzz",
        example_a.get_absolute_url(),
        example_a.get_absolute_url() + "?opponent=99999",
        reverse("ladder:periods"),
        reverse("ladder:period", args=["2026-03"]),
        reverse("ladder:calculator"),
        reverse("ladder:calculator") + "?own=x&k_preset=other&mode=event",
        "/no/such/page/",
    ]


def test_every_page_is_well_formed_and_accessible(client, urls):
    for url in urls:
        page = audit(client.get(url))
        assert page.lang == "en", url
        assert page.problems == [], url
        assert page.stack == [], url
        assert page.headings.count(1) == 1, url
        steps = zip(page.headings, page.headings[1:], strict=False)
        assert all(b <= a + 1 for a, b in steps), f"{url}: a heading level is skipped"
        assert len(page.ids) == len(set(page.ids)), f"{url}: duplicate ids"
        assert "content" in page.ids, url
        unlabelled = [f for f in page.fields if f not in page.labels_for]
        assert unlabelled == [], f"{url}: fields without a label"
        missing = [r for r in page.references if r not in page.ids]
        assert missing == [], f"{url}: aria references to nothing"


def test_pages_load_only_local_assets(client, urls):
    for url in urls:
        html = client.get(url).content.decode()
        assert "http://" not in html, url
        assert "https://" not in html, url
        assert "//cdn" not in html, url
