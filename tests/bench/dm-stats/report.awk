# SPDX-License-Identifier: GPL-2.0-or-later
#
# Summarise the "# BENCH" lines of the dm-stats benchmark's tap.log: the
# median of every row for both engines, each row's IOPS as a ratio to the
# same engine's no-region row, ours against stock (as a ratio of the medians
# and as the median ratio of the pairs measured back to back), and the
# 10,000-region create/delete times and memory.
#
# Loaded after tests/bench/lib.awk, which keeps the samples (add(),
# cnt[], val[]), takes their median() and splits each "# BENCH" line
# into f[].

/^# BENCH / {
	e = f["engine"]
	if ("row" in f) {
		add(e SUBSEP f["row"], f["iops"])
		# The k-th measurement of a row in a round, for pairing.
		k = ++seq[e, f["row"], f["round"]]
		pair[e, f["row"], f["round"], k] = f["iops"]
		if (k > maxk)
			maxk = k
		if (f["round"] > maxround)
			maxround = f["round"]
	}
	if ("create10k_s" in f) {
		add(e SUBSEP "create", f["create10k_s"])
		add(e SUBSEP "delete", f["delete10k_s"])
		add(e SUBSEP "bytes", f["bytes10k"])
	}
}

END {
	nrows = split("none whole1 whole1-hist16-precise overlap100 tiled1k tiled10k", rows, " ")
	printf "dm-stats benchmark: fio 4k randread, psync, direct, 2 jobs, dm-linear over null_blk\n"
	printf "stock Debian 6.12 kernel, one boot; medians of %d rounds, each row measured on both engines back to back\n\n", rounds
	printf "%-24s %10s %7s %10s %7s %10s %7s %4s\n", "row", "stock IOPS", "/none", "ours IOPS", "/none", "ours/stock", "paired", "n"
	sn = median("stock" SUBSEP "none"); on = median("ours" SUBSEP "none")
	for (i = 1; i <= nrows; i++) {
		s = median("stock" SUBSEP rows[i]); o = median("ours" SUBSEP rows[i])
		n = cnt["stock" SUBSEP rows[i]] < cnt["ours" SUBSEP rows[i]] ? \
			cnt["stock" SUBSEP rows[i]] : cnt["ours" SUBSEP rows[i]]
		# Median of ours/stock over pairs measured back to back.
		pk = "paired" SUBSEP rows[i]
		for (r = 1; r <= maxround; r++)
			for (k = 1; k <= maxk; k++)
				if (("stock", rows[i], r, k) in pair && ("ours", rows[i], r, k) in pair &&
				    pair["stock", rows[i], r, k] > 0)
					add(pk, pair["ours", rows[i], r, k] / pair["stock", rows[i], r, k])
		pm = median(pk)
		printf "%-24s %10d %7.3f %10d %7.3f %10.2f %7.2f %4d\n", rows[i], s,
			(sn > 0 ? s / sn : 0), o, (on > 0 ? o / on : 0), (s > 0 ? o / s : 0),
			(pm > 0 ? pm : 0), n
	}
	printf "(paired: median of ours/stock over the pairs measured back to back)\n"
	o1 = median("ours" SUBSEP "whole1"); o10k = median("ours" SUBSEP "tiled10k")
	if (o1 > 0)
		printf "\nours: 10,000 tiled regions / 1 whole-device region: %.3f\n", o10k / o1
	printf "\n10,000 one-area regions      %12s %12s %10s\n", "stock", "ours", "ours/stock"
	cs = median("stock" SUBSEP "create"); co = median("ours" SUBSEP "create")
	ds = median("stock" SUBSEP "delete"); do_ = median("ours" SUBSEP "delete")
	bs = median("stock" SUBSEP "bytes"); bo = median("ours" SUBSEP "bytes")
	printf "%-28s %12.3f %12.3f %10.4f\n", "create (s)", cs, co, (cs > 0 ? co / cs : 0)
	printf "%-28s %12.3f %12.3f %10.4f\n", "delete (s)", ds, do_, (ds > 0 ? do_ / ds : 0)
	printf "%-28s %12d %12d %10.4f\n", "stats_current_allocated_bytes", bs, bo, (bs > 0 ? bo / bs : 0)
	printf "%-28s %12d %12d\n", "bytes per region", bs / 10000, bo / 10000
}
