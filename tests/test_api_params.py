"""The JSON API's roll options: the served document describes each option of the campaign's
system from its one declaration (type, range, closed choices, default, label), the body
takes them typed, and a refusal points at the option's JSON field."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from ledger.rules.plugins import rule_systems
from ledger.web.api.openapi import document, param_schema
from ledger.web.app import Server

from .webtools import d20_table

API = "/api/v1"
SYSTEMS = sorted(rule_systems())


@pytest.mark.parametrize("sid", SYSTEMS)
def test_each_roll_option_is_a_typed_property_from_its_declaration(sid):
    system = rule_systems()[sid]
    doc = document(system)
    schemas = doc["components"]["schemas"]
    params = schemas["RollParams"]
    assert params["additionalProperties"] is False
    assert list(params["properties"]) == [p.name for p in system.roll_params]
    for body in ("RollIn", "RequestIn"):
        assert schemas[body]["properties"]["params"]["$ref"] == "#/components/schemas/RollParams"
    for p in system.roll_params:
        prop = params["properties"][p.name]
        item = prop["items"] if p.multiple else prop
        assert prop["type"] == ("array" if p.multiple else item["type"])
        assert prop["description"].startswith(p.title.rstrip(".")), (p.name, prop)
        assert "--" not in prop["description"] and "`" not in prop["description"]
        if p.is_flag:
            assert item["type"] == "boolean"
        elif p.type is int:
            assert item["type"] == "integer"
            if p.choices:
                assert item["enum"] == [int(c) for c in p.choices]
            else:
                assert (item.get("minimum"), item.get("maximum")) == (p.min, p.max)
        else:
            assert item["type"] == "string"
            if p.choices:
                assert item["enum"] == list(p.choices)
        if p.default not in (None, False):
            assert prop["default"] in (
                p.default,
                [p.default],
                int(str(p.default)) if p.type is int else p.default,
            )


def test_every_system_has_a_number_with_a_range_or_a_closed_choice():
    """The bundled systems exercise every kind: a ranged number and an enum somewhere."""
    kinds = set()
    for system in rule_systems().values():
        for p in system.roll_params:
            schema = param_schema(system, p)
            item = schema.get("items", schema)
            kinds |= {k for k in ("minimum", "maximum", "enum") if k in item}
            kinds.add(item["type"])
    assert {"minimum", "maximum", "enum", "integer", "boolean", "string"} <= kinds


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "vault.db"))


@pytest.fixture
def client(table):
    with TestClient(Server(table.db).app, base_url="http://testserver") as c:
        yield c


def gm_token(table) -> str:
    return str(
        json.loads(table.ok("access", "add", "gm", "--api", "--scope", "gm", "--json"))["token"]
    )


def test_the_served_document_describes_the_campaigns_own_options(client):
    doc = client.get(API + "/openapi.json").json()
    own = doc["components"]["schemas"]["RollParams"]["properties"]
    assert own["time"]["type"] == "boolean" and own["time"]["default"] is True
    assert own["help_from"]["type"] == "string"
    from openapi_spec_validator import validate

    validate(doc)


def test_typed_values_are_taken_and_a_false_switch_is_not_given(table, client):
    h = {"authorization": f"Bearer {gm_token(table)}"}
    body = {"character": "isa", "dice": "15", "skill": "Lockpicking", "params": {"time": True}}
    r = client.post(API + "/roll", headers=h, json=body)
    assert r.status_code == 201, r.text
    table.ok("verify")
    # the switch off: no time, so no check is made (d20-world's automatic failure)
    body["params"] = {"time": False}
    r = client.post(API + "/roll", headers=h, json=body)
    assert r.status_code == 422 and "automatic failure" in r.json()["detail"], r.text


def test_a_refused_option_points_at_its_field_in_words_not_flags(table, client):
    h = {"authorization": f"Bearer {gm_token(table)}"}
    r = client.post(API + "/roll", headers=h, json={
        "character": "isa", "dice": "15", "skill": "Lockpicking", "params": {"nonsense": "1"}})  # fmt: skip
    assert r.status_code == 422 and r.json()["field"] == "/params/nonsense", r.text
    r = client.post(API + "/roll", headers=h, json={
        "character": "isa", "dice": "15,3", "skill": "Lockpicking", "params": {"time": True}})  # fmt: skip
    problem = r.json()
    assert r.status_code == 422 and problem["field"] == "/dice", r.text
    assert "--" not in problem["detail"]


def test_no_front_end_guesses_a_field_from_the_words():
    """The field comes from the refusal's ``param``; no module reads ``--flag`` out of a
    sentence to find it."""
    import inspect

    import ledger.rules.form
    import ledger.web.api.app
    import ledger.web.api.rolling
    import ledger.web.roll_help

    for module in (
        ledger.web.api.rolling,
        ledger.web.api.app,
        ledger.web.roll_help,
        ledger.rules.form,
    ):
        source = inspect.getsource(module)
        assert "in_api_words" not in source and "re.compile" not in source, module.__name__


def test_a_pointer_names_only_a_member_the_body_has():
    from ledger.errors import Refused, RuleError
    from ledger.web.api.rolling import pointer

    system = rule_systems()["d20-world"]
    assert pointer(Refused("faces", dice=True), system) == "/dice"
    assert pointer(RuleError("the label", param="time"), system) == "/params/time"
    assert pointer(RuleError("a reason", param="reason"), system) is None  # the CLI's only
    assert pointer(RuleError("no option"), system) is None
