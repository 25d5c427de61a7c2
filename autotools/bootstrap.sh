#!/bin/sh
# Build jobprep from a fresh checkout on Debian/Ubuntu: install what is missing,
# then autoreconf, configure, make (make alone when the tree is configured
# already with the same JOBPREP_CONFIGURE_FLAGS).
#
#   autotools/bootstrap.sh           what the build and the program need
#   autotools/bootstrap.sh --tests   that, plus what `make check` needs: cmocka,
#                                    tmux, the git, web and ssh servers, sshfs,
#                                    Slurm and munge, the shells env.sh is tried
#                                    in. Their system services are not started
#                                    (a policy-rc.d during the install): the
#                                    tests start their own, on loopback.
#   JOBPREP_CONFIGURE_FLAGS=--enable-werror autotools/bootstrap.sh --tests
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

usage() {
	echo "usage: autotools/bootstrap.sh [--tests]" >&2
	exit 2
}

tests=no
for arg in "$@"; do
	case $arg in
	--tests) tests=yes ;;
	-h | --help)
		sed -n '2,12s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	*) usage ;;
	esac
done

# The build and the program: compilers, autotools, gettext, the libraries,
# git (jobprep asks `git credential` for tokens) and bash-completion (what
# loads the completion `make install` puts in its completions folder).
packages="build-essential autoconf automake autopoint gettext pkg-config
  libgit2-dev libcjson-dev libncurses-dev libxxhash-dev libarchive-dev
  libcurl4-openssl-dev libssl-dev libmount-dev git bash-completion"
# The tests: real servers and tools, started by the tests themselves.
test_packages="libcmocka-dev tmux lighttpd lighttpd-mod-openssl openssl
  openssh-server openssh-client sshfs fuse3 python3 python3-jsonschema python3-yaml
  dash zsh bash busybox util-linux procps time slurm-wlm munge jq
  tar gzip zstd xz-utils bzip2 zip strace locales e2fsprogs mount groff-base git-lfs
  python3-venv iproute2 curl"
[ "$tests" = yes ] && packages="$packages $test_packages"

missing=
for p in $packages; do
	if ! dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed; then
		missing="$missing $p"
	fi
done

# install_quietly PKG...: apt-get install with no service started by the
# packages' scripts (invoke-rc.d asks policy-rc.d; 101 means "not now").
install_quietly() {
	policy=/usr/sbin/policy-rc.d
	made_policy=no
	if [ ! -e "$policy" ]; then
		# shellcheck disable=SC2016
		$sudo sh -c 'printf "#!/bin/sh\n# jobprep bootstrap.sh: no service starts during this install\nexit 101\n" >"$1" && chmod 755 "$1"' sh "$policy"
		made_policy=yes
		trap '$sudo rm -f "$policy"' EXIT INT TERM HUP
	fi
	# TMPDIR left out: packages' maintainer scripts (openssh-server's
	# postinst) use it unquoted, and a TMPDIR with a space breaks them
	$sudo env -u TMPDIR apt-get update -qq
	# shellcheck disable=SC2086
	$sudo env -u TMPDIR DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
	if [ "$made_policy" = yes ]; then
		$sudo rm -f "$policy"
		trap - EXIT INT TERM HUP
	fi
}

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
	# shellcheck disable=SC2086
	install_quietly $missing
fi

# configured_as FLAGS...: this tree is configured already, with FLAGS
# (config.status --config quotes each one); then, when no package was
# installed just now (configure must see a new one), make alone is enough, and
# automake's own rules run autoconf, automake or configure again for what
# changed since. A second bootstrap (the quick start, then the test
# command) no longer rebuilds everything.
configured_as() {
	[ -x config.status ] && [ -f Makefile ] || return 1
	want=
	for f in "$@"; do
		want="$want${want:+ }'$f'"
	done
	[ "$(./config.status --config 2>/dev/null)" = "$want" ]
}

# shellcheck disable=SC2086
if [ -n "$missing" ] || ! configured_as ${JOBPREP_CONFIGURE_FLAGS-}; then
	autoreconf -fi
	# shellcheck disable=SC2086
	./configure ${JOBPREP_CONFIGURE_FLAGS-}
fi
make -j"$(nproc 2>/dev/null || echo 2)"
