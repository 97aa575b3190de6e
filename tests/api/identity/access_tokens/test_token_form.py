"""An access token's form (api/principal/access_tokens.py): a recognisable prefix, a checksum a
secret scanner can verify offline, and only its hash kept."""

from __future__ import annotations

import re
import zlib

from hypothesis import given
from hypothesis import strategies as st

from api.principal.access_tokens import (
    LENGTH,
    PREFIX,
    hash_access_token,
    is_access_token,
    new_access_token,
)

_FORM = re.compile(r"cat_[0-9A-Za-z]{36}")


def test_a_new_token_has_the_prefix_the_length_and_a_checksum_that_matches() -> None:
    tokens = {new_access_token() for _ in range(200)}
    assert len(tokens) == 200
    for token in tokens:
        assert _FORM.fullmatch(token)
        assert len(token) == LENGTH == 40
        assert is_access_token(token)


def test_the_checksum_is_the_crc32_of_the_random_part_in_base62() -> None:
    token = new_access_token()
    random_part, checksum = token[len(PREFIX) : -6], token[-6:]
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    value = 0
    for char in checksum:
        value = value * 62 + alphabet.index(char)
    assert value == zlib.crc32(random_part.encode())


@given(st.integers(min_value=len(PREFIX), max_value=LENGTH - 1), st.sampled_from("0aZ9"))
def test_a_changed_character_breaks_the_checksum(position: int, replacement: str) -> None:
    token = new_access_token()
    changed = token[:position] + replacement + token[position + 1 :]
    assert is_access_token(changed) == (changed == token)


def test_other_strings_are_not_tokens() -> None:
    token = new_access_token()
    for value in ("", token[:-1], token + "a", "ak_" + token[4:], token.replace("cat_", "CAT_")):
        assert not is_access_token(value)
    assert not is_access_token(token[:-1] + "!")


def test_only_the_sha256_is_kept() -> None:
    token = new_access_token()
    assert len(hash_access_token(token)) == 32
    assert hash_access_token(token) != hash_access_token(new_access_token())
