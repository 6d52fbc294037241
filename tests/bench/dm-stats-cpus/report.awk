# SPDX-License-Identifier: GPL-2.0-or-later
#
# Summarise the dm-stats-cpus benchmark: its tap.log files, one per number
# of possible CPUs (the -v cpus list, in the same order), each holding the
# dm-stats benchmark's "# BENCH" lines. For each engine and row: the
# median IOPS at each N, and its ratio to the median at the first N.

FNR == 1 { boot++ }

/^# BENCH / && ("row" in f) {
	add(f["engine"] SUBSEP f["row"] SUBSEP boot, f["iops"])
}

END {
	nb = split(cpus, ncpu, " ")
	nrows = split("whole1 whole1-hist16-precise", rows, " ")
	printf "dm-stats benchmark by possible CPUs: fio 4k randread, psync, direct, 2 jobs,\n"
	printf "dm-linear over null_blk, stock Debian 6.12 kernel with -smp 2,maxcpus=N; %d rounds A-B-B-A per boot\n", rounds
	print_clock()
	printf "\n%-8s %-24s", "engine", "row"
	for (b = 1; b <= nb; b++)
		printf " %10s", "N=" ncpu[b]
	for (b = 2; b <= nb; b++)
		printf " %8s", ncpu[b] "/" ncpu[1]
	printf "\n"
	ok = 1; worst = -1
	for (e = 1; e <= 2; e++) {
		eng = e == 1 ? "stock" : "ours"
		for (i = 1; i <= nrows; i++) {
			printf "%-8s %-24s", eng, rows[i]
			for (b = 1; b <= nb; b++)
				printf " %10d", median(eng SUBSEP rows[i] SUBSEP b)
			base = median(eng SUBSEP rows[i] SUBSEP 1)
			for (b = 2; b <= nb; b++) {
				m = median(eng SUBSEP rows[i] SUBSEP b)
				r = base > 0 && m > 0 ? m / base : 0
				printf " %8.3f", r
				if (eng == "ours") {
					if (r < 0.95 || r > 1.05)
						ok = 0
					if (worst < 0 || (r < 1 ? 1 - r : r - 1) > worst) {
						worst = r < 1 ? 1 - r : r - 1
						wrow = rows[i] " at N=" ncpu[b]
					}
				}
			}
			printf "\n"
		}
	}
	printf "\ngoal: our rows within 5 %% of N=%d at every N: largest change %.1f %% (%s): %s\n",
		ncpu[1], worst * 100, wrow, ok && worst >= 0 ? "met" : "NOT MET"
}
