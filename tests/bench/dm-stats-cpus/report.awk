# SPDX-License-Identifier: GPL-2.0-or-later
#
# Summarise the dm-stats-cpus benchmark: its tap.log files, one per number
# of possible CPUs (the -v cpus list, in the same order), each holding the
# dm-stats benchmark's "# BENCH" lines and the guest's "# iotally-guest"
# line. Per engine and row (-v engines, -v rows): the median IOPS at each
# N and its ratio to the median at the first N; per engine and row with a
# region, what the region adds to an I/O (1/IOPS less 1/IOPS of the
# no-region row, in ns of the guest's clock: instructions on -icount);
# and each engine's statistics memory per region at each N ("# MEM" lines of
# tests/bench/dm-stats-cpus/run.sh). The goal is on our rows with a region:
# within 5 % of the first N.
#
# Loaded after tests/bench/lib.awk (add(), median(), print_clock(), f[]).

FNR == 1 { boot++ }

/^# iotally-guest / {
	for (i = 3; i <= NF; i++)
		if ($i ~ /^possible=/)
			possible[boot] = substr($i, 10)
}

/^# BENCH / && ("row" in f) {
	add(f["engine"] SUBSEP f["row"] SUBSEP boot, f["iops"])
}

# tests/bench/dm-stats-cpus/run.sh: "# MEM engine=E one_area_bytes=B areas1000_bytes=B"
/^# MEM / {
	for (i = 3; i <= NF; i++) {
		split($i, kv, "=")
		mf[kv[1]] = kv[2]
	}
	mem[mf["engine"], "one_area_bytes", boot] = mf["one_area_bytes"]
	mem[mf["engine"], "areas1000_bytes", boot] = mf["areas1000_bytes"]
	have_mem = 1
}

# mem_row(LABEL, WHAT): both engines' bytes at each N, and ours/stock.
function mem_row(label, what,    b, e, v) {
	for (e = 1; e <= 2; e++) {
		printf "%-32s", (e == 1 ? "stock" : "ours") " " label
		for (b = 1; b <= nb; b++) {
			v = mem[e == 1 ? "stock" : "ours", what, b]
			printf " %10s", v == "" ? "-" : v
		}
		printf "\n"
	}
	printf "%-32s", "ours/stock"
	for (b = 1; b <= nb; b++) {
		v = "-"
		if (mem["stock", what, b] > 0 && mem["ours", what, b] != "")
			v = sprintf("%.3f", mem["ours", what, b] / mem["stock", what, b])
		printf " %10s", v
	}
	printf "\n"
}

# cost(E, R, B): ns the region of row R adds to an I/O, -1 if unknown.
function cost(e, r, b,    m, m0) {
	m = median(e SUBSEP r SUBSEP b)
	m0 = median(e SUBSEP "none" SUBSEP b)
	return m > 0 && m0 > 0 ? 1e9 / m - 1e9 / m0 : -1
}

END {
	nb = split(cpus, ncpu, " ")
	nrows = split(rows, row, " ")
	neng = split(engines, eng, " ")
	printf "dm-stats benchmark by possible CPUs: fio 4k randread, psync, direct, 2 jobs,\n"
	printf "dm-linear over null_blk, stock Debian 6.12 kernel with our dm-mod.ko, one boot per N\n"
	printf "with -smp N and the kernel's maxcpus=2 (2 CPUs online); %d rounds per boot,\n", rounds
	printf "4 measurements per row and round\n"
	print_clock()
	printf "possible CPUs the guests saw (/sys/devices/system/cpu/possible):"
	for (b = 1; b <= nb; b++)
		printf " N=%s: %s", ncpu[b], b in possible ? possible[b] : "?"
	printf "\n\nIOPS (medians)\n%-6s %-22s", "engine", "row"
	for (b = 1; b <= nb; b++)
		printf " %8s", "N=" ncpu[b]
	for (b = 2; b <= nb; b++)
		printf " %8s", ncpu[b] "/" ncpu[1]
	printf " %3s\n", "n"
	ok = 1; worst = -1; checked = 0
	for (e = 1; e <= neng; e++)
		for (i = 1; i <= nrows; i++) {
			printf "%-6s %-22s", eng[e], row[i]
			for (b = 1; b <= nb; b++)
				printf " %8d", median(eng[e] SUBSEP row[i] SUBSEP b)
			base = median(eng[e] SUBSEP row[i] SUBSEP 1)
			n = cnt[eng[e] SUBSEP row[i] SUBSEP 1]
			for (b = 2; b <= nb; b++) {
				m = median(eng[e] SUBSEP row[i] SUBSEP b)
				q = base > 0 && m > 0 ? m / base : 0
				printf " %8.3f", q
				if (cnt[eng[e] SUBSEP row[i] SUBSEP b] < n)
					n = cnt[eng[e] SUBSEP row[i] SUBSEP b]
				if (eng[e] != "ours" || row[i] == "none")
					continue
				checked++
				d = q < 1 ? 1 - q : q - 1
				if (!q || d > 0.05)
					ok = 0
				if (d > worst) {
					worst = d
					wrow = row[i] " at N=" ncpu[b]
				}
			}
			printf " %3d\n", n
		}
	printf "\nwhat the region adds to an I/O (ns of guest clock: 1/IOPS less 1/IOPS of none)\n"
	printf "%-6s %-22s", "engine", "row"
	for (b = 1; b <= nb; b++)
		printf " %8s", "N=" ncpu[b]
	printf "\n"
	for (e = 1; e <= neng; e++)
		for (i = 1; i <= nrows; i++) {
			if (row[i] == "none")
				continue
			printf "%-6s %-22s", eng[e], row[i]
			for (b = 1; b <= nb; b++)
				printf " %8.0f", cost(eng[e], row[i], b)
			printf "\n"
		}
	if (have_mem) {
		printf "\nstatistics memory: what stats_current_allocated_bytes grows by, per region\n"
		printf "%-32s", "engine and region (bytes)"
		for (b = 1; b <= nb; b++)
			printf " %10s", "N=" ncpu[b]
		printf "\n"
		mem_row("one-area region", "one_area_bytes")
		mem_row("1,000-area region", "areas1000_bytes")
	}
	printf "\ngoal: our rows with a region within 5 %% of N=%s at every N: ", ncpu[1]
	if (!checked)
		printf "no measurement: NOT MET\n"
	else
		printf "largest change %.1f %% (%s): %s\n", worst * 100, wrow, ok ? "met" : "NOT MET"
}
