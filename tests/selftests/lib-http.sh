# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# HTTP on loopback for the suites that scrape `iotally serve` and query
# Prometheus (serve, serve-native), sourced after lib.sh. $PORT is the
# suite's iotally serve port.

# fetch PATH [PORT]: an HTTP GET on loopback, the body on stdout.
fetch() { wget -q -O - "http://127.0.0.1:${2:-$PORT}$1"; }

# urlencode TEXT: TEXT with every byte but [A-Za-z0-9_.~-] as %XX.
urlencode() {
	printf '%s' "$1" | awk 'BEGIN { for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i }
	{ s = $0; o = ""
	  for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c ~ /[A-Za-z0-9_.~-]/) o = o c; else o = o sprintf("%%%02X", ord[c])
	  }
	  printf "%s", o }'
}

# prometheus_start NAME PORT "JOB=HOST:PORT..." [ARG...]: Prometheus on
# 127.0.0.1:PORT in the background ($prom_pid), scraping each JOB every
# second, with ARGs; its configuration /tmp/NAME.yml, its data /tmp/NAME,
# its output /tmp/NAME.log. With $PROM_RULES (rule files, space-separated)
# it evaluates them every second too.
prometheus_start() {
	_prom_name=$1 _prom_port=$2 _prom_jobs=$3
	shift 3
	{
		printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n'
		if [ -n "${PROM_RULES:-}" ]; then
			printf '  evaluation_interval: 1s\nrule_files:\n'
			for _prom_rules in $PROM_RULES; do
				printf '  - %s\n' "$_prom_rules"
			done
		fi
		printf 'scrape_configs:\n'
		for _prom_job in $_prom_jobs; do
			printf "  - job_name: %s\n    static_configs: [{targets: ['%s']}]\n" \
				"${_prom_job%%=*}" "${_prom_job#*=}"
		done
	} >/tmp/"$_prom_name".yml
	prometheus --config.file=/tmp/"$_prom_name".yml --storage.tsdb.path=/tmp/"$_prom_name" \
		--web.listen-address=127.0.0.1:"$_prom_port" "$@" >/tmp/"$_prom_name".log 2>&1 &
	# shellcheck disable=SC2034 # the suite stops it
	prom_pid=$!
}
