# SPDX-License-Identifier: GPL-2.0-or-later
#
# Summarise the "# BENCH" lines of the dm-stats benchmark's tap.log (with
# -v section=10k: only the 10,000-region table, for the boot that measures
# nothing else): the
# median of every row for both engines, each row's IOPS as a ratio to the
# same engine's no-region row, ours against stock (as a ratio of the medians
# and as the median over rounds of the ratio of the sums of each round's
# A-B-B-A measurements), and the 10,000-region create/delete times, the
# floor (10,000 messages that do nothing) and memory.
#
# Loaded after tests/bench/lib.awk, which keeps the samples (add(),
# cnt[], val[]), takes their median() and splits each "# BENCH" line
# into f[].

/^# BENCH / {
	e = f["engine"]
	if ("row" in f) {
		add(e SUBSEP f["row"], f["iops"])
		# Both engines' sums over a round's A-B-B-A, for pairing.
		by_round[e, f["row"], f["round"]] += f["iops"]
		if (f["round"] > maxround)
			maxround = f["round"]
	}
	if ("create10k_s" in f) {
		add(e SUBSEP "create", f["create10k_s"])
		add(e SUBSEP "delete", f["delete10k_s"])
		add(e SUBSEP "floor", f["floor10k_s"])
		add(e SUBSEP "bytes", f["bytes10k"])
	}
}

END {
	if (section == "10k") {
		printf "dm-stats benchmark, 10,000 regions only: stock Debian 6.12 kernel, one boot\n"
		print_clock()
		table_10k()
		goals_time()
		exit
	}
	nrows = split("none whole1 whole1-hist16-precise overlap100 tiled1k tiled10k", rows, " ")
	printf "dm-stats benchmark: fio 4k randread, psync, direct, 2 jobs, dm-linear over null_blk\n"
	printf "stock Debian 6.12 kernel, one boot; %d rounds, each row measured A-B-B-A on the two engines per round\n", rounds
	print_clock()
	printf "\n"
	printf "%-24s %10s %7s %10s %7s %10s %7s %4s\n", "row", "stock IOPS", "/none", "ours IOPS", "/none", "ours/stock", "paired", "n"
	sn = median("stock" SUBSEP "none"); on = median("ours" SUBSEP "none")
	for (i = 1; i <= nrows; i++) {
		s = median("stock" SUBSEP rows[i]); o = median("ours" SUBSEP rows[i])
		n = cnt["stock" SUBSEP rows[i]] < cnt["ours" SUBSEP rows[i]] ? \
			cnt["stock" SUBSEP rows[i]] : cnt["ours" SUBSEP rows[i]]
		# Median over rounds of ours/stock within the round.
		pk = "paired" SUBSEP rows[i]
		for (r = 1; r <= maxround; r++)
			if (("stock", rows[i], r) in by_round && ("ours", rows[i], r) in by_round &&
			    by_round["stock", rows[i], r] > 0)
				add(pk, by_round["ours", rows[i], r] / by_round["stock", rows[i], r])
		pm = median(pk)
		printf "%-24s %10d %7.3f %10d %7.3f %10.3f %7.3f %4d\n", rows[i], s,
			(sn > 0 ? s / sn : 0), o, (on > 0 ? o / on : 0), (s > 0 ? o / s : 0),
			(pm > 0 ? pm : 0), n
	}
	printf "(IOPS: medians of all measurements; paired: median over rounds of ours/stock,\n"
	printf " each the ratio of the sums of the round's A-B-B-A measurements)\n"
	o1 = median("ours" SUBSEP "whole1"); o10k = median("ours" SUBSEP "tiled10k")
	if (o1 > 0)
		printf "\nours: 10,000 tiled regions / 1 whole-device region: %.3f\n", o10k / o1
	table_10k()
	goals_iops(o1 > 0 ? o10k / o1 : 0)
	if (icount == "")
		goals_time()
	else
		printf "goal: create, delete 10,000 regions <= 1/10 of stock's time: judged on the host's clock (the 10,000-region boot below, BENCH_WALL=1);\n" \
			"      this clock counts instructions only, and 10,000 messages that do nothing are %.2f of stock's delete here\n",
			(median("stock" SUBSEP "delete") > 0 ? median("stock" SUBSEP "floor") / median("stock" SUBSEP "delete") : 0)
}

