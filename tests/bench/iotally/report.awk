# SPDX-License-Identifier: GPL-2.0-or-later
#
# Summarise the "# BENCH" lines of the iotally benchmark's tap.log: the
# median time of `iotally report` and `dmstats report` over all rounds, and
# their ratio.

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

{ sub(/\r$/, "") }

/^# BENCH / {
	delete f
	for (i = 3; i <= NF; i++) {
		split($i, kv, "=")
		f[kv[1]] = kv[2]
	}
	if ("kernel" in f) {
		krel = f["kernel"]; regions = f["regions"]
	}
	if ("create_s" in f)
		create = f["create_s"]
	if ("tool" in f) {
		t = f["tool"]
		cnt[t]++
		val[t, cnt[t]] = f["seconds"]
		runs[t] = runs[t] (runs[t] == "" ? "" : " ") f["seconds"]
	}
}

END {
	printf "iotally benchmark: report of one dm-linear device (null_blk) with %s one-area regions\n", regions
	printf "%s kernel (%s), one boot, %d interleaved rounds per tool; regions created in %s s\n\n", \
		kernel, krel, rounds, create
	printf "%-16s %10s %4s  %s\n", "tool", "median s", "n", "all runs (s)"
	printf "%-16s %10.2f %4d  %s\n", "iotally report", median("iotally"), cnt["iotally"], runs["iotally"]
	printf "%-16s %10.2f %4d  %s\n", "dmstats report", median("dmstats"), cnt["dmstats"], runs["dmstats"]
	i = median("iotally"); d = median("dmstats")
	if (i > 0 && d > 0)
		printf "\niotally/dmstats time ratio: %.3f (%s)\n", i / d, \
			i < d ? "iotally is faster" : "iotally is NOT faster"
}
