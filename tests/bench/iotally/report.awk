# SPDX-License-Identifier: GPL-2.0-or-later
#
# Summarise the "# BENCH" lines of the iotally benchmark's tap.log: the
# median time of `iotally report` and `dmstats report` over all rounds, and
# their ratio.
#
# Loaded after tests/bench/lib.awk, which keeps the samples (add(),
# cnt[], val[]), takes their median() and splits each "# BENCH" line
# into f[].

/^# BENCH / {
	if ("kernel" in f) {
		krel = f["kernel"]; regions = f["regions"]
	}
	if ("create_s" in f)
		create = f["create_s"]
	if ("tool" in f) {
		t = f["tool"]
		add(t, f["seconds"])
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
