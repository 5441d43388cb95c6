#!/bin/sh
# Runs a command inside a private D-Bus session with a fresh, unlocked
# gnome-keyring (its files in a temporary directory, never the user's own), so
# keychain tests store and read through a real Secret Service. Where either is
# missing the command runs as it is, and keychain tests report that they skipped
# (or fail, when ECF_REQUIRE_KEYCHAIN=1 as in CI).
#
# The daemon runs in the foreground as this script's child, with runtime and
# data directories of its own, on a bus that cannot start services by itself:
# once a CI run lost its daemon midway and the bus quietly started the
# system's default one (the user's keyrings, locked), and every keychain test
# after that failed with "no result found". Now a lost daemon means the
# Secret Service is gone, and this script says so.
if [ -n "${ECF_IN_KEYRING_SESSION:-}" ] || ! command -v dbus-run-session >/dev/null 2>&1 || ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
  exec "$@"
fi
export ECF_IN_KEYRING_SESSION=1
here=$(mktemp -d)
cat > "$here/session.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:dir=$here</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
dbus-run-session --config-file="$here/session.conf" -- sh -c '
  here=$1; shift
  mkdir -m 700 "$here/run" "$here/data"
  printf "ecf-test-keyring" | XDG_RUNTIME_DIR="$here/run" XDG_DATA_HOME="$here/data" \
    gnome-keyring-daemon --foreground --unlock --components=secrets >"$here/daemon.log" 2>&1 &
  daemon=$!
  tries=0
  until gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
      --method org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets 2>/dev/null | grep -q true; do
    tries=$((tries + 1))
    if [ $tries -gt 100 ] || ! kill -0 $daemon 2>/dev/null; then
      echo "with-keyring: gnome-keyring-daemon did not start:" >&2
      cat "$here/daemon.log" >&2
      kill $daemon 2>/dev/null
      exit 70
    fi
    sleep 0.1
  done
  "$@"
  status=$?
  if ! kill -0 $daemon 2>/dev/null; then
    echo "with-keyring: gnome-keyring-daemon exited during the run; keychain tests after that point failed for want of a Secret Service. Its output:" >&2
    cat "$here/daemon.log" >&2
    [ $status -eq 0 ] && status=70
  fi
  kill $daemon 2>/dev/null
  wait $daemon 2>/dev/null
  exit $status
' sh "$here" "$@"
status=$?
rm -rf "$here"
exit $status
