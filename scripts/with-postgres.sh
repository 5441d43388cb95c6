#!/bin/sh
# Runs a command beside a throwaway PostgreSQL cluster: initdb into a
# temporary directory, the server on 127.0.0.1 at a free port (trust auth,
# no fsync: nothing here outlives the run), ECF_TEST_DATABASE_URL pointing at
# it. The cluster is stopped and removed when the command ends. PostgreSQL
# refuses to run as root, so as root the cluster belongs to the `postgres` user.
# Without a PostgreSQL server installed the command is skipped (said on
# stderr), unless ECF_REQUIRE_POSTGRES=1 (CI), which makes that a failure.
#
# ECF_POSTGRES_DIR=<dir> keeps the cluster instead (for a big bench store
# loaded once and queried many times: bench/list-million.bench.ts
# BENCH_PG_REUSE=1): initdb only when <dir>/data does not exist yet, the port
# kept in <dir>/port, the server stopped (not removed) when the command ends.
# The cluster still runs without fsync: a crash of the machine may lose it.
set -eu
bin=${ECF_POSTGRES_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "with-postgres: no PostgreSQL server found (install the postgresql package or set ECF_POSTGRES_BIN); skipped: $*" >&2
  [ "${ECF_REQUIRE_POSTGRES:-}" = 1 ] && exit 1
  exit 0
fi
kept=${ECF_POSTGRES_DIR:-}
if [ -n "$kept" ]; then
  mkdir -p "$kept"
  dir=$(cd "$kept" && pwd)
else
  dir=$(mktemp -d /tmp/ecf-pg.XXXXXX)
fi
as_owner() { "$@"; }
if [ "$(id -u)" = 0 ]; then
  chown postgres "$dir"
  as_owner() { runuser -u postgres -- "$@"; }
fi
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
if [ -n "$kept" ]; then
  [ -s "$dir/port" ] || free_port >"$dir/port"
  port=$(cat "$dir/port")
  stop() { as_owner "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true; }
else
  port=$(free_port)
  stop() {
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
  }
fi
trap stop EXIT
trap 'exit 130' INT TERM
if [ ! -d "$dir/data" ]; then
  as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
fi
if [ -n "$kept" ] && as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
  # Already running (another command on the kept cluster): it is left running for that one.
  trap - EXIT
else
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400" start >/dev/null ||
    { cat "$dir/server.log" >&2; exit 1; }
fi
export ECF_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
set +e
"$@"
status=$?
exit $status
