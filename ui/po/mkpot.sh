#!/bin/sh
# mkpot.sh TOP OUT: extract the translatable messages of the sources listed
# in TOP/ui/po/POTFILES into OUT, a .pot template. Used by `make update-po`
# and by tests/integration/po_complete.sh, so both see the same strings.
#
#   _("...") translates where it stands, N_("...") marks table text that is
#   translated with _() where it is shown, P_("one", "many", n) a plural; the status codes' descriptions in
#   include/jobprep/error.h are the fourth argument of its X() list.
set -eu

top=$1
out=$2
xgettext=${XGETTEXT:-xgettext}

cd "$top"
$xgettext --package-name=jobprep --msgid-bugs-address=https://example.invalid/jobprep/issues \
	--from-code=UTF-8 --add-comments --keyword=_ --keyword=N_ --keyword=P_:1,2 \
	--files-from=ui/po/POTFILES -o "$out"
$xgettext --package-name=jobprep --msgid-bugs-address=https://example.invalid/jobprep/issues \
	--from-code=UTF-8 --keyword= --keyword=X:4 --join-existing \
	-o "$out" include/jobprep/error.h
