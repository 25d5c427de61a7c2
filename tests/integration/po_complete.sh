#!/bin/sh
# The Chinese catalogue is complete and valid against the sources as they are
# now, not against the committed template: the messages are extracted afresh
# (ui/po/mkpot.sh, as `make update-po` does), and every one of them must have
# a translation in ui/po/zh_CN.po that is neither empty nor fuzzy; msgfmt -c
# (placeholders, their order and the header) must accept the catalogue; and
# every source file that marks text (_() or N_()) must be listed in
# ui/po/POTFILES, so none is left out of the extraction.
#
# Strict on purpose, for every file: any core message can reach the wizard
# (a failed clone, scan or check ends up on its status line or under a
# field), so there is no part of the program a Chinese user never sees. A
# new string fails this test with its file:line; the fix is `make update-po`
# and translating what it lists in ui/po/zh_CN.po.
set -u

: "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
for tool in xgettext msgfmt msgmerge msgattrib; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		jp_skip_all "$tool is needed (apt-get install gettext)"
	fi
done

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-po.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
failed=0
pass() { jp_pass "$1"; }
fail() {
	jp_fail "$1"
	failed=1
}
po=$TOP_SRCDIR/ui/po/zh_CN.po

# entries PO: one line per message, "file:line: msgid text" (the header and
# obsolete entries left out).
entries() {
	awk '
	/^$/ { flush(); next }
	/^#: / { if (ref == "") ref = $2; next }
	/^msgid / { inid = 1; id = substr($0, 7); next }
	/^msgstr/ { inid = 0; next }
	/^"/ { if (inid) id = id $0; next }
	END { flush() }
	function flush() {
		gsub(/""/, "", id)
		if (id != "" && id != "\"\"") print ref ": " id
		ref = ""; id = ""; inid = 0
	}' "$1"
}

# Every marking source file is in POTFILES.
(cd "$TOP_SRCDIR" && grep -l -E '(^|[^A-Za-z0-9_])N?_\("' src/*.c src/*.h ui/*.c ui/*/*.c \
	ui/*/*.h include/jobprep/*.h 2>/dev/null | grep -v '^include/jobprep/i18n.h$' | sort) \
	>"$T/marking"
grep -v '^#' "$TOP_SRCDIR/ui/po/POTFILES" | grep -v '^$' | sort >"$T/listed"
comm -23 "$T/marking" "$T/listed" >"$T/unlisted"
if [ -s "$T/unlisted" ]; then
	fail "every_marking_source_is_in_POTFILES"
	sed 's/^/#   add to ui\/po\/POTFILES: /' "$T/unlisted"
else
	pass "every_marking_source_is_in_POTFILES"
fi
# A listed file that is gone would make xgettext fail below: say which.
(cd "$TOP_SRCDIR" && while IFS= read -r f; do [ -e "$f" ] || echo "$f"; done <"$T/listed") \
	>"$T/gone"
if [ -s "$T/gone" ]; then
	fail "every_POTFILES_entry_exists"
	sed 's/^/#   no such file: /' "$T/gone"
fi

if sh "$TOP_SRCDIR/ui/po/mkpot.sh" "$TOP_SRCDIR" "$T/jobprep.pot" 2>"$T/xgettext.err"; then
	pass "messages_extract_from_the_sources"
else
	fail "messages_extract_from_the_sources"
	sed 's/^/#   /' "$T/xgettext.err"
	exit 1
fi

if msgfmt -c --check-format -o /dev/null "$po" 2>"$T/msgfmt.err"; then
	pass "msgfmt_accepts_zh_CN_po"
else
	fail "msgfmt_accepts_zh_CN_po"
	sed 's/^/#   /' "$T/msgfmt.err"
fi

msgattrib --only-fuzzy --no-obsolete "$po" 2>/dev/null | entries /dev/stdin >"$T/fuzzy"
if [ -s "$T/fuzzy" ]; then
	fail "no_fuzzy_translation_in_zh_CN_po"
	sed 's/^/#   fuzzy: /' "$T/fuzzy"
else
	pass "no_fuzzy_translation_in_zh_CN_po"
fi

# The catalogue against the fresh template: nothing guessed, so a message
# the catalogue lacks shows up untranslated.
msgmerge --quiet --no-fuzzy-matching -o "$T/merged.po" "$po" "$T/jobprep.pot" 2>"$T/merge.err" ||
	{ fail "catalogue_merges_with_the_sources"; sed 's/^/#   /' "$T/merge.err"; exit 1; }
total=$(msgattrib --no-obsolete "$T/merged.po" | entries /dev/stdin | wc -l)
# Untranslated or fuzzy (a fuzzy guess is not shown to anyone).
{
	msgattrib --untranslated --no-obsolete "$T/merged.po" | entries /dev/stdin
	msgattrib --only-fuzzy --no-obsolete "$T/merged.po" | entries /dev/stdin
} >"$T/untranslated"
missing=$(wc -l <"$T/untranslated")
echo "# zh_CN: $((total - missing)) of $total messages translated ($(((total - missing) * 100 / total))%)"
if [ "$total" -gt 0 ] && [ "$missing" -eq 0 ]; then
	pass "every_message_is_translated_in_zh_CN"
else
	fail "every_message_is_translated_in_zh_CN"
	echo "#   untranslated ($missing): run 'make update-po', then translate in ui/po/zh_CN.po:"
	sed 's/^/#   /' "$T/untranslated"
fi

# One word for the manifest in the Chinese text: "manifest" (the term of
# nearly every message, as "Worker" is kept), never 清单 or 任务清单 beside it.
msgattrib --translated --no-obsolete "$T/merged.po" | awk '/^msgstr/ { on = 1 } /^(msgid|#)/ { on = 0 } on' |
	grep -n "清单" >"$T/other-words"
if [ -s "$T/other-words" ]; then
	fail "zh_CN_says_manifest_one_way"
	sed 's/^/#   /' "$T/other-words"
else
	pass "zh_CN_says_manifest_one_way"
fi
jp_done
