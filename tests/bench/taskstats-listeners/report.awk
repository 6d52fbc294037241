# SPDX-License-Identifier: GPL-2.0-or-later
#
# One kernel's table of the legacy-listener benchmark (the "# BENCH
# kind=listeners" lines of its tap.log): the median fork-and-exit rate
# with 0, 1 and 8 getdelays -l listeners, and the median over rounds of
# the rate with N listeners over the rate with none in the same round.
#
# Loaded after tests/bench/lib.awk (add(), cnt[], median(), f[]); -v kernel.

/^# BENCH / && f["kind"] == "listeners" {
	add(f["n"], f["rate"])
	# each round measures every count twice: their sums are compared
	sum[f["n"], f["round"]] += f["rate"]
	if (f["round"] > maxround)
		maxround = f["round"]
}

END {
	printf "legacy taskstats listeners, kernel %s: forkexit, getdelays -l on every CPU\n", kernel
	printf "%-10s %12s %10s %4s\n", "listeners", "exits/s", "/none", "n"
	nn = split("0 1 8", ns, " ")
	for (j = 1; j <= nn; j++) {
		n = ns[j]
		for (r = 1; r <= maxround; r++)
			if ((n, r) in sum && (0, r) in sum && sum[0, r] > 0)
				add("ratio" SUBSEP n, sum[n, r] / sum[0, r])
		printf "%-10s %12.1f %10.4f %4d\n", n, median(n), median("ratio" SUBSEP n), cnt[n]
	}
}
