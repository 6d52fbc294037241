# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for iotally(8)
# shellcheck shell=bash

# COMPREPLY=($(compgen ...)) is the bash-completion idiom, as in its own
# completions: the candidates are words without blanks, and splitting them
# into the array is the point.
# shellcheck disable=SC2207
_iotally_devices()
{
    local d
    for d in /dev/mapper/*; do
        [[ -e $d && ${d##*/} != control ]] && printf '%s\n' "${d##*/}"
    done
}

_iotally_files()
{
    if declare -F _filedir >/dev/null; then
        _filedir "$@"
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}

_iotally_region_ids()
{
    # Region ids of a device, from "iotally -j list DEV" (needs root).
    iotally -j list "$1" 2>/dev/null | grep -o '"region_id":[0-9]*' | cut -d: -f2
}

_iotally()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion || return
    else
        # Without the bash-completion package.
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
    fi

    local commands="help message create delete clear list print set-aux update report histogram top export stat tasks snoop serve"
    local cmd="" i arg nonopt=0
    for ((i = 1; i < cword; i++)); do
        arg=${words[i]}
        case $arg in
        --debugfs | --backend) ((i++)) ;;
        -*) ;;
        *)
            if [[ -z $cmd ]]; then
                cmd=$arg
            else
                ((nonopt++))
            fi
            ;;
        esac
    done

    if [[ -z $cmd ]]; then
        case $prev in
        --debugfs) _iotally_files -d; return ;;
        --backend) COMPREPLY=($(compgen -W 'auto native bpf' -- "$cur")); return ;;
        esac
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '-j --json --debugfs --backend -v --verbose --help --version' -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        fi
        return
    fi

    local fields="r/s rkB/s rrqm/s %rrqm r_await rareq-sz w/s wkB/s wrqm/s %wrqm w_await wareq-sz d/s dkB/s drqm/s %drqm d_await dareq-sz f/s f_await aqu-sz %util %r_util %w_util %qd1 %qd2 %qd4 %qd8 %qd16 %qd32 %qd64 %qd128 tps kB/s MB/s rMB/s wMB/s dMB/s rsec/s wsec/s await areq-sz in_flight ios r_ios w_ios d_ios f_ios r_merges w_merges d_merges bytes r_bytes w_bytes d_bytes sectors r_sectors w_sectors"
    case $prev in
    --file|--textfile-dir) _iotally_files; return ;;
    --level) COMPREPLY=($(compgen -W 'device group region area' -- "$cur")); return ;;
    --sort) COMPREPLY=($(compgen -W "$fields" -- "$cur")); return ;;
    -o|--fields)
        local prefix=${cur%,*}
        [[ $prefix == "$cur" ]] && prefix="" || prefix="$prefix,"
        COMPREPLY=($(compgen -P "$prefix" -W "$fields" -- "${cur##*,}"))
        compopt -o nospace
        return ;;
    --select) COMPREPLY=($(compgen -W 'name= target= driver= uuid= lv=' -- "$cur")); compopt -o nospace; return ;;
    --select-mode) COMPREPLY=($(compgen -W 'add only remove add-only' -- "$cur")); return ;;
    -c) [[ $cmd == report ]] || return ;;  # report -c is --cpu; top -c N a count
    --histogram) COMPREPLY=($(compgen -W 'native native:0 native:1 native:2 native:3 native:4' -- "$cur")); return ;;
    --start|--length|--area-size|--areas|--program-id|--aux|--alias|--interval|-i|--count|--qd-sample|--max|--top|--first|--group|--area|--name)
        return ;;
    esac

    local opts=""
    case $cmd in
    help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
    create) opts="--start --length --areas --area-size --histogram --precise --no-precise --program-id --aux --file --alias" ;;
    delete) opts="--all --program-id" ;;
    list) opts="--program-id" ;;
    print) opts="--clear --first --count" ;;
    set-aux) opts="--raw" ;;
    update) opts="--file --group --alias" ;;
    report) opts="-x -t -y -N -c -d --cpu --devices --partitions --interval --count --fields --sort --select --select-mode --level --program-id --max --top --csv --qd-sample" ;;
    histogram) opts="--group --area --interval" ;;
    top) opts="--interval --count --sort --select --max --program-id" ;;
    tasks) opts="--pid --tgid --cpumask --write --rcvbuf --count --duration --top --interval --by --limit --cgroup --cgroup-depth --cgroup-max --cgroup-root" ;;
    snoop) opts="--device --file --pid --min-latency --summary --waits --duration --count --buffer-kb" ;;
    export) opts="--openmetrics --prometheus --areas --textfile-dir --name --program-id --select --select-mode --max" ;;
    serve) opts="--listen --program-id --select --select-mode --max --areas --textfile --interval --count --name --tasks --tasks-by --cgroups --cgroup-depth --cgroup-max --cgroup-root --statistics --otlp --otlp-queue --otlp-compression --threads --qd-sample --qd-regions" ;;
    stat)
        if ((nonopt == 0)); then
            COMPREPLY=($(compgen -W 'list show set on off reset' -- "$cur"))
        elif ((nonopt == 1)); then
            local root=/sys/kernel/debug/statistics
            COMPREPLY=($(compgen -W "$(ls "$root" 2>/dev/null)" -- "$cur"))
        else
            COMPREPLY=($(compgen -W 'name= type= on= data=reset range_min= range_max= entries_max= scale= base_interval= mode= period=' -- "$cur"))
            compopt -o nospace
        fi
        return ;;
    esac

    if [[ $cmd == @(serve|tasks) && $prev == --cgroup-root ]]; then
        _iotally_files -d
        return
    fi
    if [[ $cmd == serve ]]; then
        case $prev in
        --textfile) _iotally_files -d; return ;;
        --otlp|--otlp-queue) return ;;  # a URL, a number: nothing to offer
        --otlp-compression) COMPREPLY=($(compgen -W 'none gzip' -- "$cur")); return ;;
        --tasks-by) COMPREPLY=($(compgen -W 'bytes wait' -- "$cur")); return ;;
        --statistics) COMPREPLY=($(compgen -W "$(ls /sys/kernel/debug/statistics 2>/dev/null)" -- "$cur")); return ;;
        esac
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts --help -j --json" -- "$cur"))
        return
    fi
    case $cmd in
    message|create|delete|clear|list|print|set-aux|report|histogram|top|export|serve|update)
        if ((nonopt == 0)); then
            COMPREPLY=($(compgen -W "$(_iotally_devices)" -- "$cur"))
        elif [[ $cmd == @(delete|clear|print|set-aux|histogram) ]] && ((nonopt == 1)); then
            COMPREPLY=($(compgen -W "$(_iotally_region_ids "${words[cword - 1]}")" -- "$cur"))
        elif [[ $cmd == message ]] && ((nonopt == 1)); then
            COMPREPLY=($(compgen -W '@stats_create @stats_delete @stats_clear @stats_list @stats_print @stats_print_clear @stats_set_aux' -- "$cur"))
        elif [[ $cmd == @(list|report|top|export|serve) ]]; then
            COMPREPLY=($(compgen -W "$(_iotally_devices)" -- "$cur"))
        fi
        ;;
    esac
} &&
    complete -F _iotally iotally
