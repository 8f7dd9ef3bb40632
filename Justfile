# Recipes wrap the README commands; `just` itself is installed into .venv by the test extras.
venv := ".venv/bin"

# The whole product locally: private PostgreSQL, the server, the featured bot, the showcase (docs/demo.md).
demo:
    {{venv}}/playsite demo

# Run the server with the embedded in-memory default (http://0.0.0.0:8080).
serve:
    {{venv}}/playsite serve

# The whole test suite, PostgreSQL included (the suite starts its own throwaway cluster).
test *args:
    {{venv}}/pytest {{args}}

# Apply pending migrations to $DATABASE_URL.
migrate:
    {{venv}}/playsite migrate

# A throwaway PostgreSQL cluster for local work; prints its URL, Ctrl-C removes it.
devdb:
    {{venv}}/python tools/devdb.py

# Benchmarks (not tests): each writes a Markdown table to bench/results/.
bench:
    for script in bench/*.py; do {{venv}}/python "$script" || exit 1; done
