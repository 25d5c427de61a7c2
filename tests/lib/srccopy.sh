# A copy of the sources to build elsewhere (tests/analyse.sh's scan-build,
# tests/fuzz/ci.sh's clang build): the tree's own build stays as it is (it
# may be configured in place, which rules out a VPATH build). Source it:
#
#   jp_source_copy SRCDIR DEST   the sources into DEST (made), without
#                                anything a build made: git's list of files
#                                when SRCDIR is a checkout (plus the
#                                generated autotools files, so that no
#                                autoreconf is needed), else the tree after
#                                a distclean of the copy
jp_source_copy() {
	mkdir -p "$2" || return 1
	if git -C "$1" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$1" && {
			git ls-files -co --exclude-standard
			for f in configure Makefile.in aclocal.m4 config.h.in; do
				[ -f "$f" ] && echo "$f"
			done
			find autotools/build-aux autotools/m4 -type f 2>/dev/null
		} | tar -cf - --no-recursion --ignore-failed-read -T - 2>/dev/null) | tar -xf - -C "$2"
	else
		cp -a "$1/." "$2/" && (cd "$2" && make -s distclean >/dev/null 2>&1)
	fi
}
