# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# Helpers shared by the statistics layer suite: the sample exploiter's
# control file, and the debugfs files of its interfaces.

CTL=/sys/kernel/debug/statistic_sample/control
STATS=/sys/kernel/debug/statistics

# ctl CMD...: one control command per argument, each in its own write.
ctl() {
	for _c in "$@"; do
		echo "$_c" >"$CTL" || bail "sample command failed: $_c"
	done
}

# def IFACE TEXT: write TEXT to IFACE's definition file; status in $rc,
# stderr in $err.
def() {
	run sh -c "echo '$2' >$STATS/$1/definition"
}

data() { cat "$STATS/$1/data"; }
definition() { cat "$STATS/$1/definition"; }

# def_line IFACE NAME: the definition line of one statistic.
def_line() { grep "^name=$2 " "$STATS/$1/definition"; }

# attr IFACE NAME ATTR: one attribute of a statistic's definition line.
attr() {
	def_line "$1" "$2" | tr ' ' '\n' | sed -n "s/^$3=//p"
}

# untimed TEXT: timestamps replaced by [T], for lines that show real time.
untimed() { printf '%s\n' "$1" | sed 's/\[[0-9]*\.[0-9]\{6\}\]/[T]/g'; }

# range_feed IFACE STAT N MIN AVG MAX: add (X, Y) pairs whose number (total
# of Y), minimum, average (rounded to three decimals) and maximum are the
# given ones: MIN and MAX once, the rest split between two neighbours.
range_feed() {
	awk -v i="$1" -v s="$2" -v n="$3" -v lo="$4" -v avg="$5" -v hi="$6" 'BEGIN {
		acc = int(avg * n + 0.5)
		rest = n - 2
		r = acc - lo - hi
		v = int(r / rest)
		k = r - v * rest
		printf "add %s %s %d 1\nadd %s %s %d 1\n", i, s, lo, i, s, hi
		if (rest - k > 0) printf "add %s %s %d %d\n", i, s, v, rest - k
		if (k > 0) printf "add %s %s %d %d\n", i, s, v + 1, k
	}' | while read -r _line; do ctl "$_line"; done
}

# check_subsequence NAME EXPECTED ACTUAL: the lines of EXPECTED appear in
# ACTUAL in this order (lines in between allowed), as "..." in the spec.
check_subsequence() {
	_missing=$(printf '%s\n' "$3" | awk -v want="$2" '
		BEGIN { n = split(want, w, "\n"); i = 1 }
		i <= n && $0 == w[i] { i++ }
		END { if (i <= n) print w[i] }')
	if [ -z "$_missing" ]; then
		pass "$1"
	else
		fail "$1" "first spec line not found in order: $_missing
actual:
$3"
	fi
}
