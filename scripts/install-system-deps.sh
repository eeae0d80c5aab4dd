#!/usr/bin/env bash
# System packages the project needs: ALSA headers (to build the optional `speaker`), arecord (the microphone on Linux), and sox,
# espeak-ng, ffmpeg, tmux, curl, zsh, fish and tinyproxy (a real proxy) and gcc for the test suite (audio fixtures,
# terminal, shell and network tests, the write(2) shim of test/helpers/stdout-faults.ts).
# One list per package manager (apt, dnf, apk, brew; add a package to each list): the first manager found installs
# what is missing (root or sudo for all but brew). With none of them, or when installing fails, it prints what to
# install and continues: the tests that need a missing tool say which.
# SVC_SETUP_MANAGER=apt|dnf|apk|brew|none chooses instead of looking (none: only print).
set -uo pipefail

APT=(libasound2-dev alsa-utils libasound2-plugins sox espeak-ng ffmpeg tmux curl zsh fish tinyproxy-bin gcc libc6-dev)
DNF=(alsa-lib-devel alsa-utils alsa-plugins-pulseaudio sox espeak-ng ffmpeg-free tmux curl zsh fish tinyproxy gcc glibc-devel)
APK=(alsa-lib-dev alsa-utils alsa-plugins sox espeak-ng ffmpeg tmux curl zsh fish tinyproxy gcc musl-dev)
# macOS: no ALSA (speaker builds on CoreAudio; the microphone is recorded with sox)
BREW=(sox espeak-ng ffmpeg tmux zsh fish tinyproxy)
TOOLS="tmux zsh fish ffmpeg sox espeak-ng curl arecord tinyproxy gcc"

manager="${SVC_SETUP_MANAGER:-}"
if [ -z "$manager" ]; then
  for m in apt-get dnf apk brew; do
    if command -v "$m" >/dev/null 2>&1; then manager="${m%-get}"; break; fi
  done
fi

SUDO=""
if [ "$manager" != brew ] && [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

advise() {
  echo "system packages: $1; install these yourself (the tests that need one say which is missing):"
  echo "  Debian/Ubuntu: ${APT[*]}"
  echo "  Fedora/RHEL:   ${DNF[*]}"
  echo "  Alpine:        ${APK[*]}"
  echo "  macOS (brew):  ${BREW[*]}"
  local missing=""
  for t in $TOOLS; do command -v "$t" >/dev/null 2>&1 || missing+=" $t"; done
  [ -n "$missing" ] && echo "  missing on PATH now:$missing"
  return 0
}

case "$manager" in
  apt)
    need=()
    for p in "${APT[@]}"; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
    done
    [ ${#need[@]} -eq 0 ] && { echo "system packages: all present"; exit 0; }
    echo "system packages (apt): installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; } ||
      advise "apt-get failed"
    ;;
  dnf)
    need=()
    for p in "${DNF[@]}"; do rpm -q "$p" >/dev/null 2>&1 || need+=("$p"); done
    [ ${#need[@]} -eq 0 ] && { echo "system packages: all present"; exit 0; }
    echo "system packages (dnf): installing ${need[*]}"
    $SUDO dnf install -y -q "${need[@]}" || advise "dnf failed"
    ;;
  apk)
    echo "system packages (apk): installing what is missing of ${APK[*]}"
    $SUDO apk add --no-cache -q "${APK[@]}" || advise "apk failed"
    ;;
  brew)
    need=()
    for p in "${BREW[@]}"; do brew list --versions "$p" >/dev/null 2>&1 || need+=("$p"); done
    [ ${#need[@]} -eq 0 ] && { echo "system packages: all present"; exit 0; }
    echo "system packages (brew): installing ${need[*]}"
    brew install -q "${need[@]}" || advise "brew failed"
    ;;
  *)
    advise "no package manager svc knows (apt, dnf, apk, brew)"
    ;;
esac
exit 0
