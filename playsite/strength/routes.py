"""Public strength reads: GET /strength and GET /bots/{team}/{name}/strength (docs/bots/strength.md).

Both answer from the report the boot's `StrengthReports` keeps; no request computes
anything. Before the first report exists: 503 `temporarily_unavailable` with Retry-After.
"""

from __future__ import annotations

from quart import Response

from playsite.bots.directory import SLUG, BotDirectory
from playsite.http.errors import Refusal, RouteFamily, temporarily_unavailable
from playsite.http.responses import NO_CACHE, json_response
from playsite.strength.report import encode_profile
from playsite.strength.service import StrengthReports

NOT_YET = "the strength report has not been computed yet; try again shortly"


def strength_routes(reports: StrengthReports, bots: BotDirectory) -> RouteFamily:
    """The reads of the report `reports` keeps; a bot's own part for each bot `bots` has registered."""
    routes = RouteFamily("strength_routes", __name__)

    @routes.get("/strength")
    async def strength_report() -> Response:
        if reports.body is None:
            raise temporarily_unavailable(NOT_YET)
        return json_response(reports.body, headers=NO_CACHE)

    @routes.get("/bots/<team>/<name>/strength")
    async def bot_strength(team: str, name: str) -> Response:
        account = bots.get(f"{team}/{name}")
        if account is None or not account.registered:
            named = SLUG.fullmatch(team) and SLUG.fullmatch(name)  # echo only what could be a bot's name
            raise Refusal(404, "bot_not_found", f"no registered bot {team}/{name}" if named else "no registered bot with this name")
        report = reports.report
        if report is None:
            raise temporarily_unavailable(NOT_YET)
        return json_response(encode_profile(report, account.team, account.name, account.public_name), headers=NO_CACHE)

    return routes
