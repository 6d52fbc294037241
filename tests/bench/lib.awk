# SPDX-License-Identifier: GPL-2.0-or-later
#
# What every tests/bench/*/report.awk needs, loaded before it
# (awk -f tests/bench/lib.awk -f tests/bench/NAME/report.awk tap.log):
# samples kept per key (add(), cnt[], val[]), their median, and the
# "# BENCH key=value ..." lines of a guest's tap.log split into f[], which
# the report's own rules then read.

function add(key, x) {
	cnt[key]++
	val[key, cnt[key]] = x
}

# median(KEY): the median of KEY's samples, -1 if it has none.
function median(key,    n, i, j, t, v) {
	n = cnt[key]
	if (!n)
		return -1
	for (i = 1; i <= n; i++)
		v[i] = val[key, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}

# print_clock(): which clock the guest measured with (the icount variable,
# QEMU -icount options or empty for the host's) and the host's load (the
# load variable), as every report's header says them.
function print_clock() {
	if (icount != "")
		printf "guest clock: QEMU -icount %s (instructions executed, not the host's time)\n", icount
	else
		printf "guest clock: the host's (TCG on a shared host: numbers move with its load)\n"
	if (load != "")
		printf "host load average (1 min) before and after the boot: %s\n", load
}

{ sub(/\r$/, "") }

/^# BENCH / {
	delete f
	for (i = 3; i <= NF; i++) {
		split($i, kv, "=")
		f[kv[1]] = kv[2]
	}
}
