"""`GET /metrics`: what an operator watches, in Prometheus text (prometheus-client).

Mounted only when PLAY_METRICS_TOKEN is set, and answered only to `Authorization: Bearer
<that token>` (Prometheus's `authorization` scrape setting): the numbers say how busy the
service is, which the public need not know. Everything is read when scraped, from counts the
rooms and the socket limits keep anyway; nothing is added to a turn's path but a few integer
increments. Rates (turns per second, deliveries per second) are the scraper's `rate()` of the
counters.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from quart import Response, request

from playsite.gcwatch import GcWatch
from playsite.http.errors import Refusal, RouteFamily
from playsite.histogram import Histogram
from playsite.services import Services


WEBHOOK_OUTCOMES = ("applied", "declined", "refused", "timed_out", "unreachable", "garbled", "oversized_body",
                    "stale_registration")
"""Exported from the start at 0 (plus `http_<status>` once one happens), so rates exist before the first failure."""


def _histogram(
    name: str, documentation: str, histogram: Histogram, labels: dict[str, str] | None = None
) -> HistogramMetricFamily:
    family = HistogramMetricFamily(name, documentation, labels=list(labels or {}))
    family.add_metric(list((labels or {}).values()), histogram.cumulative(), sum_value=histogram.sum)
    return family


class ServiceCollector:
    """The service's own numbers, read from the running services at each scrape."""

    def __init__(self, services: Services, gc_watch: GcWatch):
        self.services = services
        self.gc_watch = gc_watch
        self.store_reachable: bool | None = None
        """The store's answer to the probe made by the scrape (before collecting)."""

    def collect(self) -> Iterator[Metric]:
        registry = self.services.registry
        counters = registry.counters
        yield GaugeMetricFamily("playsite_rooms_live", "Games being played or waiting for their players.", value=len(registry.live))
        yield GaugeMetricFamily(
            "playsite_rooms_awaiting_joins", "Games waiting for both seats to connect.", value=registry.awaiting_joins()
        )
        sockets = self.services.sockets
        total = sum(sockets.by_address.values())
        watching = sum(sockets.spectators_by_game.values())
        by_kind = GaugeMetricFamily("playsite_game_sockets", "Open game sockets, by kind.", labels=["kind"])
        by_kind.add_metric(["seat"], total - watching)
        by_kind.add_metric(["spectator"], watching)
        yield by_kind
        yield CounterMetricFamily(
            "playsite_game_socket_frames_paced",
            "Frames from game sockets that waited for their socket's pace (PLAY_SOCKET_FRAMES_PER_SECOND).",
            value=sockets.frames_paced,
        )
        depths = [room.queued_intents() for room in registry.live.values()]
        yield GaugeMetricFamily("playsite_room_intents_queued", "Intents waiting in all rooms' queues.", value=sum(depths))
        yield GaugeMetricFamily(
            "playsite_room_intents_queued_max", "The longest intent queue of any room.", value=max(depths, default=0)
        )
        trees = registry.trees.statistics()
        yield GaugeMetricFamily("playsite_tree_workers", "Worker processes computing legal-move trees.", value=trees["workers"])
        yield GaugeMetricFamily("playsite_tree_workers_busy", "Tree workers computing a batch of trees now.", value=trees["busy"])
        yield GaugeMetricFamily("playsite_tree_queue", "Trees asked for, waiting for a tree worker.", value=trees["queued"])
        computed = CounterMetricFamily("playsite_trees", "Legal-move trees computed, by where.", labels=["where"])
        computed.add_metric(["worker"], trees["by_workers"])
        computed.add_metric(["serving_process"], trees["here"])
        yield computed
        yield CounterMetricFamily(
            "playsite_trees_taken_back",
            "Trees computed in the serving process because no worker had taken them in time (among serving_process).",
            value=trees["taken_back"],
        )
        yield _histogram(
            "playsite_tree_wait_seconds", "A room asking for a roll's legal-move tree -> the tree (worker or here).",
            registry.trees.waits,
        )
        yield CounterMetricFamily(
            "playsite_tree_fallbacks", "Batches the worker pool failed to deliver, computed in the serving process.",
            value=trees["fallbacks"],
        )
        yield CounterMetricFamily("playsite_turns", "Turns played (forced passes not counted).", value=counters.turns)
        yield CounterMetricFamily("playsite_turns_refused", "Turns and draw answers refused.", value=counters.refused)
        yield CounterMetricFamily("playsite_games_ended", "Games that ended (any termination).", value=counters.games_ended)
        fanout = counters.fanout
        yield CounterMetricFamily("playsite_events_delivered", "Events queued to subscribers.", value=fanout.delivered)
        yield CounterMetricFamily(
            "playsite_events_dropped", "Events dropped for a full subscriber queue.", value=fanout.dropped_events
        )
        yield CounterMetricFamily(
            "playsite_subscribers_dropped", "Subscribers closed for lagging.", value=fanout.dropped_subscribers
        )
        yield _histogram(
            "playsite_turn_verdict_seconds", "A player command taken by its room -> its verdict (after the commit).",
            counters.verdict_s,
        )
        yield _histogram("playsite_store_write_seconds", "One store write attempt of a room.", counters.write_s)
        yield CounterMetricFamily(
            "playsite_store_write_failures", "Store write attempts of rooms that failed.", value=counters.write_failures
        )
        database = self.services.database
        if database is not None:
            timings = database.timings
            yield _histogram(
                "playsite_database_wait_seconds",
                "A database call -> it holds a connection (a worker thread's pooled one, or the event loop's).",
                timings.wait,
            )
            yield _histogram(
                "playsite_database_transaction_seconds",
                "A database call's transaction, BEGIN to COMMIT answered.", timings.transaction,
            )
            yield _histogram(
                "playsite_database_return_seconds",
                "A database call's COMMIT answered -> its caller runs again.", timings.return_,
            )
            yield CounterMetricFamily(
                "playsite_database_turn_writes_by_thread",
                "Writes a verdict waits for (a turn's, a game's last) sent by a worker thread: every"
                " connection of the event loop was busy.",
                value=database.writes_by_thread,
            )
        # one family with a series a generation: its HELP and TYPE once (ops review s74: they came
        # once a generation, which the text format does not allow)
        gc_pauses = HistogramMetricFamily(
            "playsite_gc_pause_seconds", "Pauses of the cyclic garbage collector, by generation.", labels=["generation"]
        )
        for generation, pauses in self.gc_watch.pauses.items():
            gc_pauses.add_metric([str(generation)], pauses.cumulative(), sum_value=pauses.sum)
        yield gc_pauses
        yield CounterMetricFamily(
            "playsite_gc_cpu_seconds", "CPU time of the cyclic collector's collections.", value=self.gc_watch.cpu_seconds
        )
        yield CounterMetricFamily(
            "playsite_gc_collected_objects", "Objects the cyclic collector freed.", value=self.gc_watch.collected
        )
        yield CounterMetricFamily(
            "playsite_gc_full_collections", "Periodic full collections (PLAY_GC_FULL_INTERVAL_S).",
            value=self.gc_watch.full_collections,
        )
        heap = self.services.heap_trim
        yield _histogram("playsite_heap_trim_seconds", "Pauses of the C heap's trims (PLAY_HEAP_TRIM_INTERVAL_S).", heap.pauses)
        yield CounterMetricFamily(
            "playsite_heap_trimmed_bytes", "What RSS fell by across the C heap's trims.", value=heap.trimmed_bytes
        )
        loop = self.services.loop_watch
        yield _histogram("playsite_event_loop_lag_seconds", "How late the event loop woke a task due at a deadline.", loop.lags)
        yield GaugeMetricFamily(
            "playsite_event_loop_lag_max_seconds", "The longest event-loop lag since the process started.", value=loop.worst_s
        )
        deliveries = CounterMetricFamily("playsite_webhook_deliveries", "Webhook delivery attempts, by outcome.", labels=["outcome"])
        outcomes = dict.fromkeys(WEBHOOK_OUTCOMES, 0) | self.services.webhooks.outcomes
        for outcome, count in sorted(outcomes.items()):
            deliveries.add_metric([outcome], count)
        yield deliveries
        if self.services.lease is not None:
            yield GaugeMetricFamily(
                "playsite_serving_lease_held", "1 while this process holds the database's serving lease.",
                value=int(self.services.lease.held),
            )
        if self.store_reachable is not None:
            yield GaugeMetricFamily(
                "playsite_store_reachable", "1 when the store answered the scrape's probe.", value=int(self.store_reachable)
            )


def metrics_routes(services: Services) -> RouteFamily:
    routes = RouteFamily("metrics", __name__)
    token = services.settings.metrics_token
    registry = CollectorRegistry(auto_describe=False)
    collector = ServiceCollector(services, services.gc_watch)
    registry.register(collector)
    registry.register(ProcessCollector(registry=None))

    @routes.get("/metrics")
    async def metrics() -> Response:
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            raise Refusal(401, "unauthorized", "metrics need Authorization: Bearer <PLAY_METRICS_TOKEN>",
                          {"WWW-Authenticate": 'Bearer realm="metrics"'})
        collector.store_reachable = (await services.store.health()).reachable
        return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})

    return routes
