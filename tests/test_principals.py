"""playsite/principals.py: the one reading and writing of `<kind>:<id>` and of request UUIDs."""

from __future__ import annotations

import uuid

import pytest

from playsite import principals
from playsite.principals import Kind, Principal, canonical_uuid

ID = "0b7e3c52-2a4f-4c1d-9a51-7f0e1d2c3b4a"


@pytest.mark.parametrize("text", [ID, ID.upper()])
def test_canonical_uuid_accepts_the_8_4_4_4_12_form_and_lowers_it(text):
    assert canonical_uuid(text) == ID


@pytest.mark.parametrize("text", [
    "{" + ID + "}", "urn:uuid:" + ID, ID.replace("-", ""), " " + ID, ID + "\n", ID[:-1], "",
    "0b7e3c522-a4f-4c1d-9a51-7f0e1d2c3b4a", None, 7, uuid.UUID(ID),
])
def test_canonical_uuid_refuses_every_other_spelling(text):
    assert canonical_uuid(text) is None


@pytest.mark.parametrize(("text", "kind", "ident", "rated", "human"), [
    (f"user:{ID}", Kind.USER, ID, True, True),
    (f"guest:{ID}", Kind.GUEST, ID, False, True),
    ("bot:acme/rook", Kind.BOT, "acme/rook", True, False),
])
def test_parse_and_write_round_trip(text, kind, ident, rated, human):
    principal = Principal.parse(text)
    assert principal == Principal(kind, ident)
    assert str(principal) == text
    assert (principal.is_rated, principal.is_human) == (rated, human)
    assert principals.kind_of(text) is kind
    assert principals.id_of(text, kind) == ident


@pytest.mark.parametrize("text", [None, "", "user", "user:", "robot:x", ":x", "USER:x"])
def test_parse_refuses_what_is_no_principal(text):
    assert Principal.parse(text) is None
    assert principals.kind_of(text) is None


def test_the_builders_write_each_kind():
    assert principals.user(uuid.UUID(ID)) == f"user:{ID}"
    assert principals.guest(ID) == f"guest:{ID}"
    assert principals.bot("acme/rook") == "bot:acme/rook"
    assert principals.id_of(f"guest:{ID}", Kind.USER) is None
