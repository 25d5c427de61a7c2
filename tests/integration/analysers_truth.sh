#!/bin/sh
# The analysers tell the truth (issue 32), each on a little tree of the
# test's own: circles (tests/circles.py) sees code after a "//" inside a
# string and a use through a table or a callback, and a circle there fails;
# layout (tests/analyse.sh) fails on a tracked ar archive, ELF object or a
# file outside the layout; po (ui/po/update-po.sh --check) fails on a message
# the template or the catalogue lacks and on a dead entry, and update-po.sh
# puts them in step. Each fault has its healthy twin.
set -u
: "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
command -v python3 >/dev/null 2>&1 || jp_skip_all "python3 is not installed"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-truth.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT

# --- circles -----------------------------------------------------------------
# circles DIR: tests/circles.py over DIR/src, nothing known; output in DIR.out
circles() {
	: >"$1/known"
	python3 "$TOP_SRCDIR/tests/circles.py" "$1/src" "$1/known" "$1" >"$1.out" 2>&1
}
mkdir -p "$T/url/src" "$T/table/src" "$T/none/src"
: >"$T/url/config.h"
cp "$T/url/config.h" "$T/table/config.h"
cp "$T/url/config.h" "$T/none/config.h"
# a.c calls b() after a string holding "//"; b.c calls a()
cat >"$T/url/src/a.c" <<'EOF'
int b(void);
int a(void) { const char *u = "https://example.invalid/x"; return u ? b() : 0; }
EOF
cat >"$T/url/src/b.c" <<'EOF'
int a(void);
int b(void) { return a() + 1; }
EOF
circles "$T/url"
jp_expect circles_sees_code_after_a_url_in_a_string sh -c '[ $1 = 1 ] && grep -q "^circle: a.c b.c" "$2"' sh $? "$T/url.out"
# c.c names serve() in a table; s.c serves and calls c.c's c_call()
cat >"$T/table/src/c.c" <<'EOF'
#define REQUESTS(X) X(look, serve)
struct req { const char *name; int (*fn)(int); };
#define ENTRY(n, f) {#n, f},
const struct req reqs[] = {REQUESTS(ENTRY)};
int c_call(int x) { return x; }
EOF
cat >"$T/table/src/s.c" <<'EOF'
int c_call(int);
int serve(int x) { return c_call(x); }
EOF
circles "$T/table"
jp_expect circles_sees_a_use_through_a_table sh -c '[ $1 = 1 ] && grep -q "^   c.c -> s.c: serve" "$2"' sh $? "$T/table.out"
# the twin: s.c calls nothing of c.c
cat >"$T/none/src/c.c" <<'EOF'
int serve(int);
const struct { int (*fn)(int); } reqs[] = {{serve}};
EOF
cat >"$T/none/src/s.c" <<'EOF'
static int c_call(int x) { return x; } /* "c.c" // */
int serve(int x) { return c_call(x); }
EOF
circles "$T/none"
jp_expect circles_passes_without_a_circle sh -c '[ $1 = 0 ] && [ -f "$2" ] && ! grep -q "^circle:" "$2"' sh $? "$T/none.out"

# --- layout --------------------------------------------------------------------
# layout DIR: the layout analyser on the git tree DIR; output in DIR.out
layout() {
	JP_ANALYSE_ONLY=layout sh "$1/tests/analyse.sh" >"$1.out" 2>&1
}
# tree DIR: a git tree holding the analyser and a README
tree() {
	mkdir -p "$1/tests" "$1/src" &&
		cp "$TOP_SRCDIR/tests/analyse.sh" "$1/tests/" &&
		echo "# x" >"$1/README.md" && echo "int x;" >"$1/src/x.c" &&
		git -C "$1" init -q && git -C "$1" add -A
}
if command -v git >/dev/null 2>&1; then
	tree "$T/clean" || exit 99
	layout "$T/clean"
	jp_expect layout_passes_a_tree_in_its_layout sh -c '[ $1 = 0 ] && grep -q "^ok - layout" "$2"' sh $? "$T/clean.out"
	tree "$T/ar" || exit 99
	printf '!<arch>\n' >"$T/ar/src/stXyZ" && git -C "$T/ar" add src/stXyZ
	layout "$T/ar"
	jp_expect layout_fails_on_an_ar_archive sh -c '[ $1 = 1 ] && grep -q "^src/stXyZ: a build output (an ar archive)" "$2"' sh $? "$T/ar.out"
	tree "$T/elf" || exit 99
	cp "$(command -v env)" "$T/elf/src/prog" && git -C "$T/elf" add src/prog
	layout "$T/elf"
	jp_expect layout_fails_on_a_program sh -c '[ $1 = 1 ] && grep -q "^src/prog: a build output (an ELF" "$2"' sh $? "$T/elf.out"
	tree "$T/top" || exit 99
	echo x >"$T/top/stJeNaIl" && git -C "$T/top" add stJeNaIl
	layout "$T/top"
	jp_expect layout_fails_on_a_file_outside_the_layout sh -c '[ $1 = 1 ] && grep -q "^stJeNaIl: outside the layout" "$2"' sh $? "$T/top.out"
