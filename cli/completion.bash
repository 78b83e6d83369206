# bash completion for ljcore: commands, their options, and files for cores.
_ljcore()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local common="--pid --exe --sysroot --debuginfod --scan --layout --help"
	local cmd= i
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		analyze|bt|traces|trace|gc|print|profile|snapshot|layout|fixture|catch) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done

	case $prev in
	--pid)
		COMPREPLY=($(compgen -W "$(ps -eo pid= 2>/dev/null)" -- "$cur"))
		return ;;
	--sysroot)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	--scan)
		COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
		return ;;
	--layout)
		COMPREPLY=($(compgen -W "auto derived tables" -- "$cur"))
		return ;;
	--format)
		if [[ $cmd == profile ]]; then
			COMPREPLY=($(compgen -W "folded svg speedscope pprof top" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "text luajit json" -- "$cur"))
		fi
		return ;;
	--locals)
		COMPREPLY=($(compgen -W "all" -- "$cur"))
		return ;;
	--backend)
		COMPREPLY=($(compgen -W "auto bpf userspace" -- "$cur"))
		return ;;
	--keep-core)
		COMPREPLY=($(compgen -W "never lua always" -- "$cur"))
		return ;;
	--dir|--handle)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	--top|--level|--max-string|--depth|--max-items|--rate|--duration|--sample-bytes|--size-cap|--quota|--deadline)
		return ;;
	esac

	local opts
	case $cmd in
	"")
		COMPREPLY=($(compgen -W "analyze bt traces trace gc print profile snapshot layout fixture catch --version --help" -- "$cur"))
		return ;;
	analyze) opts="$common --json --explain --all --locals --max-string --depth --max-items" ;;
	bt) opts="$common --format --json --all --level --locals --max-string --depth --max-items" ;;
	traces) opts="$common --json --mcode" ;;
	trace) opts="$common --mcode" ;;
	gc) opts="$common --json --top --paths --retained --depth --diff --every --count --alloc-sites --duration --sample-bytes --path-depth" ;;
	print) opts="$common --json --max-string --depth --max-items" ;;
	profile) opts="--pid --rate --duration --output --format --native --children --backend --blocking --by-request --off-cpu --wall --off-cpu-period --alloc --sample-bytes --diff --help" ;;
	snapshot) opts="$common --output --all" ;;
	layout) opts="--explain --json --help" ;;
	catch) opts="--install --uninstall --list --handle --dir --keep-core --chain --size-cap --quota --rate --deadline --redact --help" ;;
	fixture)
		COMPREPLY=($(compgen -W "new check update --output --exe --sysroot --scenario --flavour --made-by" -- "$cur"))
		[[ $cur == -* ]] || COMPREPLY+=($(compgen -f -- "$cur"))
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _ljcore ljcore
