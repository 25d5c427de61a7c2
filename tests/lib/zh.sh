# The environment that shows jobprep in Simplified Chinese. Source it after
# setting $T (the test's scratch dir), then call zh_env:
#
#   . "$TOP_SRCDIR/tests/lib/zh.sh"
#   zh_env                   sets ZH_ENV ("NAME=value ..." for env), or skips
#                            the script (jp_skip_all, tests/lib/report.sh)
#                            when this build has no Chinese catalogue
#   env $ZH_ENV "$JOBPREP" --help
#
# glibc reads LANGUAGE in every locale but C/POSIX, and C.UTF-8 is built in:
# LC_ALL=C.UTF-8 LANGUAGE=zh_CN needs no locale installed (checked on this
# machine's glibc with the gettext program on our own catalogue). Where
# LANGUAGE is not honoured, a zh_CN.UTF-8 locale is compiled into $T/locale
# and used through LOCPATH: nothing on the machine changes.

. "$TOP_SRCDIR/tests/lib/report.sh"

ZH_CATALOGUE_DIR=${TOP_BUILDDIR:-.}/ui/po/locale

zh_env() {
	if [ ! -f "$ZH_CATALOGUE_DIR/zh_CN/LC_MESSAGES/jobprep.mo" ]; then
		jp_skip_all "no Chinese catalogue in the build tree (configured without NLS or msgfmt)"
	fi
	ZH_ENV="LC_ALL=C.UTF-8 LANGUAGE=zh_CN"
	command -v gettext >/dev/null 2>&1 || return 0
	_zh=$(env $ZH_ENV TEXTDOMAINDIR="$ZH_CATALOGUE_DIR" gettext -d jobprep Job 2>/dev/null)
	[ "$_zh" = "任务" ] && return 0
	echo "# LANGUAGE is not honoured under C.UTF-8 here: compiling zh_CN.UTF-8 into $T/locale"
	mkdir -p "$T/locale"
	# -c: a warning about the locale's sources is no reason to stop.
	localedef -c -i zh_CN -f UTF-8 "$T/locale/zh_CN.UTF-8" >/dev/null 2>&1
	if [ ! -e "$T/locale/zh_CN.UTF-8/LC_CTYPE" ]; then
		jp_skip_all "cannot make a zh_CN.UTF-8 locale (localedef and the 'locales' package are needed)"
	fi
	ZH_ENV="LOCPATH=$T/locale LC_ALL=zh_CN.UTF-8 LANGUAGE=zh_CN"
}
