#!/bin/sh
# update-po.sh [--check] [TOP]: the template and the catalogues in step with
# the sources (`make update-po` runs it; TOP defaults to the tree it is in).
#
#   ui/po/update-po.sh          ui/po/jobprep.pot extracted afresh from the
#                               sources in ui/po/POTFILES (ui/po/mkpot.sh),
#                               then each catalogue (ui/po/*.po) merged with it
#                               (msgmerge: a new message arrives untranslated,
#                               a changed one fuzzy with its previous text) and
#                               its dead entries (obsolete, #~) dropped; lists
#                               what is left to translate
#   ui/po/update-po.sh --check  changes nothing; fails (exit 1), naming each,
#                               when the template lacks a message of the
#                               sources or holds one they no longer have, or
#                               zh_CN.po lacks a translation (none, or fuzzy)
#                               of a message of the sources or holds an entry
#                               for one they no longer have (tests/analyse.sh:
#                               the "po" analyser, in CI)
#
# Where a message stands (#: file:line) and the comments above it are not
# compared: moving code does not put the template out of step.
set -u
check=
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
top=$(cd "${1:-$(dirname "$0")/../..}" && pwd) || exit 2
for tool in "${XGETTEXT:-xgettext}" "${MSGMERGE:-msgmerge}" msgattrib msgfmt; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "update-po: $tool is needed (apt-get install gettext)" >&2
		exit 2
	fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-update-po.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
pot=$top/ui/po/jobprep.pot

# keys FILE: one line per message of FILE (its context, text and plural, as
# written in the file), its dead entries and header left out, sorted
keys() {
	msgattrib --no-obsolete --no-location --no-wrap "$1" | awk '
	function flush() {
		if (id != "\"\"") print ctx id plural
		ctx = ""; id = ""; plural = ""; part = ""
	}
	/^$/ { if (id != "") flush(); next }
	/^#/ { next }
	/^msgctxt / { part = "c"; ctx = "[" substr($0, 9) "] "; next }
	/^msgid_plural / { part = "p"; plural = " | " substr($0, 14); next }
	/^msgid / { part = "i"; id = substr($0, 7); next }
	/^msgstr/ { part = ""; next }
	/^"/ {
		if (part == "c") ctx = ctx $0
		else if (part == "i") id = id $0
		else if (part == "p") plural = plural $0
		next
	}
	END { if (id != "") flush() }' | LC_ALL=C sort -u
}

# todo PO: the keys of PO's messages with no translation (empty or fuzzy)
todo() {
	msgattrib --untranslated --no-obsolete -o "$tmp/untranslated.po" "$1" 2>/dev/null
	msgattrib --only-fuzzy --no-obsolete -o "$tmp/fuzzy.po" "$1" 2>/dev/null
	for f in "$tmp/untranslated.po" "$tmp/fuzzy.po"; do
		[ -s "$f" ] && keys "$f"
	done | LC_ALL=C sort -u
	rm -f "$tmp/untranslated.po" "$tmp/fuzzy.po"
}

if ! XGETTEXT=${XGETTEXT:-xgettext} sh "$top/ui/po/mkpot.sh" "$top" "$tmp/fresh.pot" 2>"$tmp/xgettext.err"; then
	cat "$tmp/xgettext.err" >&2
	echo "update-po: the messages do not extract from the sources (ui/po/POTFILES?)" >&2
	exit 1
fi
keys "$tmp/fresh.pot" >"$tmp/fresh.keys"

if [ -n "$check" ]; then
	bad=0
	keys "$pot" >"$tmp/pot.keys"
	LC_ALL=C comm -23 "$tmp/fresh.keys" "$tmp/pot.keys" >"$tmp/pot.missing"
	LC_ALL=C comm -13 "$tmp/fresh.keys" "$tmp/pot.keys" >"$tmp/pot.dead"
	if [ -s "$tmp/pot.missing" ] || [ -s "$tmp/pot.dead" ]; then
		bad=1
		sed 's/^/ui\/po\/jobprep.pot lacks: /' "$tmp/pot.missing"
		sed 's/^/ui\/po\/jobprep.pot holds a message the sources no longer have: /' "$tmp/pot.dead"
		echo "ui/po/jobprep.pot: $(wc -l <"$tmp/pot.missing") message(s) missing, $(wc -l <"$tmp/pot.dead") dead"
	fi
	for po in "$top"/ui/po/*.po; do
		name=ui/po/${po##*/}
		keys "$po" >"$tmp/po.keys"
		# its dead entries: for messages the sources no longer have, and
		# the obsolete ones (#~) msgmerge kept
		LC_ALL=C comm -13 "$tmp/fresh.keys" "$tmp/po.keys" >"$tmp/po.dead"
		obsolete=$(msgattrib --only-obsolete --no-wrap "$po" | grep -c '^#~ msgid ')
		# its missing translations: against the fresh template, guessing
		# nothing, a message it lacks or has fuzzy or empty
		msgmerge --quiet --no-fuzzy-matching -o "$tmp/merged.po" "$po" "$tmp/fresh.pot" 2>"$tmp/merge.err" || {
			cat "$tmp/merge.err"
			bad=1
			continue
		}
		todo "$tmp/merged.po" >"$tmp/po.todo"
		if [ -s "$tmp/po.dead" ] || [ "$obsolete" -gt 0 ] || [ -s "$tmp/po.todo" ]; then
			bad=1
			sed "s|^|$name has no translation of: |" "$tmp/po.todo"
			sed "s|^|$name holds a message the sources no longer have: |" "$tmp/po.dead"
			echo "$name: $(wc -l <"$tmp/po.todo") message(s) untranslated or fuzzy, $(wc -l <"$tmp/po.dead") dead, $obsolete obsolete (#~)"
		fi
	done
	if [ "$bad" = 0 ]; then
		echo "ui/po: jobprep.pot holds the $(wc -l <"$tmp/fresh.keys") messages of the sources; every catalogue translates each, with no dead entry"
	else
		echo "(the fix: make update-po, then translate what it lists)"
	fi
	exit "$bad"
fi

# the template: replaced when its messages or their places changed
if [ -f "$pot" ] && diff -q -I '^"POT-Creation-Date:' "$pot" "$tmp/fresh.pot" >/dev/null; then
	echo "ui/po/jobprep.pot is up to date ($(wc -l <"$tmp/fresh.keys") messages)"
else
	cp "$tmp/fresh.pot" "$pot" || exit 1
	echo "ui/po/jobprep.pot updated ($(wc -l <"$tmp/fresh.keys") messages)"
fi
status=0
for po in "$top"/ui/po/*.po; do
	name=ui/po/${po##*/}
	"${MSGMERGE:-msgmerge}" --quiet --previous -o "$tmp/merged.po" "$po" "$pot" || exit 1
	# the dead entries go: the sources no longer have them
	msgattrib --no-obsolete -o "$tmp/live.po" "$tmp/merged.po" || exit 1
	if cmp -s "$tmp/live.po" "$po"; then
		echo "$name is up to date"
	else
		cp "$tmp/live.po" "$po" || exit 1
		echo "$name updated"
	fi
	printf '%s: ' "$name"
	msgfmt --statistics -c -o /dev/null "$po" 2>&1 || status=1
	todo "$po" | sed "s|^|$name: translate: |"
done
exit "$status"
