#!/bin/sh
# Runs a command (typically the conformance runner with --unsafe) in a private
# mount namespace where the directories user and mount tests change are
# throwaway copies: /etc and /var/log are copied, /home, /var/mail and
# /var/spool/mail are empty tmpfs. The machine outside never changes.
# usage: scripts/conformance/sandboxed.sh command [args...]
set -eu
[ "$(id -u)" = 0 ] || { echo "sandboxed.sh: must run as root (it makes a mount namespace)" >&2; exit 2; }
command -v unshare >/dev/null || { echo "sandboxed.sh: unshare is absent" >&2; exit 2; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/tend-sandbox-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
unshare -m --propagation private sh -eu -c '
  s=$0
  cp -a /etc "$s/etc" && mount --bind "$s/etc" /etc
  cp -a /var/log "$s/log" && mount --bind "$s/log" /var/log
  for d in /home /var/mail /var/spool/mail; do
    [ -d "$d" ] && [ ! -L "$d" ] && mount -t tmpfs tmpfs "$d"
  done
  exec "$@"
' "$scratch" "$@"
