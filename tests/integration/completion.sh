#!/bin/sh
# Shell completion: bash loads ui/completion/jobprep.bash (complete -p shows
# it; a command prefix, an option prefix and --to's values complete), zsh's
# compinit finds _jobprep on fpath; and every command and every long option
# of the option tables (`jobprep --dump-options`, what the parser takes and
# --help lists) is in both scripts, so they cannot drift apart.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
C=$TOP_SRCDIR/ui/completion

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-completion.XXXXXX") || exit 99
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

# --- bash ---------------------------------------------------------------------
if command -v bash >/dev/null 2>&1; then
	# bcomp WORD...: what bash completes for the last word of `jobprep WORD...`
	bcomp() {
		bash -c '. "$1" || exit 1; shift
			COMP_WORDS=(jobprep "$@"); COMP_CWORD=$#; _jobprep
			printf "%s\n" "${COMPREPLY[@]}"' bash "$C/jobprep.bash" "$@"
	}
	jp_expect bash_registers_the_completion \
		sh -c 'bash -c ". \"\$1\" && complete -p jobprep" bash "$1" | grep -q -- "-F _jobprep jobprep$"' sh "$C/jobprep.bash"
	jp_expect bash_completes_a_command_prefix [ "$(bcomp sh)" = show ]
	jp_expect bash_completes_commands [ "$(bcomp r | tr '\n' ' ')" = "repo runs " ]
	jp_expect bash_completes_an_option [ "$(bcomp check --q)" = --quiet ]
	jp_expect bash_completes_to_values [ "$(bcomp export --to '' | tr '\n' ' ')" = "slurm pytorchjob " ]
	mkdir -p "$T/files" && : >"$T/files/job.json"
	jp_expect bash_completes_files [ "$(bcomp show "$T/files/j")" = "$T/files/job.json" ]
	# `make install` puts the script in $(datadir)/bash-completion/completions,
	# where bash-completion (bootstrap.sh installs it) loads it on first use.
	jp_expect bootstrap_installs_bash_completion \
		grep -q '^  libcurl4-openssl-dev .* bash-completion"$' "$TOP_SRCDIR/autotools/bootstrap.sh"
	mkdir -p "$T/share/bash-completion/completions"
	cp "$C/jobprep.bash" "$T/share/bash-completion/completions/jobprep"
	BC=/usr/share/bash-completion/bash_completion
	jp_expect installed_completion_loads_through_bash_completion \
		env XDG_DATA_DIRS="$T/share" bash -c '[ -r "$1" ] || { echo "# no $1"; exit 1; }
			. "$1"; __load_completion jobprep 2>/dev/null || _completion_loader jobprep
			complete -p jobprep >/dev/null' bash "$BC"
else
	jp_skip bash_completion "bash is not installed"
fi

# --- zsh ----------------------------------------------------------------------
if command -v zsh >/dev/null 2>&1; then
	out=$(HOME=$T ZDOTDIR=$T zsh -f -c '
		fpath=("$1" $fpath)
		autoload -Uz compinit && compinit -u -d "$2/zcompdump" || exit 1
		print -r -- "${_comps[jobprep]}"
		autoload +X _jobprep && print loaded' zsh "$C" "$T" 2>"$T/zsh.err")
	jp_expect zsh_compinit_finds_jobprep [ "$(printf '%s\n' "$out" | head -n 1)" = _jobprep ]
	jp_expect zsh_loads_the_function [ "$(printf '%s\n' "$out" | tail -n 1)" = loaded ]
	jp_expect zsh_script_parses zsh -n "$C/_jobprep"
else
	jp_skip zsh_completion "zsh is not installed"
fi

# --- no drift: every command and option is in both scripts --------------------
# The commands and their long options from the option tables themselves
# (`jobprep --dump-options`, the list the parser and --help are made from).
"$JOBPREP" --dump-options >"$T/dump" || exit 99
cmds=$(cut -f1 "$T/dump" | grep -v '^-$' | uniq)
jp_expect help_lists_commands [ "$(printf '%s\n' $cmds | wc -l)" -ge 11 ]
missing=
for c in $cmds; do
	grep -q "commands=\".*\\b$c\\b" "$C/jobprep.bash" || missing="$missing bash:$c"
	grep -q "^		'$c:" "$C/_jobprep" || missing="$missing zsh:$c"
	opts=$(awk -F '\t' -v c="$c" '$1 == c { print $2 }' "$T/dump")
	bline=$(grep -E "^[[:space:]]*([a-z|[:space:]]*[^a-z])?$c( \|[^)]*)?\) opts=|\| $c( |\))" "$C/jobprep.bash" | head -n 1)
	for o in $opts; do
		case " $bline " in *" $o "* | *"\"$o "* | *" $o\""*) ;; *) missing="$missing bash:$c:$o" ;; esac
		# zsh: the option in the command's case branch ($help is -h/--help)
		awk -v c="$c" -v o="$o" '
			$0 ~ "^\t(" c "|[a-z|]*\\|" c "|" c "\\|[a-z|]*|[a-z|]*\\|" c "\\|[a-z|]*)\\)$" { on = 1; next }
			on && o == "--help" && index($0, "$help") { found = 1 }
			on && /;;/ { if (index($0, o)) found = 1; on = 0 }
			on && (index($0, "'\''" o "[") || index($0, "{" o ",") || index($0, "," o "}")) { found = 1 }
			END { exit !found }' "$C/_jobprep" || missing="$missing zsh:$c:$o"
	done
done
jp_expect every_command_and_option_is_completed [ -z "$missing" ]
[ -z "$missing" ] || echo "# missing from the completion scripts:$missing"
jp_done
