"""The operator's dashboard (ops/grafana/playsite.json) and alert rules (ops/prometheus/alerts.yml)
name only metrics that a running server's `GET /metrics` exports, and both are well formed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
import yaml

from tests.support.database import migrated_url  # noqa: F401  (fixture)

pytestmark = pytest.mark.postgres
ROOT = Path(__file__).resolve().parent.parent
DASHBOARD = ROOT / "ops" / "grafana" / "playsite.json"
ALERTS = ROOT / "ops" / "prometheus" / "alerts.yml"
TOKEN = "operations-test-token"
PROMETHEUS_OWN = {"up"}
"""Series Prometheus records itself for every scrape."""
PROMQL_WORDS = {
    "rate", "irate", "increase", "sum", "by", "le", "histogram_quantile", "and", "or", "unless", "max", "min",
    "avg", "without", "label_values", "count", "on", "ignoring", "bool", "offset",
}
METRIC = re.compile(r"\b([a-z_][a-z0-9_]*)\s*(?=\{|\[|\)|\s|$)")


def names_in(expression: str) -> set[str]:
    """The metric names a PromQL expression reads (label matchers, strings and functions left out)."""
    bare = re.sub(r"\{[^}]*\}", "{}", expression)  # label matchers and their strings
    bare = re.sub(r'"[^"]*"', '""', bare)
    bare = re.sub(r"\[[^\]]*\]", "[]", bare)  # ranges such as [5m] or [$__rate_interval]
    bare = re.sub(r"by \([^)]*\)", "", bare)
    found = {name for name in METRIC.findall(bare) if name not in PROMQL_WORDS}
    return {name for name in found if "_" in name or name in PROMETHEUS_OWN}


def exported(text: str) -> set[str]:
    """Every series name in a Prometheus text exposition, histogram parts included."""
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line and not line.startswith("#")}


def dashboard_expressions() -> list[str]:
    board = json.loads(DASHBOARD.read_text())
    expressions = []
    for panel in board["panels"]:
        expressions += [target["expr"] for target in panel.get("targets", [])]
    for variable in board["templating"]["list"]:
        expressions.append(re.sub(r"label_values\((.*),\s*\w+\)$", r"\1", variable["query"]))
    return expressions


def alert_rules() -> list[dict]:
    rules = [rule for group in yaml.safe_load(ALERTS.read_text())["groups"] for rule in group["rules"]]
    return rules


def test_the_expression_reader_finds_metric_names():
    assert names_in('histogram_quantile(0.99, sum by (le) (rate(a_b_bucket{job="$job"}[5m]))) > 0.1') == {"a_b_bucket"}
    assert names_in('x_total{outcome!~"applied|y_z"} and up{job="p"} == 0') == {"x_total", "up"}


def test_the_dashboard_is_importable_and_every_panel_has_a_query():
    board = json.loads(DASHBOARD.read_text())
    assert board["__inputs"][0]["pluginId"] == "prometheus"
    assert board["uid"] and board["title"] == "playsite"
    ids = [panel["id"] for panel in board["panels"]]
    assert len(ids) == len(set(ids))
    for panel in board["panels"]:
        if panel["type"] != "row":
            assert panel["targets"], panel["title"]
            assert panel["datasource"]["uid"] == "${DS_PROMETHEUS}"


def test_every_alert_rule_is_complete():
    rules = alert_rules()
    names = [rule["alert"] for rule in rules]
    assert len(names) == len(set(names))
    for wanted in ("PlaysiteServingLeaseLost", "PlaysiteDatabaseUnreachable", "PlaysiteVerdictSlow",
                   "PlaysiteEventLoopLag", "PlaysiteWebhookFailuresPilingUp"):
        assert wanted in names
    for rule in rules:
        assert rule["expr"].strip() and rule["labels"]["severity"] in {"critical", "warning"}
        assert rule["annotations"]["summary"] and re.fullmatch(r"\d+[smh]", rule["for"])


def test_dashboard_and_alerts_name_only_metrics_a_running_server_exports(serve, migrated_url):  # noqa: F811
    server = serve({"DATABASE_URL": migrated_url, "PLAY_METRICS_TOKEN": TOKEN, "WEBHOOK_PUSH_ENABLED": "true"})
    answer = httpx.get(f"{server.base_url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert answer.status_code == 200
    series = exported(answer.text) | PROMETHEUS_OWN
    for wanted in ("playsite_serving_lease_held", "playsite_store_reachable", "playsite_event_loop_lag_seconds_bucket",
                   "playsite_event_loop_lag_max_seconds"):
        assert wanted in series
    assert re.search(r"^playsite_serving_lease_held 1\.0$", answer.text, re.M)
    assert re.search(r"^playsite_store_reachable 1\.0$", answer.text, re.M)
    assert 'playsite_webhook_deliveries_total{outcome="timed_out"} 0.0' in answer.text
    named = set()
    for expression in dashboard_expressions() + [rule["expr"] for rule in alert_rules()]:
        named |= names_in(expression)
    assert "playsite_turn_verdict_seconds_bucket" in named  # the reader found the dashboard's names
    assert named - series == set()
