"""Schemathesis against the served OpenAPI document: every operation of ``/api/v1``,
with inputs generated from the document itself, answers as the document says (status codes,
content types, response schemas) and never with a server error; as a GM token and as a
player token, and stateful where the document links operations."""

from __future__ import annotations

import json
import os

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from ledger.web.app import Server

from .webtools import d20_table

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: generated inputs a operation and scope, and stateful runs: 12 and 8 in `uv run pytest`;
#: ``-m slow`` runs this file again with 25 and 15
#: (:func:`test_schemathesis_searched_twice_as_far`); ``LEDGER_API_EXAMPLES`` and
#: ``LEDGER_API_STATEFUL_EXAMPLES`` set them
EXAMPLES = int(os.environ.get("LEDGER_API_EXAMPLES", "12"))
STATEFUL_EXAMPLES = int(os.environ.get("LEDGER_API_STATEFUL_EXAMPLES", "8"))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A d20-world table with a session running, GM-only facts, a GM and a player token."""
    t = d20_table(str(tmp_path_factory.mktemp("api") / "vault.db"))
    t.ok("note", "CANARY-BLIND-NOTE", "--blind")
    tokens = {
        scope: json.loads(t.ok("access", "add", who, "--api", "--scope", scope, "--json"))["token"]
        for who, scope in (("gm", "gm"), ("Dana", "roll"))
    }
    return Server(t.db).app, tokens


OPERATIONS = ["GET /campaign", "GET /characters", "GET /sheet/{character}", "GET /log",
              "GET /export.ndjson", "GET /checkpoint", "GET /requests", "POST /request",
              "POST /answer/{seq}", "GET /proof/consistency", "GET /proof/inclusion",
              "POST /roll"]  # fmt: skip


@pytest.fixture(scope="module")
def api_schema(served):
    app, _ = served
    return schemathesis.openapi.from_asgi("/api/v1/openapi.json", app)


def test_the_list_here_is_every_documented_operation(api_schema):
    found = sorted(f"{r.ok().method.upper()} {r.ok().path}" for r in api_schema.get_all_operations())
    assert found == sorted(OPERATIONS)


@pytest.mark.parametrize("scope", ["gm", "roll"])
@pytest.mark.parametrize("label", OPERATIONS)
def test_every_operation_answers_as_documented(api_schema, served, label, scope):
    """Inputs generated from the document (hypothesis, :data:`EXAMPLES` a operation and
    scope): every answer is one the document declares (status, content type, body schema), never a 5xx."""
    method, path = label.split(" ")
    operation = api_schema[path][method]
    headers = {"Authorization": f"Bearer {served[1][scope]}"}

    # A write's inputs are checked by the campaign's rules beyond what a JSON schema states
    # (which roll params this system takes, the character's skills, a request still open):
    # the document declares 422 for those, so a schema-valid body may be refused. Every other
    # check stands: no 5xx, documented status codes, content types and response bodies.
    excluded = [positive_data_acceptance] if method == "POST" else []

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    def run(case):
        case.call_and_validate(headers=headers, excluded_checks=excluded)

    run()


def test_a_seq_too_large_for_sqlite_is_a_404_never_a_server_error(served):
    """What schemathesis found: ``POST /api/v1/answer/9223372036854775808`` overflowed
    SQLite's 64-bit integers (a 500). Every seq or number in a path now takes at most 18
    digits; longer ones match no route: a problem document under /api/, the page elsewhere."""
    from starlette.testclient import TestClient

    app, tokens = served
    huge = "9223372036854775808"
    with TestClient(app, base_url="http://testserver") as c:
        r = c.post(f"/api/v1/answer/{huge}", json={},
                   headers={"Authorization": f"Bearer {tokens['gm']}"})  # fmt: skip
        assert r.status_code == 404
        assert r.headers["content-type"] == "application/problem+json"
        assert r.json()["status"] == 404
        r = c.get("/api/v1/sheet/a%0Ab", headers={"Authorization": f"Bearer {tokens['gm']}"})
        assert r.status_code == 404 and r.headers["content-type"] == "application/problem+json"
        for path in (f"/audit/{huge}", f"/recap/{huge}", "/audit/1" + "0" * 18):
            page = c.get(path)
            assert page.status_code == 404, path
            assert page.headers["content-type"].startswith("text/html")
        assert c.post(f"/answer/{huge}").status_code == 404


def test_stateful_runs_follow_the_documented_links(api_schema, served):
    """Schemathesis's state machine follows the document's links (a request's seq into its
    answer and its inclusion proof; a roll's seq into its proof) as the GM: every step
    answers as documented."""
    from hypothesis.stateful import run_state_machine_as_test

    machine = api_schema.as_state_machine()
    headers = {"Authorization": f"Bearer {served[1]['gm']}"}

    class Machine(machine):  # type: ignore[misc,valid-type]
        def get_call_kwargs(self, case):
            return {"headers": headers}

        def validate_response(self, response, case, **kwargs):
            excluded = [positive_data_acceptance] if case.method.upper() == "POST" else []
            case.validate_response(response, excluded_checks=excluded)

    run_state_machine_as_test(
        Machine,
        settings=settings(max_examples=STATEFUL_EXAMPLES, stateful_step_count=4, deadline=None,
                          database=None, suppress_health_check=list(HealthCheck)),  # fmt: skip
    )


@pytest.mark.slow
def test_schemathesis_searched_twice_as_far(tmp_path):
    """Every test of this file with 25 inputs a operation and scope and 15 stateful runs
    instead of 12 and 8: the longer hunt, in a pytest of its own so that the counts apply."""
    from .rerun import run_again

    examples = {"LEDGER_API_EXAMPLES": "25", "LEDGER_API_STATEFUL_EXAMPLES": "15"}
    out = run_again(__file__, examples, tmp_path)
    assert "27 passed" in out
