#!/bin/sh
# Runs a command beside a throwaway PostgreSQL cluster: initdb into a
# temporary directory, the server on 127.0.0.1 at a free port (trust auth,
# no fsync: nothing here outlives the run), ECF_TEST_DATABASE_URL pointing at
# it. The cluster is stopped and removed when the command ends. PostgreSQL
# refuses to run as root, so as root the cluster belongs to the `postgres` user.
# Without a PostgreSQL server installed the command is skipped (said on
# stderr), unless ECF_REQUIRE_POSTGRES=1 (CI), which makes that a failure.
set -eu
bin=${ECF_POSTGRES_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "with-postgres: no PostgreSQL server found (install the postgresql package or set ECF_POSTGRES_BIN); skipped: $*" >&2
  [ "${ECF_REQUIRE_POSTGRES:-}" = 1 ] && exit 1
  exit 0
fi
dir=$(mktemp -d /tmp/ecf-pg.XXXXXX)
as_owner() { "$@"; }
if [ "$(id -u)" = 0 ]; then
  chown postgres "$dir"
  as_owner() { runuser -u postgres -- "$@"; }
fi
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
stop() {
  as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
trap 'exit 130' INT TERM
as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400" start >/dev/null ||
  { cat "$dir/server.log" >&2; exit 1; }
export ECF_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
set +e
"$@"
status=$?
exit $status
