#!/bin/sh
# Installs the ecf directory build as a systemd service.
#
#   sudo ./installers/linux/install.sh [--from DIR] [--root DIR] [--no-start]
#
# --from  the directory build (`npm run package`); by default the one this script is in.
# --root  install into another root (a chroot, an image, a test): files only; the
#         service user is created there, the unit enabled there, nothing is started.
# --no-start  install and enable, but do not start the service now.
#
# What it does:
#   - a system user and group `ecf` (no login, home /var/lib/ecf);
#   - the build copied to /opt/ecf;
#   - /var/lib/ecf, the data directory, owned by ecf, mode 700;
#   - /etc/ecf/ecf.env (kept if present): ECF_DATA_DIR and the serve flags;
#   - /etc/systemd/system/ecf.service, enabled (and started);
#   - /etc/systemd/system/ecf-backup.service and ecf-backup.timer (a nightly `ecf backup` into
#     /var/backups/ecf, owned by ecf, mode 700), the timer enabled once /etc/ecf/backup-passphrase
#     (root only, mode 600: the passphrase that seals the backups) exists;
#   - /usr/local/bin/ecf, for people: it runs the CLI as the service user on the same
#     data directory, so members of the group `ecf` can use it
#     (sudo usermod -aG ecf ana), through /etc/sudoers.d/ecf;
#   - the data directory initialised as the service user with the encrypted-file
#     secret store (a headless server has no desktop keychain): the key file is
#     readable by ecf only.
set -eu

from=""
root=""
start=yes
while [ $# -gt 0 ]; do
  case "$1" in
    --from) from="$2"; shift 2 ;;
    --root) root="$2"; shift 2 ;;
    --no-start) start=no; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

here=$(dirname "$(readlink -f "$0")")
[ -n "$from" ] || from=$(readlink -f "$here/../..")
if [ ! -x "$from/bin/ecf" ] || [ ! -d "$from/runtime" ] || [ ! -d "$from/app" ]; then
  echo "install.sh: $from is not an ecf directory build (bin/ecf, runtime/, app/); make one with npm run package" >&2
  exit 2
fi
if [ "$(id -u)" != 0 ]; then
  echo "install.sh: run as root (sudo), it creates a system user and a service" >&2
  exit 2
fi
if [ -n "$root" ]; then
  root=$(readlink -f "$root")
  [ -d "$root/etc" ] || { echo "install.sh: $root/etc does not exist; --root needs a root with /etc/passwd and /etc/group" >&2; exit 2; }
  rootflag="--root $root"
else
  rootflag=""
fi

user=ecf
data=/var/lib/ecf

# ---- the service user ----
if ! grep -q "^$user:" "$root/etc/passwd"; then
  nologin=/usr/sbin/nologin
  [ -x "$root$nologin" ] || [ -n "$root" ] || nologin=/bin/false
  # shellcheck disable=SC2086
  useradd $rootflag --system --user-group --home-dir "$data" --no-create-home --shell "$nologin" --comment "ecf e-CF appliance" "$user"
fi
uid=$(awk -F: -v u="$user" '$1 == u { print $3 }' "$root/etc/passwd")
gid=$(awk -F: -v u="$user" '$1 == u { print $4 }' "$root/etc/passwd")

# ---- the build, replaced whole on upgrade ----
mkdir -p "$root/opt"
rm -rf "$root/opt/ecf.new"
cp -a "$from" "$root/opt/ecf.new"
chown -R 0:0 "$root/opt/ecf.new"
rm -rf "$root/opt/ecf.old"
[ ! -e "$root/opt/ecf" ] || mv "$root/opt/ecf" "$root/opt/ecf.old"
mv "$root/opt/ecf.new" "$root/opt/ecf"
rm -rf "$root/opt/ecf.old"

# ---- the data directory ----
mkdir -p "$root$data"
chown "$uid:$gid" "$root$data"
chmod 700 "$root$data"

# ---- the backups ----
mkdir -p "$root/var/backups/ecf"
chown "$uid:$gid" "$root/var/backups/ecf"
chmod 700 "$root/var/backups/ecf"