else
	jp_skip layout "git is not installed"
fi

# --- po --------------------------------------------------------------------------
have_gettext=yes
for tool in xgettext msgmerge msgattrib msgfmt; do
	command -v "$tool" >/dev/null 2>&1 || have_gettext=
done
if [ -n "$have_gettext" ]; then
	P=$T/po
	mkdir -p "$P/ui/po" "$P/src" "$P/include/jobprep"
	cp "$TOP_SRCDIR/ui/po/mkpot.sh" "$TOP_SRCDIR/ui/po/update-po.sh" "$P/ui/po/"
	echo src/m.c >"$P/ui/po/POTFILES"
	: >"$P/include/jobprep/error.h"
	printf 'const char *m(void) { return _("one line"); }\n' >"$P/src/m.c"
	cat >"$P/ui/po/zh_CN.po" <<'EOF'
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"

msgid "one line"
msgstr "一行"
EOF
	sh "$P/ui/po/update-po.sh" "$P" >"$T/po-update.out" 2>&1
	jp_expect po_update_makes_the_template sh -c '[ $1 = 0 ] && grep -q "^msgid \"one line\"" "$2"' sh $? "$P/ui/po/jobprep.pot"
	sh "$P/ui/po/update-po.sh" --check "$P" >"$T/po-ok.out" 2>&1
	jp_expect po_check_passes_when_in_step sh -c '[ $1 = 0 ]' sh $?
	# a new message: the template and the catalogue lack it
	printf 'const char *n(void) { return _("two lines"); }\n' >>"$P/src/m.c"
	sh "$P/ui/po/update-po.sh" --check "$P" >"$T/po-new.out" 2>&1
	jp_expect po_check_fails_on_a_message_the_template_lacks \
		sh -c '[ $1 = 1 ] && grep -q "jobprep.pot lacks: \"two lines\"" "$2"' sh $? "$T/po-new.out"
	jp_expect po_check_fails_on_a_message_with_no_translation \
		grep -q "zh_CN.po has no translation of: \"two lines\"" "$T/po-new.out"
	# the message goes again: its zh_CN entry is dead
	printf 'const char *m(void) { return _("one line"); }\n' >"$P/src/m.c"
	printf '\nmsgid "two lines"\nmsgstr "两行"\n' >>"$P/ui/po/zh_CN.po"
	sh "$P/ui/po/update-po.sh" --check "$P" >"$T/po-dead.out" 2>&1
	jp_expect po_check_fails_on_a_dead_entry \
		sh -c '[ $1 = 1 ] && grep -q "zh_CN.po holds a message the sources no longer have: \"two lines\"" "$2"' sh $? "$T/po-dead.out"
	sh "$P/ui/po/update-po.sh" "$P" >"$T/po-update2.out" 2>&1
	sh "$P/ui/po/update-po.sh" --check "$P" >"$T/po-ok2.out" 2>&1
	jp_expect po_update_drops_the_dead_entry sh -c '[ $1 = 0 ] && [ -f "$2" ] && ! grep -q "two lines" "$2"' sh $? "$P/ui/po/zh_CN.po"
	jp_show_if_failed "$T/po-update.out" "$T/po-ok.out" "$T/po-new.out" "$T/po-dead.out" "$T/po-update2.out" "$T/po-ok2.out"
else
	jp_skip po "xgettext, msgmerge, msgattrib and msgfmt are needed (apt-get install gettext)"
fi
jp_show_if_failed "$T/url.out" "$T/table.out" "$T/none.out"
jp_done
