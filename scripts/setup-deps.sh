#!/usr/bin/env bash
# Installs everything rawgpu needs on Debian 12 (bookworm). Idempotent and quick when
# already done: it only touches apt when a package is missing.
set -euo pipefail

PKGS=(meson ninja-build pkg-config llvm-19-dev lld-19 liblld-19-dev clang-19 clang-format-19
      libpci-dev libusb-1.0-0-dev googletest libgtest-dev libgmock-dev libbenchmark-dev
      libzstd-dev zlib1g-dev libclang-rt-19-dev python3 pciutils libz3-dev)
MIN_MESON=1.7

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup-deps: need root or sudo to install packages" >&2; exit 1; }
  SUDO=sudo
fi

meson_ok() {
  command -v meson >/dev/null || return 1
  local v; v=$(meson --version 2>/dev/null) || return 1
  [ "$(printf '%s\n%s\n' "$MIN_MESON" "$v" | sort -V | head -n1)" = "$MIN_MESON" ]
}

# dpkg-query exits 1 when a package is unknown to dpkg (a fresh machine): not an error here.
installed=" $( (dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${PKGS[@]}" 2>/dev/null || true) |
  awk '$2 == "ii" { printf "%s ", $1 }') "
missing=()
for p in "${PKGS[@]}"; do
  [[ "$installed" == *" $p "* ]] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ] && meson_ok; then
  exit 0
fi
echo "setup-deps: installing: ${missing[*]:-meson>=$MIN_MESON}" >&2

# One deb822 source covering the components and suites rawgpu needs, unless the system
# already has them (contrib/non-free/non-free-firmware + bookworm-backports).
SRC=/etc/apt/sources.list.d/rawgpu.sources
have_backports() { grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; }
have_nonfree() { grep -rqs "non-free-firmware" /etc/apt/sources.list /etc/apt/sources.list.d/; }
if ! have_backports || ! have_nonfree; then
  $SUDO tee "$SRC" >/dev/null <<'SRCEOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main contrib non-free non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib non-free non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRCEOF
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${PKGS[@]}" meson/bookworm-backports >/dev/null
meson_ok || { echo "setup-deps: meson >= $MIN_MESON not available after install" >&2; exit 1; }
echo "setup-deps: done" >&2
