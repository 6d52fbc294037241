# SPDX-License-Identifier: GPL-2.0-or-later
#
# Summarise the "# BENCH" lines of the iotally serve benchmark's tap.log:
# per number of regions, the median time of one scrape (new process, and
# HTTP GET of a running server when measured) and of `dmstats report`, and
# the ratios. Loaded after tests/bench/lib.awk.

/^# BENCH / {
	if ("kernel" in f) {
		krel = f["kernel"]; http = f["http"]
	}
	if ("tool" in f) {
		n = f["regions"]; t = f["tool"]
		if (!(n in seen)) { seen[n] = 1; sizes[++nsizes] = n }
		add(n SUBSEP t, f["seconds"])
		runs[n, t] = runs[n, t] (runs[n, t] == "" ? "" : " ") f["seconds"]
	}
}

END {
	printf "iotally serve benchmark: one scrape of every region against dmstats report\n"
	printf "%s kernel (%s), one boot, %d interleaved rounds per tool and size\n\n", \
		kernel, krel, rounds
	printf "%8s  %-30s %9s %4s  %s\n", "regions", "tool", "median s", "n", "all runs (s)"
	for (i = 1; i <= nsizes; i++) {
		n = sizes[i]
		split("scrape http dmstats", tl, " ")
		name["scrape"] = "iotally serve (one scrape)"
		name["http"] = "GET /metrics (running serve)"
		name["dmstats"] = "dmstats report"
		for (j = 1; j <= 3; j++) {
			t = tl[j]
			if (!cnt[n SUBSEP t])
				continue
			printf "%8s  %-30s %9.2f %4d  %s\n", n, name[t], median(n SUBSEP t), \
				cnt[n SUBSEP t], runs[n, t]
		}
		d = median(n SUBSEP "dmstats")
		s = median(n SUBSEP "scrape")
		h = median(n SUBSEP "http")
		if (s > 0 && d > 0)
			printf "%8s  scrape/dmstats time ratio: %.3f (%s)\n", n, s / d, \
				s < d ? "the scrape is faster" : "the scrape is NOT faster"
		if (h > 0 && d > 0)
			printf "%8s  GET/dmstats time ratio:    %.3f\n", n, h / d
	}
	if (http != 1)
		printf "\n(no HTTP measurement: the guest kernel has no TCP/IP)\n"
}
