"""The demo's origins come from the address it serves; the operator's environment still wins."""

from __future__ import annotations

from playsite.demo.settings import demo_settings, origins_for, resolve_address

URL = "postgresql://127.0.0.1/playsite"


def test_the_origins_name_the_address_served_under_both_loopback_names():
    assert origins_for("127.0.0.1", 8080) == ("http://127.0.0.1:8080", ["http://127.0.0.1:8080", "http://localhost:8080"])
    assert origins_for("localhost", 9000)[1] == ["http://localhost:9000", "http://127.0.0.1:9000"]
    assert origins_for("::1", 9000)[0] == "http://[::1]:9000"
    assert origins_for("0.0.0.0", 8080)[0] == "http://127.0.0.1:8080"  # a wildcard is announced as loopback
    assert origins_for("192.0.2.7", 8080) == ("http://192.0.2.7:8080", ["http://192.0.2.7:8080"])


def test_port_zero_becomes_a_real_port_before_the_settings_are_made():
    host, port = resolve_address({}, None, 0)
    assert host == "127.0.0.1" and 0 < port < 65536
    settings = demo_settings({}, URL, host=host, port=port)
    assert settings.port == port and settings.public_origin == f"http://127.0.0.1:{port}"
    assert f"http://127.0.0.1:{port}" in settings.cors_origins and f"http://localhost:{port}" in settings.cors_origins


def test_the_operators_environment_wins_over_the_demos_origins():
    mine = {"PLAY_PUBLIC_ORIGIN": "https://play.example", "PLAY_CORS_ORIGINS": "https://play.example"}
    settings = demo_settings(mine, URL, host="127.0.0.1", port=8080)
    assert settings.public_origin == "https://play.example" and settings.cors_origins == ("https://play.example",)
    assert demo_settings({"PLAY_PORT": "9001"}, URL).port == 9001
