#compdef ljcore
# zsh completion for ljcore: commands, their options, and files for cores.

local -a common
common=(
	'--pid[a running process instead of a core]:process:_pids'
	'--exe[the executable, when the core'"'"'s path does not hold it]:executable:_files'
	'--sysroot[look up every file of the core under this directory]:directory:_directories'
	'--debuginfod[let libdw ask the debuginfod servers]'
	'--scan[scan writable memory for VMs]:when:(auto always never)'
	'--layout[LuaJIT'"'"'s offsets: DWARF, code, tables; the code only; or no code]:source:(auto derived tables)'
	'(- *)'{-h,--help}'[print the options and exit]'
)
local core='*:core file (- for standard input):_files'
local -a values
values=(
	'--max-string[bytes of a string shown]:bytes:'
	'--depth[levels of table entries shown]:levels:'
	'--max-items[entries shown per table]:count:'
)
local locals='--locals=-[locals and upvalues under each Lua frame]::which:(all)'

_ljcore_command() {
	case $words[1] in
	analyze)
		_arguments $common '--json[print the result model as JSON]' \
			'--explain[also how the VMs were looked for]' \
			'--all[also every coroutine (walks the GC heap)]' $locals $values $core ;;
	bt)
		_arguments $common '--format[output format]:format:(text luajit json)' \
			'--json[same as --format=json]' '--all[every coroutine of every VM]' \
			'--level[first Lua level to show]:level:' $locals $values $core ;;
	traces)
		_arguments $common '--json[every trace as JSON]' \
			'--mcode[with --json: the machine code too]' $core ;;
	trace)
		_arguments $common '--mcode[also the disassembled machine code]' \
			'1:trace number:' $core ;;
	gc)
		_arguments $common '--json[print the census as JSON]' \
			'--top[how many of the largest objects]:count:' \
			'--paths[a path from a root to each of the largest objects]' \
			'--retained[the objects that keep the most memory alive]' \
			'--depth[with --retained: levels of dominated children]:levels:' \
			'--diff[an earlier core of the same program]:core:_files' \
			'--every[with --pid: a heap snapshot this often (30s, 500ms)]:duration:' \
			'--count[with --every: how many snapshots]:count:' \
			'--alloc-sites[with --pid: outstanding allocations by path and Lua stack]' \
			'--duration[with --alloc-sites: seconds to sample allocations]:seconds:' \
			'--sample-bytes[with --alloc-sites: mean bytes between samples]:bytes:' \
			'--path-depth[steps below a root that paths tell apart]:depth:' $core ;;
	print)
		_arguments $common '--json[print the value as JSON]' $values \
			'1:core file:_files' '2:expression (_G.a.b, frame N local x, 0x...):' ;;
	profile)
		_arguments '--pid[the process to profile]:process:_pids' \
			'--rate[samples per second per CPU]:hz:' \
			'--duration[seconds to sample]:seconds:' \
			'(-o --output)'{-o,--output}'[write the profile here]:file:_files' \
			'--format[output format]:format:(folded svg speedscope pprof top)' \
			'--native[the native frames too]' \
			'--children[also sample its children]' \
			'--backend[the sampler]:backend:(auto bpf userspace)' \
			'--blocking[userspace: stop the VM thread per sample]' \
			'--by-request[nginx: samples under the request they served]' \
			'(--wall)--off-cpu[time off the CPU, blocked or waiting for it]' \
			'(--off-cpu)--wall[time on and off the CPU]' \
			'--off-cpu-period[off-CPU time a walk stands for]:milliseconds:' \
			'--alloc=-[allocations, not CPU time]::view:(outstanding all)' \
			'--sample-bytes[bytes between sampled allocations]:bytes:' \
			'--diff[compare two saved profiles]:before:_files:after:_files' ;;
	snapshot)
		_arguments $common '(-o --output)'{-o,--output}'[the core file to write]:file:_files' \
			'--all[keep every coroutine too]' $core ;;
	layout)
		_arguments '--explain[the instruction each offset was read from]' \
			'--json[the same as JSON]' '(- *)'{-h,--help}'[print the options and exit]' \
			'1:LuaJIT binary:_files' ;;
	catch)
		_arguments '--install[run ljcore catch at every crash (kernel.core_pattern)]' \
			'--uninstall[put back the core_pattern it replaced]' \
			'--list[the caught crashes, newest first]' \
			'--handle[what the kernel runs]:directory:_files -/' \
			'--dir[where crashes go]:directory:_files -/' \
			'--keep-core[also keep the whole core]:when:(never lua always)' \
			'--chain[pass every core on to the previous handler]' \
			'--size-cap[bytes written per crash]:bytes:' \
			'--quota[bytes the directory may hold]:bytes:' \
			'--rate[reports a minute per executable]:count:' \
			'--deadline[seconds one analysis may take]:seconds:' \
			'--redact[string values as their lengths]' \
			'*:directory:_files -/' ;;
	fixture)
		_arguments '1:action:(new check update)' '*:fixture or core:_files' ;;
	esac
}

_arguments \
	'(- *)--version[print the version and exit]' \
	'(- *)'{-h,--help}'[print the commands and exit]' \
	'1:command:((analyze\:"native and Lua frames of every thread"
		bt\:"Lua backtrace of each VM"
		traces\:"table of the JIT'"'"'s traces"
		trace\:"one trace'"'"'s IR and snapshots"
		gc\:"GC heap census"
		print\:"one Lua value by its path"
		profile\:"sample a live process'"'"'s Lua stacks"
		snapshot\:"write a minimized core"
		layout\:"LuaJIT'"'"'s layout derived from a binary'"'"'s code"
		fixture\:"regression fixtures"
		catch\:"the kernel'"'"'s core handler for LuaJIT crashes"))' \
	'*::arguments:_ljcore_command'
