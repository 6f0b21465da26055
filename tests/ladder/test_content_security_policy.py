"""The Content Security Policy header: built once, the same as django-csp builds it."""

from __future__ import annotations

import re

import pytest
from csp.constants import NONCE
from csp.decorators import csp, csp_exempt, csp_replace, csp_update
from csp.middleware import CSPMiddleware
from django.http import HttpResponse
from django.test import RequestFactory

from ladder.middleware import ContentSecurityPolicyMiddleware

HEADERS = ("Content-Security-Policy", "Content-Security-Policy-Report-Only")
REPORT_ONLY = {"DIRECTIVES": {"default-src": ["'self'"], "report-uri": "/csp-report/"}}


def _view(request):
    return HttpResponse("ok")


def _with_nonce(request):
    return HttpResponse(f"<script nonce='{request.csp_nonce}'></script>")


def _headers(middleware_class, view, path="/players/", *, preset=None, status=200):
    """Run the middleware around ``view``; return the response's two policy headers."""

    def respond(request):
        response = view(request)
        response.status_code = status
        if preset is not None:
            response["Content-Security-Policy"] = preset
        return response

    response = middleware_class(respond)(RequestFactory().get(path))
    # Each response's nonce is its own: compared as a mark.
    return tuple(
        re.sub(r"'nonce-[^']+'", "'nonce'", value) if value else value
        for value in (response.get(header) for header in HEADERS)
    )


CASES = {
    "the settings' policy": (_view, {}),
    "a nonce asked by the page": (_with_nonce, {}),
    "updated by a decorator": (csp_update({"script-src": ["'unsafe-inline'"]})(_view), {}),
    "replaced by a decorator": (csp_replace({"img-src": ["'none'"]})(_view), {}),
    "an empty update": (csp_update({})(_view), {}),
    "a policy of its own": (csp({"default-src": ["'none'"]})(_view), {}),
    "an empty policy of its own": (csp({})(_view), {}),
    "a report-only policy of its own": (csp({"img-src": ["data:"]}, REPORT_ONLY=True)(_view), {}),
    "exempt": (csp_exempt()(_view), {}),
    "a header set by the view": (_view, {"preset": "default-src 'none'"}),
    "a 404 while debugging": (_view, {"status": 404}),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(
    "policies",
    [
        {},
        {"CONTENT_SECURITY_POLICY_REPORT_ONLY": REPORT_ONLY},
        {"CONTENT_SECURITY_POLICY": None, "CONTENT_SECURITY_POLICY_REPORT_ONLY": REPORT_ONLY},
        {
            "CONTENT_SECURITY_POLICY": {
                "EXCLUDE_URL_PREFIXES": ["/players/"],
                "DIRECTIVES": {"default-src": ["'self'"]},
            }
        },
        {"CONTENT_SECURITY_POLICY": {"DIRECTIVES": {"script-src": ["'self'", NONCE]}}},
    ],
    ids=["enforced", "and report-only", "report-only alone", "an excluded prefix", "nonces"],
)
@pytest.mark.parametrize("debug", [False, True])
def test_the_headers_are_django_csps_own(settings, case, policies, debug):
    settings.DEBUG = debug
    for name, value in policies.items():
        setattr(settings, name, value)
    view, options = CASES[case]
    ours = _headers(ContentSecurityPolicyMiddleware, view, **options)
    assert ours == _headers(CSPMiddleware, view, **options)
    # Asked again (the text kept from the first response), the same.
    assert _headers(ContentSecurityPolicyMiddleware, view, **options) == ours


def test_a_changed_setting_changes_the_header(settings):
    first = _headers(ContentSecurityPolicyMiddleware, _view)[0]
    assert "script-src 'self'" in first
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"default-src": ["'none'"]}}
    assert _headers(ContentSecurityPolicyMiddleware, _view)[0] == "default-src 'none'"


def test_a_nonce_asked_after_the_header_is_an_error():
    request = RequestFactory().get("/")
    ContentSecurityPolicyMiddleware(_view)(request)
    with pytest.raises(Exception, match="after the CSP header has been written"):
        str(request.csp_nonce)


@pytest.mark.django_db
def test_the_api_docs_keep_their_own_policy(client):
    docs = client.get("/api/v1/docs/")["Content-Security-Policy"]
    assert "'unsafe-inline'" in docs
    assert "'unsafe-inline'" not in client.get("/api/v1/freshness/")["Content-Security-Policy"]
