#!/bin/sh
# Runs a command inside a private D-Bus session with a fresh, unlocked
# gnome-keyring (its files in a temporary directory, never the user's own), so
# keychain tests store and read through a real Secret Service. Where either is
# missing the command runs as it is, and keychain tests report that they skipped
# (or fail, when ECF_REQUIRE_KEYCHAIN=1 as in CI).
if [ -n "${ECF_IN_KEYRING_SESSION:-}" ] || ! command -v dbus-run-session >/dev/null 2>&1 || ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
  exec "$@"
fi
export ECF_IN_KEYRING_SESSION=1
exec dbus-run-session -- sh -c '
  keyrings=$(mktemp -d)
  printf "ecf-test-keyring" | XDG_DATA_HOME="$keyrings" gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
  "$@"
  status=$?
  rm -rf "$keyrings"
  exit $status
' sh "$@"
