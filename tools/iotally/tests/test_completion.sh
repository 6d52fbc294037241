#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bash completion offers the commands, options and values it should.
set -u
# shellcheck source=../completion/iotally.bash
source "$1"
fail=0
expect() {
    local want=$1
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _iotally 2>/dev/null
    local got="${COMPREPLY[*]}"
    if [[ $got != "$want" ]]; then
        echo "FAIL: '$*' gave '$got', expected '$want'"
        fail=1
    fi
}
expect "report" iotally re
expect "--level" iotally report --l
expect "device group region area" iotally report --level ""
expect "list show set on off reset" iotally stat ""
expect "scale=" iotally stat set dm-0 sc
expect "@stats_print @stats_print_clear" iotally message vol @stats_p
expect "list" iotally -j li
expect "r/s,w/s r/s,wkB/s r/s,wrqm/s r/s,w_await r/s,wareq-sz r/s,wMB/s r/s,wsec/s r/s,w_ios r/s,w_merges r/s,w_bytes r/s,w_sectors" iotally report -o r/s,w
expect "r_await" iotally report --sort r_a
expect "%qd1 %qd16 %qd128" iotally report -o %qd1
expect "--cpu" iotally report --cp
expect "--qd-sample" iotally report --qd
expect "" iotally report --qd-sample ""
expect "--csv" iotally report -c --cs
expect "" iotally top -c ""
expect "add only remove add-only" iotally report --select-mode ""
expect "--verbose --version" iotally --v
expect "--version" iotally --vers
expect "auto native bpf" iotally --backend ""
expect "bpf" iotally --backend b
expect "snoop" iotally --backend bpf sn
expect "snoop" iotally sn
expect "--summary" iotally snoop --su
expect "serve" iotally ser
expect "--tasks --tasks-by" iotally serve --task
expect "bytes wait" iotally serve --tasks-by ""
expect "--cgroups --cgroup-depth --cgroup-max --cgroup-root" iotally serve --cgr
expect "--cgroup --cgroup-depth --cgroup-max --cgroup-root" iotally tasks --cg
expect "--select --select-mode" iotally serve --sel
expect "--otlp --otlp-queue --otlp-compression" iotally serve --ot
expect "none gzip" iotally serve --otlp-compression ""
expect "" iotally serve --otlp ""
expect "add only remove add-only" iotally serve --select-mode ""
expect "name= target= driver= uuid= lv=" iotally serve --select ""
expect "--qd-sample --qd-regions" iotally serve --qd
expect "--select --select-mode" iotally export --sel
expect "native native:0 native:1 native:2 native:3 native:4" iotally create vol --histogram n
expect "native:2" iotally create vol --histogram native:2
exit $fail
