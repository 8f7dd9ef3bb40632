"""`POST /ingest/games`: the ecosystem site's report of a game played in the browser (against
its in-page bot), which its server relays to analytics. playsite declines it, clearly.

playsite reports to analytics only the games it refereed itself (docs/analytics.md): every
turn of those was checked by its rules, the dice came from its committed seed, and the report
leaves through its transactional outbox. A game played in a browser was seen by nobody but
the browser; relaying it under playsite's analytics credentials would vouch for moves and dice
playsite never saw. The answer is `422 ingest_not_accepted`, a permanent refusal: the site
files the report as rejected and does not send it again. Any body the edge accepts gets the
same answer without being parsed.
"""

from __future__ import annotations

from typing import NoReturn

from playsite.http.bodies import BODY_MAX_ANY, body_limit
from playsite.http.errors import Refusal, RouteFamily


def ingest_routes() -> RouteFamily:
    routes = RouteFamily("ingest", __name__)

    @routes.post("/ingest/games")
    @body_limit(BODY_MAX_ANY)  # a long game's report is larger than the usual 4 KiB; refused whole all the same
    async def ingest_game() -> NoReturn:
        raise Refusal(
            422, "ingest_not_accepted",
            "playsite reports only the games it refereed itself; a game played in the browser is not relayed",
        )

    return routes
