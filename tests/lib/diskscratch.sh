# A scratch folder on a disk filesystem, for the tests whose verdict
# depends on the storage class of the folder they work in (a run's
# preflight.sh fails a path on tmpfs, which a job would lose). `/tmp` may be
# a tmpfs (Debian 13, Fedora, Arch; CI's fresh root makes it one), so
# `mktemp -d` there does not make the verdict certain. Source it:
#
#   jp_disk_scratch NAME   prints a new folder NAME.XXXXXX under the first
#                          of $TMPDIR, /tmp, /var/tmp and $TOP_BUILDDIR/tests
#                          whose filesystem is neither tmpfs nor ramfs;
#                          returns 1 (and prints nothing) when none is
jp_disk_scratch() {
	for _b in "${TMPDIR:-}" /tmp /var/tmp "${TOP_BUILDDIR:-}/tests"; do
		[ -n "$_b" ] && [ -d "$_b" ] && [ -w "$_b" ] || continue
		case $(stat -f -c %T "$_b" 2>/dev/null) in
		tmpfs | ramfs | "") continue ;;
		esac
		mktemp -d "$_b/$1.XXXXXX" && return 0
	done
	return 1
}
