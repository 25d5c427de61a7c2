# The environment that shows jobprep in Simplified Chinese. Source it after
# setting $T (the test's scratch dir), then call zh_env:
#
#   . "$TOP_SRCDIR/tests/lib/zh.sh"
#   zh_env                   chooses the environment, or skips the script
#                            (jp_skip_all, tests/lib/report.sh) when this
#                            build has no Chinese catalogue
#   zh_run CMD [ARG...]      CMD in that environment: zh_run "$JOBPREP" --help
#   zh_tui_start COLS ROWS -- ARG...
#                            tui_start (tests/tui/lib.sh) in that environment
#
# glibc reads LANGUAGE in every locale but C/POSIX, and C.UTF-8 is built in:
# LC_ALL=C.UTF-8 LANGUAGE=zh_CN needs no locale installed (checked on this
# machine's glibc with the gettext program on our own catalogue). Where
# LANGUAGE is not honoured, a zh_CN.UTF-8 locale is compiled into $T/locale
# and used through LOCPATH: nothing on the machine changes. Each variable is
# passed as one word (never a string split on spaces): $T is under $TMPDIR,
# whose name may have a space.

. "$TOP_SRCDIR/tests/lib/report.sh"

ZH_CATALOGUE_DIR=${TOP_BUILDDIR:-.}/ui/po/locale
ZH_LC_ALL=C.UTF-8
ZH_LOCPATH=

zh_run() {
	if [ -n "$ZH_LOCPATH" ]; then
		env LOCPATH="$ZH_LOCPATH" LC_ALL="$ZH_LC_ALL" LANGUAGE=zh_CN "$@"
	else
		env LC_ALL="$ZH_LC_ALL" LANGUAGE=zh_CN "$@"
	fi
}

zh_tui_start() {
	_zc=$1
	_zr=$2
	shift 2
	[ "${1:-}" = "--" ] && shift
	if [ -n "$ZH_LOCPATH" ]; then
		tui_start "$_zc" "$_zr" "LOCPATH=$ZH_LOCPATH" "LC_ALL=$ZH_LC_ALL" LANGUAGE=zh_CN -- "$@"
	else
		tui_start "$_zc" "$_zr" "LC_ALL=$ZH_LC_ALL" LANGUAGE=zh_CN -- "$@"
	fi
}

zh_env() {
	if [ ! -f "$ZH_CATALOGUE_DIR/zh_CN/LC_MESSAGES/jobprep.mo" ]; then
		jp_skip_all "no Chinese catalogue in the build tree (configured without NLS or msgfmt)"
	fi
	ZH_LC_ALL=C.UTF-8
	ZH_LOCPATH=
	command -v gettext >/dev/null 2>&1 || return 0
	_zh=$(zh_run TEXTDOMAINDIR="$ZH_CATALOGUE_DIR" gettext -d jobprep Job 2>/dev/null)
	[ "$_zh" = "任务" ] && return 0
	echo "# LANGUAGE is not honoured under C.UTF-8 here: compiling zh_CN.UTF-8 into $T/locale"
	mkdir -p "$T/locale"
	# -c: a warning about the locale's sources is no reason to stop.
	localedef -c -i zh_CN -f UTF-8 "$T/locale/zh_CN.UTF-8" >/dev/null 2>&1
	if [ ! -e "$T/locale/zh_CN.UTF-8/LC_CTYPE" ]; then
		jp_skip_all "cannot make a zh_CN.UTF-8 locale (localedef and the 'locales' package are needed)"
	fi
	ZH_LC_ALL=zh_CN.UTF-8
	ZH_LOCPATH=$T/locale
}
