#!/usr/bin/env python3
"""Every subcommand's --help lists the options its completions offer.

ljcore makes a subcommand's options only when that subcommand is run
(cli/main.cpp), so each one's --help is asked here, and its long options
compared with what cli/completion.bash and cli/completion.zsh offer for it:
an option added without its completion, or lost from the command line,
fails this test.

Usage: help_completion.py LJCORE SOURCE_DIR
"""
import re
import subprocess
import sys

ljcore, source = sys.argv[1], sys.argv[2]
commands = ["analyze", "bt", "traces", "trace", "gc", "print", "profile", "snapshot",
            "layout", "catch"]
fixture_commands = ["fixture new", "fixture check", "fixture update"]


def help_options(command):
    out = subprocess.run([ljcore, *command.split(), "--help"], capture_output=True,
                         text=True, check=True).stdout
    # Option lines: "  -o,--output TEXT ...", "  --locals{on} ...".
    return {m.group(1) for m in re.finditer(r"^ +(?:-\w,)?(--[a-z-]+)", out, re.M)}


bash = open(f"{source}/cli/completion.bash").read()
common = set(re.search(r'local common="([^"]*)"', bash).group(1).split())


def bash_options(command):
    m = re.search(rf'^\t{command}\) opts="([^"]*)"', bash, re.M)
    if not m:
        return set()
    words = m.group(1).split()
    return set(w for w in words if w != "$common") | (common if "$common" in words else set())


zsh = open(f"{source}/cli/completion.zsh").read()


def zsh_case(command):
    # The case arm of the command, up to the next arm.
    m = re.search(rf"^\t{command}\)\n(.*?);;", zsh, re.M | re.S)
    return m.group(1) if m else ""


failed = 0
top = subprocess.run([ljcore, "--help"], capture_output=True, text=True, check=True).stdout
for command in commands + ["fixture"]:
    if not re.search(rf"^  {command} ", top, re.M):
        print(f"FAIL ljcore --help does not list {command}")
        failed += 1

zsh_common = set(re.findall(r"(--[a-z-]+)\[", zsh.split("local core=")[0]))
for command in commands:
    have = help_options(command)
    if len(have) < 2:
        print(f"FAIL {command} --help lists no options: {sorted(have)}")
        failed += 1
    want = bash_options(command)
    if have != want:
        print(f"FAIL {command}: --help has {sorted(have - want)} not in completion.bash, "
              f"completion.bash has {sorted(want - have)} not in --help")
        failed += 1
    arm = zsh_case(command)
    # '--json[...]', '--locals=-[...]', {-o,--output}'[...]'.
    zsh_have = set(re.findall(r"(--[a-z-]+)\}?'?[\[=]", arm)) | {"--help"}
    if "$common" in arm:
        zsh_have |= zsh_common
    if "$values" in arm:
        zsh_have |= {"--max-string", "--depth", "--max-items"}
    if "$locals" in arm:
        zsh_have.add("--locals")
    if have != zsh_have:
        print(f"FAIL {command}: --help has {sorted(have - zsh_have)} not in completion.zsh, "
              f"completion.zsh has {sorted(zsh_have - have)} not in --help")
        failed += 1
    print(f"{command}: {len(have)} options")

fixture_words = set(re.search(r'\tfixture\)\n\t\tCOMPREPLY=\(\$\(compgen -W "([^"]*)"',
                              bash).group(1).split())
for command in fixture_commands:
    have = help_options(command) - {"--help"}
    if not have <= fixture_words:
        print(f"FAIL {command}: {sorted(have - fixture_words)} not in completion.bash")
        failed += 1
    print(f"{command}: {len(have)} options besides --help")
sys.exit(1 if failed else 0)
