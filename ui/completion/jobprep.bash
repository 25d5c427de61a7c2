# bash completion for jobprep: commands, each command's options, the values
# of --to and --stage, and files (manifests, answers, profiles) or folders.
# Installed into $(datadir)/bash-completion/completions/jobprep.
# Keep in step with the option tables in ui/cli/cmd_*.c:
# tests/integration/completion.sh fails when an option here is missing.

# _jobprep_paths -f|-d: the files or folders starting with $cur, one reply
# each however many spaces their names hold (split at newlines only)
_jobprep_paths()
{
	local IFS=$'\n'
	COMPREPLY=($(compgen "$1" -- "$cur"))
}

_jobprep()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local commands="init check clone env preflight export scan stage repo show runs cache schema"

	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*)
			case " $commands " in
			*" ${COMP_WORDS[i]} "*) cmd=${COMP_WORDS[i]}; break ;;
			esac
			;;
		esac
	done

	# options that take a value
	case $prev in
	--to)
		COMPREPLY=($(compgen -W "slurm pytorchjob" -- "$cur"))
		return
		;;
	--stage)
		COMPREPLY=($(compgen -W "auto never always" -- "$cur"))
		return
		;;
	--scratch | --into)
		_jobprep_paths -d
		return
		;;
	--answers | --profile | -o | --output)
		_jobprep_paths -f
		return
		;;
	--ref | --exec | --threads | --timeout | --remote)
		return
		;;
	esac

	local opts
	case $cmd in
	'') opts="--demo --profile --answers -o --output -h --help -V --version" ;;
	init) opts="--answers -o --output --profile -j --json -q --quiet -v --verbose --force --deep -n --dry-run --demo --no-cache --resume-from --resume-in -h --help" ;;
	check) opts="-j --json -q --quiet -v --verbose --deep --profile -h --help" ;;
	clone) opts="--ref --submodules --exec --stage --scratch --threads --timeout --profile --progress --no-progress -j --json --no-cache -h --help" ;;
	env | preflight | show | schema) opts="-h --help" ;;
	export) opts="--to -o --output -i --image -n --namespace --queue --priority-class --partition --account --qos --time --force -h --help" ;;
	scan) opts="--quick -j --json --threads --profile -h --help" ;;
	repo) opts="--remote --ref --into --submodules --exec --timeout -j --json -h --help" ;;
	runs) opts="-j --json --profile -h --help" ;;
	cache) opts="--clear -j --json -h --help" ;;
	stage) opts="--verify --jobs --sha256 --no-unpack --unpack-archives --shard --shards --emit --timeout -j --json --progress --no-progress -h --help" ;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	elif [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$commands" -- "$cur"))
	else
		case $cmd in
		scan | repo) _jobprep_paths -d ;;
		clone | runs | schema) ;;
		*) _jobprep_paths -f ;;
		esac
	fi
}
complete -o filenames -F _jobprep jobprep
