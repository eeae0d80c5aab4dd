#!/usr/bin/env bash
# System packages the project needs: ALSA headers (to build the optional `speaker`), arecord (for `mic`),
# and sox, espeak-ng, ffmpeg, tmux, zsh, fish, tinyproxy (a real proxy) for the test suite (audio fixtures, terminal and shell tests). Installs only what is missing; needs root or sudo.
set -euo pipefail
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
for p in libasound2-dev alsa-utils libasound2-plugins sox espeak-ng ffmpeg tmux curl zsh fish tinyproxy-bin; do
  have_pkg "$p" || need+=("$p")
done
[ ${#need[@]} -eq 0 ] && { echo "system packages: all present"; exit 0; }
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "system packages: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
