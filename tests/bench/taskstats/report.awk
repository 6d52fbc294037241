# SPDX-License-Identifier: GPL-2.0-or-later
#
# Summarise the "# BENCH" lines of the per-task I/O benchmark's tap.log:
# medians of fio IOPS with the accounting on and off (and their ratio, the
# cost of the accounting), and of the fork-and-exit rate with and without
# an exit listener (and their ratio); and the ioab runs, which flip the
# accounting every few ms inside one run (the rows the verdict is on: they
# are the ones a loaded host cannot tilt), each beside a control run that
# flips a switch without effect.
#
# Loaded after tests/bench/lib.awk, which keeps the samples (add(),
# cnt[], val[]), takes their median() and splits each "# BENCH" line
# into f[].

function min(a, b) { return a < b ? a : b }

# paired(ROW, A, B): the median over rounds of ROW's A/B ratio within a
# round (the sums of its A-B-B-A measurements: robust against drift).
function paired(row, a, b,    k, parts, r, x, y) {
	delete cnt["pair" SUBSEP row]
	for (k in seen) {
		split(k, parts, SUBSEP)
		if (parts[1] != row)
			continue
		r = parts[2]
		if (!((row, a, r) in by_round) || !((row, b, r) in by_round))
			continue
		x = by_round[row, a, r]; y = by_round[row, b, r]
		if (y > 0)
			add("pair" SUBSEP row, x / y)
	}
	return median("pair" SUBSEP row)
}

/^# BENCH / {
	if (f["kind"] == "fio") {
		add(f["mode"] SUBSEP f["acct"], f["iops"])
		by_round[f["mode"], f["acct"], f["round"]] += f["iops"]
		seen[f["mode"], f["round"]] = 1
	}
	if (f["kind"] == "ab") {
		k = f["mode"] SUBSEP f["switch"]
		ab[k] = 1
		ab_on[k] = f["on_iops"]; ab_off[k] = f["off_iops"]
		ab_ratio[k] = f["ratio"]; ab_paired[k] = f["paired"]
		ab_pairs[k] = f["pairs"]; ab_slice = f["slice_ms"]
	}
	if (f["kind"] == "fork") {
		add("fork" SUBSEP f["listener"], f["rate"])
		by_round["fork", f["listener"], f["round"]] += f["rate"]
		seen["fork", f["round"]] = 1
		if (f["listener"] == "yes") {
			records += f["records"]
			lost += f["lost"]
		}
	}
}

END {
	printf "taskstats per-task I/O benchmark: patched kernel, one boot, medians of %d interleaved rounds\n", rounds
	printf "fio 4k randread, psync, direct, 2 jobs on null_blk; accounting switched at run time\n"
	printf "(/proc/sys/kernel/task_io_stats)\n\n"
	printf "ratio: of the medians of all measurements; paired: median over rounds of the\n"
	printf "ratio within a round (measured A-B-B-A); n: measurements per configuration\n"
	print_clock()
	printf "\n"
	printf "%-38s %11s %11s %8s %8s %8s %3s\n", "row", "acct on", "acct off", "on/off", "paired", "cost", "n"
	worst = -1
	split("inline timer", modes, " ")
	split("null_blk inline completion|null_blk timer completion 20us", label, "|")
	for (i = 1; i <= 2; i++) {
		on = median(modes[i] SUBSEP "on"); off = median(modes[i] SUBSEP "off")
		n = min(cnt[modes[i] SUBSEP "on"], cnt[modes[i] SUBSEP "off"])
		ratio = off > 0 ? on / off : 0
		pr = paired(modes[i], "on", "off")
		printf "%-38s %11d %11d %8.4f %8.4f %7.2f%% %3d\n", "IOPS, " label[i], on, off, ratio,
			pr, (1 - ratio) * 100, n
		# Separate runs only count where the guest's clock ignores the host.
		if (icount != "" && off > 0 && (1 - ratio) * 100 > worst)
			worst = (1 - ratio) * 100
	}
	printf "\nsame reads, one ioab run per row, switch flipped every %s ms (A-B-B-A); control:\n", ab_slice
	printf "flipping printk.time instead (A/A, the method's own noise); on/off: over all\n"
	printf "slices; paired: median over pairs of slices; n: pairs\n"
	printf "%-38s %11s %11s %8s %8s %8s %3s\n", "row", "on", "off", "on/off", "paired", "cost", "n"
	for (i = 1; i <= 2; i++) {
		for (j = 1; j <= 2; j++) {
			sw = j == 1 ? "acct" : "control"
			k = modes[i] SUBSEP sw
			name = (j == 1 ? "IOPS, " label[i] : "  control (A/A)")
			if (!(k in ab)) {
				printf "%-38s %s\n", name, "not measured"
				worst = 100
				continue
			}
			printf "%-38s %11d %11d %8.4f %8.4f %7.2f%% %3d\n", name, ab_on[k], ab_off[k],
				ab_ratio[k], ab_paired[k], (1 - ab_ratio[k]) * 100, ab_pairs[k]
			if (j == 1 && (1 - ab_ratio[k]) * 100 > worst)
				worst = (1 - ab_ratio[k]) * 100
		}
	}
	printf "\n%-38s %11s %11s %8s %8s %8s %3s\n", "row", "no listener", "listener", "with/no", "paired", "cost", "n"
	no = median("fork" SUBSEP "no"); yes = median("fork" SUBSEP "yes")
	ratio = no > 0 ? yes / no : 0
	printf "%-38s %11.1f %11.1f %8.4f %8.4f %7.2f%% %3d\n", "tasks forked and reaped per second", no, yes,
		ratio, paired("fork", "yes", "no"), (1 - ratio) * 100,
		min(cnt["fork" SUBSEP "no"], cnt["fork" SUBSEP "yes"])
	printf "listener (iotally tasks -m 0-1): %d records received, %d lost\n", records, lost
	if (worst >= 0)
		printf "\naccounting IOPS cost (%s): worst %.2f%%, target <= 1%%: %s\n",
			icount != "" ? "every IOPS row" : "interleaved ioab runs", worst,
			worst <= 1 ? "met" : "NOT met"
}
