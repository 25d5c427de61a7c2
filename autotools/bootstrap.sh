#!/bin/sh
# Build jobprep from a fresh checkout on Debian/Ubuntu: install what the build
# and the tests use (only what is missing), then autoreconf, configure, make.
#
#   autotools/bootstrap.sh                 install, configure, build
#   JOBPREP_CONFIGURE_FLAGS=--enable-werror autotools/bootstrap.sh
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Build: compilers, autotools, libraries. Tests: cmocka, tmux, the git, web and
# ssh servers, sshfs, python3-jsonschema, the shells env output is tried in.
packages="build-essential autoconf automake autopoint gettext pkg-config
  libgit2-dev libcjson-dev libncurses-dev libcmocka-dev
  git tmux lighttpd lighttpd-mod-openssl openssl openssh-server openssh-client sshfs fuse3
  python3 python3-jsonschema python3-yaml dash zsh bash util-linux procps time
  slurm-wlm munge jq"

missing=
for p in $packages; do
	if ! dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed; then
		missing="$missing $p"
	fi
done

if [ -n "$missing" ]; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "bootstrap.sh: missing packages:$missing" >&2
		echo "bootstrap.sh: no apt-get here; install them with your package manager." >&2
		exit 1
	fi
	sudo=
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 || {
			echo "bootstrap.sh: need root or sudo to install:$missing" >&2
			exit 1
		}
		sudo=sudo
	fi
	echo "bootstrap.sh: installing:$missing"
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

autoreconf -fi
# shellcheck disable=SC2086
./configure ${JOBPREP_CONFIGURE_FLAGS-}
make -j"$(nproc 2>/dev/null || echo 2)"