function verdict(ok) { return ok ? "met" : "NOT MET" }

# The engine issue's goals for the IOPS rows and memory. "none" is a
# control (no region: the same code on both engines), not a goal.
function goals_iops(ratio10k,    i, pm, low, lowrow, ok, bs, bo) {
	ok = 1; low = -1
	for (i = 2; i <= nrows; i++) {
		pm = median("paired" SUBSEP rows[i])
		if (pm < 1)
			ok = 0
		if (low < 0 || pm < low) {
			low = pm; lowrow = rows[i]
		}
	}
	bs = median("stock" SUBSEP "bytes"); bo = median("ours" SUBSEP "bytes")
	printf "\ngoal: every row with regions at or above stock (paired >= 1): lowest %s %.3f: %s\n",
		lowrow, low, verdict(ok && low > 0)
	printf "goal: 10,000 tiled regions >= 0.90 of our 1-region IOPS: %.3f: %s\n", ratio10k,
		verdict(ratio10k >= 0.90)
	printf "goal: 10,000 one-area regions in <= 1/20 of stock's memory: %.4f: %s\n",
		(bs > 0 ? bo / bs : 0), verdict(bs > 0 && bo > 0 && bo / bs <= 0.05)
}

# The goal for the time 10,000 regions take: creating and deleting them,
# each at most 1/10 of stock's time.
function goals_time(    cs, co, ds, do_) {
	cs = median("stock" SUBSEP "create"); co = median("ours" SUBSEP "create")
	ds = median("stock" SUBSEP "delete"); do_ = median("ours" SUBSEP "delete")
	printf "\ngoal: create 10,000 regions in <= 1/10 of stock's time: %.4f: %s\n",
		(cs > 0 ? co / cs : 0), verdict(cs > 0 && co > 0 && co / cs <= 0.1)
	printf "goal: delete 10,000 regions in <= 1/10 of stock's time: %.4f: %s\n",
		(ds > 0 ? do_ / ds : 0), verdict(ds > 0 && do_ > 0 && do_ / ds <= 0.1)
}

# Create and delete times of 10,000 one-area regions, the floor, memory.
function table_10k(    cs, co, ds, do_, fs, fo, bs, bo) {
	printf "\n10,000 one-area regions      %12s %12s %10s\n", "stock", "ours", "ours/stock"
	cs = median("stock" SUBSEP "create"); co = median("ours" SUBSEP "create")
	ds = median("stock" SUBSEP "delete"); do_ = median("ours" SUBSEP "delete")
	fs = median("stock" SUBSEP "floor"); fo = median("ours" SUBSEP "floor")
	bs = median("stock" SUBSEP "bytes"); bo = median("ours" SUBSEP "bytes")
	printf "%-28s %12.3f %12.3f %10.4f\n", "create (s)", cs, co, (cs > 0 ? co / cs : 0)
	printf "%-28s %12.3f %12.3f %10.4f\n", "delete (s)", ds, do_, (ds > 0 ? do_ / ds : 0)
	printf "%-28s %12.3f %12.3f %10.4f\n", "create + delete (s)", cs + ds, co + do_,
		(cs + ds > 0 ? (co + do_) / (cs + ds) : 0)
	printf "%-28s %12.3f %12.3f %10.4f\n", "floor: 10,000 no-ops (s)", fs, fo, (fs > 0 ? fo / fs : 0)
	printf "%-28s %12.3f %12.3f %10.4f\n", "delete less the floor (s)", ds - fs, do_ - fo,
		(ds - fs > 0 ? (do_ - fo) / (ds - fs) : 0)
	printf "%-28s %12d %12d %10.4f\n", "stats_current_allocated_bytes", bs, bo, (bs > 0 ? bo / bs : 0)
	printf "%-28s %12d %12d\n", "bytes per region", bs / 10000, bo / 10000
}
