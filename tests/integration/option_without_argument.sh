#!/bin/sh
# An option that takes an argument, given last without one, is a usage error
# that says the option needs an argument (exit 2), not that the option is
# unknown: short and long forms, for every sub-command with such options.
set -u

: "${JOBPREP:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
failed=0
fail() {
	jp_fail "$*"
	failed=$((failed + 1))
}

# expect COMMAND OPTION: `jobprep COMMAND OPTION` says OPTION needs an argument
expect() {
	err=$("$JOBPREP" "$1" "$2" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq 2 ] || fail "$1 $2: exit $rc, expected 2 ($err)"
	case $err in
	*"option '$2' needs an argument"*) jp_pass "$1 $2" ;;
	*) fail "$1 $2: stderr is [$err]" ;;
	esac
}

for opt in -p --profile; do expect check "$opt"; done
for opt in -a --answers -o --output -p --profile; do expect init "$opt"; done
for opt in -t --threads -p --profile; do expect scan "$opt"; done
for opt in -t --to -o --output; do expect export "$opt"; done

# The wizard's own options, before it looks for a terminal.
for opt in --profile -o --output; do
	err=$("$JOBPREP" "$opt" 2>&1 >/dev/null </dev/null)
	rc=$?
	[ "$rc" -eq 2 ] || fail "wizard $opt: exit $rc, expected 2 ($err)"
	case $err in
	*"option '$opt' needs an argument"*) jp_pass "wizard $opt" ;;
	*) fail "wizard $opt: stderr is [$err]" ;;
	esac
done

# An option that does not exist is still called unknown.
err=$("$JOBPREP" check --no-such-option 2>&1 >/dev/null)
case $err in
*"unknown option '--no-such-option'"*) jp_pass "check --no-such-option" ;;
*) fail "check --no-such-option: stderr is [$err]" ;;
esac

jp_done
