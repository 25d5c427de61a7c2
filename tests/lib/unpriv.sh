# Shell helpers for a test that runs something as the unprivileged user
# nobody. What nobody runs and touches must not be in the build tree or in
# the test's scratch folder: either may sit under a 0700 folder (/root, a
# home made by adduser, a 0700 $TMPDIR) that nobody cannot enter. Source it:
#
#   . "$TOP_SRCDIR/tests/lib/unpriv.sh"
#   if why=$(jp_unpriv_unavailable); then ... skip, saying "$why" ...; fi
#   U=$(jp_unpriv_dir) || ...         a fresh 0755 folder nobody can reach,
#                                     under $TMPDIR, else /tmp, /var/tmp or
#                                     /dev/shm; remove it yourself (trap)
#   jp_unpriv_jobprep "$U" || ...     a copy of $JOBPREP in $U/bin that nobody
#                                     can run (with the build tree's shared
#                                     libraries it needs, if any); sets
#                                     JP_UNPRIV_JOBPREP
#   jp_unpriv_run "$U" CMD...         CMD as nobody (its groups only), with
#                                     HOME=$U/home
#
# Needs root (to become nobody), setpriv (util-linux) and a user nobody.

# jp_unpriv_unavailable: prints why nothing can be run as nobody here (and
# returns 0), or returns 1 when it can.
jp_unpriv_unavailable() {
	if [ "$(id -u)" != 0 ]; then
		echo "not root: cannot run anything as another user"
	elif ! command -v setpriv >/dev/null 2>&1; then
		echo "setpriv (util-linux) is not installed"
	elif ! id nobody >/dev/null 2>&1; then
		echo "there is no user nobody"
	else
		return 1
	fi
	return 0
}

# jp_unpriv_as CMD...: CMD as nobody, environment kept.
jp_unpriv_as() {
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"
}

# jp_unpriv_dir: a new folder, mode 0755, that nobody can enter; prints its
# path. Fails (with the places tried on stderr) when there is none.
jp_unpriv_dir() {
	for _b in "${TMPDIR:-/tmp}" /tmp /var/tmp /dev/shm; do
		[ -d "$_b" ] || continue
		_u=$(mktemp -d "$_b/jobprep-unpriv.XXXXXX" 2>/dev/null) || continue
		chmod 755 "$_u"
		if jp_unpriv_as test -x "$_u"; then
			echo "$_u"
			return 0
		fi
		rmdir "$_u"
	done
	echo "jp_unpriv_dir: nobody can enter none of ${TMPDIR:-/tmp} /tmp /var/tmp /dev/shm" >&2
	return 1
}

# jp_unpriv_jobprep DIR: copy the program under test into DIR/bin. A libtool
# wrapper script is replaced by the real program in .libs/; shared
# libraries the program loads from the build tree go to DIR/lib (found with
# ldd). Fails unless nobody can then run `jobprep --version`.
jp_unpriv_jobprep() {
	_d=$1
	_src=$JOBPREP
	mkdir -p "$_d/bin" "$_d/lib" "$_d/home" || return 1
	if [ "$(head -c 2 "$_src")" = "#!" ]; then
		_dir=$(dirname "$_src")
		_base=$(basename "$_src")
		for _c in "$_dir/.libs/lt-$_base" "$_dir/.libs/$_base"; do
			[ -x "$_c" ] && { _src=$_c; break; }
		done
	fi
	cp "$_src" "$_d/bin/jobprep" || return 1
	chmod 755 "$_d/bin" "$_d/lib" "$_d/bin/jobprep"
	_top=${TOP_BUILDDIR:-$(dirname "$JOBPREP")}
	ldd "$_src" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p' | while IFS= read -r _l; do
		case $_l in
		"$_top"/*) cp "$_l" "$_d/lib/" && chmod 644 "$_d/lib/$(basename "$_l")" ;;
		esac
	done
	chown nobody "$_d/home"
	JP_UNPRIV_JOBPREP=$_d/bin/jobprep
	if ! jp_unpriv_run "$_d" "$JP_UNPRIV_JOBPREP" --version >/dev/null 2>"$_d/version.err"; then
		echo "jp_unpriv_jobprep: nobody cannot run $JP_UNPRIV_JOBPREP: $(cat "$_d/version.err")" >&2
		return 1
	fi
}

# jp_unpriv_run DIR CMD...: CMD as nobody, HOME=DIR/home, the build tree's
# libraries (if any) from DIR/lib, and LeakSanitizer's suppressions (a file
# in the source tree) from a copy in DIR.
jp_unpriv_run() {
	_d=$1
	shift
	_lsan=${LSAN_OPTIONS:-}
	if [ -f "${TOP_SRCDIR:-}/tests/lsan.supp" ]; then
		cp "$TOP_SRCDIR/tests/lsan.supp" "$_d/lsan.supp" && chmod 644 "$_d/lsan.supp"
		_lsan=$(printf '%s' "$_lsan" | sed "s|suppressions=[^:]*|suppressions=$_d/lsan.supp|")
	fi
	if [ -n "$(ls -A "$_d/lib" 2>/dev/null)" ]; then
		jp_unpriv_as env HOME="$_d/home" LSAN_OPTIONS="$_lsan" \
			LD_LIBRARY_PATH="$_d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
	else
		jp_unpriv_as env HOME="$_d/home" LSAN_OPTIONS="$_lsan" "$@"
	fi
}