# ---- settings ----
mkdir -p "$root/etc/ecf"
if [ ! -e "$root/etc/ecf/ecf.env" ]; then
  cat > "$root/etc/ecf/ecf.env" <<ENV
# Read by ecf.service and by /usr/local/bin/ecf.
ECF_DATA_DIR=$data
# 0.0.0.0 opens the API to the office LAN (API keys still required).
ECF_SERVE_ARGS=--host 127.0.0.1 --port 8787
ENV
fi
chmod 644 "$root/etc/ecf/ecf.env"

# ---- the units ----
mkdir -p "$root/etc/systemd/system"
for unit in ecf.service ecf-backup.service ecf-backup.timer; do
  cp "$from/installers/linux/$unit" "$root/etc/systemd/system/$unit"
  chmod 644 "$root/etc/systemd/system/$unit"
done
[ ! -e "$root/etc/ecf/backup-passphrase" ] || chmod 600 "$root/etc/ecf/backup-passphrase"

# ---- the CLI for people ----
mkdir -p "$root/usr/local/bin" "$root/etc/sudoers.d"
cat > "$root/usr/local/bin/ecf" <<'WRAPPER'
#!/bin/sh
# ecf on the service's data directory, as the service user (members of group ecf).
[ -r /etc/ecf/ecf.env ] && . /etc/ecf/ecf.env
export ECF_DATA_DIR
if [ "$(id -un)" = ecf ]; then exec /opt/ecf/bin/ecf "$@"; fi
exec sudo -u ecf --preserve-env=ECF_DATA_DIR /opt/ecf/bin/ecf "$@"
WRAPPER
chmod 755 "$root/usr/local/bin/ecf"
cat > "$root/etc/sudoers.d/ecf" <<'SUDOERS'
# Members of the group ecf run the ecf CLI as the service user (installers/linux/install.sh).
Defaults!/opt/ecf/bin/ecf env_keep += "ECF_DATA_DIR"
%ecf ALL=(ecf) NOPASSWD: /opt/ecf/bin/ecf
SUDOERS
chmod 440 "$root/etc/sudoers.d/ecf"

# ---- enable, initialise, start ----
if [ -n "$root" ]; then
  systemctl --root="$root" enable ecf.service >/dev/null 2>&1 || {
    mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
    ln -sf /etc/systemd/system/ecf.service "$root/etc/systemd/system/multi-user.target.wants/ecf.service"
  }
  if [ -e "$root/etc/ecf/backup-passphrase" ]; then
    systemctl --root="$root" enable ecf-backup.timer >/dev/null 2>&1 || {
      mkdir -p "$root/etc/systemd/system/timers.target.wants"
      ln -sf /etc/systemd/system/ecf-backup.timer "$root/etc/systemd/system/timers.target.wants/ecf-backup.timer"
    }
  fi
  echo "installed into $root (files only; the service was not started)"
  exit 0
fi
runuser -u "$user" -- env ECF_DATA_DIR="$data" /opt/ecf/bin/ecf init --yes >/dev/null
runuser -u "$user" -- env ECF_DATA_DIR="$data" /opt/ecf/bin/ecf settings set secrets.store file >/dev/null
systemctl daemon-reload
if [ "$start" = yes ]; then
  systemctl enable --now ecf.service
  echo "ecf is running: systemctl status ecf; logs: journalctl -u ecf"
else
  systemctl enable ecf.service
  echo "ecf is installed and enabled; start it with: systemctl start ecf"
fi
if [ -e /etc/ecf/backup-passphrase ]; then
  systemctl enable --now ecf-backup.timer
  echo "nightly backups: /var/backups/ecf (systemctl list-timers ecf-backup)"
else
  echo "nightly backups: write their passphrase to /etc/ecf/backup-passphrase (sudo install -m 600 /dev/stdin /etc/ecf/backup-passphrase),"
  echo "  keep a copy of it off this machine, then: sudo systemctl enable --now ecf-backup.timer"
fi
echo "people who use the ecf command: sudo usermod -aG ecf NAME (then log in again)"
