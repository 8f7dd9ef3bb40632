# `_match`, `_rule_for` and `CyclelessMatcher.match` are adapted from werkzeug 3.1
# (werkzeug/routing/matcher.py, StateMachineMatcher.match), under its licence:
#
# Copyright 2007 Pallets
#
# Redistribution and use in source and binary forms, with or without
# modification, are permitted provided that the following conditions are
# met:
#
# 1.  Redistributions of source code must retain the above copyright
#     notice, this list of conditions and the following disclaimer.
#
# 2.  Redistributions in binary form must reproduce the above copyright
#     notice, this list of conditions and the following disclaimer in the
#     documentation and/or other materials provided with the distribution.
#
# 3.  Neither the name of the copyright holder nor the names of its
#     contributors may be used to endorse or promote products derived from
#     this software without specific prior written permission.
#
# THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS
# "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT
# LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A
# PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT
# HOLDER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL,
# SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED
# TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR
# PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF
# LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING
# NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
# SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""werkzeug's URL matching without a reference cycle per request.

werkzeug 3.1's `StateMachineMatcher.match` walks its state machine through a recursive inner
function, `_match`, which refers to itself through the cell of its own closure: every request
(and every websocket handshake) leaves that function, its cells and what they hold (8 objects)
in a cycle that only the cyclic collector frees. The serving process freezes what survives
its young collections (playsite/gcwatch.py), so those cycles would wait for a full collection.

`CyclelessMatcher` matches exactly as werkzeug 3.1.x does (the same walk, rewritten as a
module-level function that carries its misses in a small object instead of `nonlocal`
variables); `install` gives it to an app's URL map. The port follows werkzeug's private
matcher, so it is installed only under the werkzeug release it was written from
(`WERKZEUG_SERIES`); tests/http/test_routercycles.py holds it to werkzeug's own answers.
The adapted part keeps werkzeug's licence (BSD-3-Clause) in the comment above; THIRD_PARTY.md
lists it.
"""

from __future__ import annotations

import re
import typing as t
from importlib.metadata import version

from werkzeug.routing import Map, Rule
from werkzeug.routing.converters import ValidationError
from werkzeug.routing.exceptions import NoMatch, RequestAliasRedirect, RequestPath
from werkzeug.routing.matcher import SlashRequired, State, StateMachineMatcher

WERKZEUG_SERIES = "3.1."
"""The werkzeug release series whose private matcher this module ports."""


class _Misses:
    """What a failed walk learned, for the 405/404 werkzeug raises: methods that would have matched
    and whether a rule matched but for being (or not being) a websocket."""

    __slots__ = ("methods", "websocket_mismatch")

    def __init__(self) -> None:
        self.methods: set[str] = set()
        self.websocket_mismatch = False


def _match(
    state: State, parts: list[str], values: list[str], method: str, websocket: bool, misses: _Misses
) -> tuple[Rule, list[str]] | None:
    # werkzeug 3.1's StateMachineMatcher.match.<locals>._match, step for step.
    if parts == []:
        rule = _rule_for(state.rules, method, websocket, misses)
        if rule is not None:
            return rule, values
        if "" in state.static:
            for rule in state.static[""].rules:
                if websocket == rule.websocket and (rule.methods is None or method in rule.methods):
                    if rule.strict_slashes:
                        raise SlashRequired()
                    return rule, values
        return None

    part = parts[0]
    if part in state.static:
        found = _match(state.static[part], parts[1:], values, method, websocket, misses)
        if found is not None:
            return found
    for test_part, new_state in state.dynamic:
        target = part
        remaining = parts[1:]
        if test_part.final:
            target = "/".join(parts)
            remaining = []
        match = re.compile(test_part.content).match(target)
        if match is not None:
            if test_part.suffixed:
                suffix = match.groups()[-1]
                if suffix == "/":
                    remaining = [""]
            converter_groups = sorted(
                (item for item in match.groupdict().items() if item[0].startswith("__werkzeug_")),
                key=lambda item: int(item[0][11:]),
            )
            groups = [item[1] for item in converter_groups]
            found = _match(new_state, remaining, values + groups, method, websocket, misses)
            if found is not None:
                return found

    if parts == [""]:
        rule = _rule_for(state.rules, method, websocket, misses, loose_only=True)
        if rule is not None:
            return rule, values
    return None


def _rule_for(
    rules: list[Rule], method: str, websocket: bool, misses: _Misses, *, loose_only: bool = False
) -> Rule | None:
    """The first of `rules` for `method` and (not) a websocket, noting why the others missed;
    `loose_only`: only among rules that do not insist on their trailing slash."""
    for rule in rules:
        if loose_only and rule.strict_slashes:
            continue
        if rule.methods is not None and method not in rule.methods:
            misses.methods.update(rule.methods)
        elif rule.websocket != websocket:
            misses.websocket_mismatch = True
        else:
            return rule
    return None


class CyclelessMatcher(StateMachineMatcher):
    """werkzeug's state-machine matcher, matching without a recursive closure."""

    def match(
        self, domain: str, path: str, method: str, websocket: bool
    ) -> tuple[Rule, t.MutableMapping[str, t.Any]]:  # werkzeug's own signature
        misses = _Misses()
        try:
            found = _match(self._root, [domain, *path.split("/")], [], method, websocket, misses)
        except SlashRequired:
            raise RequestPath(f"{path}/") from None

        if self.merge_slashes and found is None:
            path = re.sub("/{2,}", "/", path)
            try:
                found = _match(self._root, [domain, *path.split("/")], [], method, websocket, misses)
            except SlashRequired:
                raise RequestPath(f"{path}/") from None
            if found is None or found[0].merge_slashes is False:
                raise NoMatch(misses.methods, misses.websocket_mismatch)
            raise RequestPath(f"{path}")
        if found is None:
            raise NoMatch(misses.methods, misses.websocket_mismatch)
        rule, values = found
        result: dict[str, t.Any] = {}
        for name, value in zip(rule._converters.keys(), values):
            try:
                converted = rule._converters[name].to_python(value)
            except ValidationError as error:
                raise NoMatch(misses.methods, misses.websocket_mismatch) from error
            result[str(name)] = converted
        if rule.defaults:
            result.update(rule.defaults)
        if rule.alias and rule.map.redirect_defaults:
            raise RequestAliasRedirect(result, rule.endpoint)
        return rule, result


def install(url_map: Map) -> bool:
    """Give `url_map` a `CyclelessMatcher` holding the rules it already has (rules added later
    go to it too). Returns False, and leaves werkzeug's matcher, under another werkzeug series."""
    if not version("werkzeug").startswith(WERKZEUG_SERIES):
        return False
    matcher = CyclelessMatcher(url_map.merge_slashes)
    for rule in url_map.iter_rules():
        matcher.add(rule)
    url_map._matcher = matcher
    url_map._remap = True  # the next bind sorts the transitions (`update`), as after any add
    return True
