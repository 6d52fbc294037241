# SPDX-License-Identifier: GPL-2.0-or-later
#
# Summarise the "# BENCH" lines of the io trace events benchmark (the
# tap.log of every boot, in boot order): per null_blk mode, the median IOPS
# of every row, as a ratio to the kernel without the events ("off") and to
# the events compiled in but disabled; the disabled/off ratio paired over
# each A-B-B-A quadruple of boots (the sums of the two "events" boots over
# the sums of the two "noevents" boots); the consumers against "disabled"
# paired within each round of a boot; and the goal: a disabled event costs
# at most 0.5 %.
#
# Loaded after tests/bench/lib.awk (add(), cnt[], median(), f[]).

/^# BENCH / && ("row" in f) {
	k = f["mode"] SUBSEP f["row"]
	add(k, f["iops"])
	q = int((f["boot"] - 1) / 4) + 1
	quad_sum[f["mode"], f["row"], q] += f["iops"]
	round_iops[f["mode"], f["row"], f["boot"], f["round"]] = f["iops"]
	if (f["boot"] > maxboot)
		maxboot = f["boot"]
	if (f["round"] > maxround)
		maxround = f["round"]
	if (q > maxquad)
		maxquad = q
}

function verdict(ok) { return ok ? "met" : "NOT MET" }

# pair_rounds(MODE, A, B): median over (boot, round) of A/B in one round
function pair_rounds(mode, a, b,    key, bt, r) {
	key = "pr" SUBSEP mode SUBSEP a SUBSEP b
	for (bt = 1; bt <= maxboot; bt++)
		for (r = 1; r <= maxround; r++)
			if ((mode, a, bt, r) in round_iops && (mode, b, bt, r) in round_iops &&
			    round_iops[mode, b, bt, r] > 0)
				add(key, round_iops[mode, a, bt, r] / round_iops[mode, b, bt, r])
	return median(key)
}

# pair_quads(MODE): median over quadruples of boots of disabled/off
function pair_quads(mode,    key, q) {
	key = "pq" SUBSEP mode
	for (q = 1; q <= maxquad; q++)
		if ((mode, "off", q) in quad_sum && (mode, "disabled", q) in quad_sum &&
		    quad_sum[mode, "off", q] > 0)
			add(key, quad_sum[mode, "disabled", q] / quad_sum[mode, "off", q])
	return median(key)
}

END {
	nmodes = split("inline timer", modes, " ")
	nrows = split("off disabled io-bt biosnoop-bt io-ftrace block-ftrace snoop-native snoop-bpf",
		      rows, " ")
	desc["off"] = "kernel without the io events"
	desc["disabled"] = "io events compiled in, disabled"
	desc["io-bt"] = "all four io:* on, bpftrace maps"
	desc["biosnoop-bt"] = "biosnoop.bt on block:block_io_*"
	desc["io-ftrace"] = "io:io_start+io_done into a ring buffer"
	desc["block-ftrace"] = "block:block_io_start+done into one"
	desc["snoop-native"] = "iotally snoop -s latency, io events"
	desc["snoop-bpf"] = "iotally snoop -s latency, BPF backend"
	printf "io trace events benchmark: fio 4k randread, psync, direct, 2 jobs on null_blk\n"
	printf "(inline: completion in the submitting task; timer: completion 20 us later, the tasks sleep)\n"
	printf "two kernels, one tree and configuration but CONFIG_IO_TRACE_EVENTS: %d boot(s) each,\n", 2 * quads
	printf "booted noevents, events, events, noevents; %d rounds per boot; the consumer rows\n", rounds
	printf "measured in the events boots, interleaved with the disabled row\n"
	print_clock()
	for (m = 1; m <= nmodes; m++) {
		mode = modes[m]
		off = median(mode SUBSEP "off"); dis = median(mode SUBSEP "disabled")
		printf "\n%-8s %-50s %9s %8s %10s %4s\n", mode, "row", "IOPS", "/off", "/disabled", "n"
		for (i = 1; i <= nrows; i++) {
			x = median(mode SUBSEP rows[i])
			printf "%-8s %-50s %9d %8.4f %10.4f %4d\n", "", rows[i] ": " desc[rows[i]], x,
				(off > 0 ? x / off : 0), (dis > 0 ? x / dis : 0), cnt[mode SUBSEP rows[i]]
		}
		pq[mode] = pair_quads(mode)
		printf "%-8s paired disabled/off (A-B-B-A boots): %.4f, cost %.2f%%\n", "", pq[mode],
			(pq[mode] > 0 ? (1 - pq[mode]) * 100 : 0)
		pio = pair_rounds(mode, "io-bt", "disabled")
		pbs = pair_rounds(mode, "biosnoop-bt", "disabled")
		pib = pair_rounds(mode, "io-bt", "biosnoop-bt")
		printf "%-8s paired in rounds: io-bt/disabled %.4f, biosnoop-bt/disabled %.4f, io-bt/biosnoop-bt %.4f\n",
			"", pio, pbs, pib
		pft[mode] = pair_rounds(mode, "io-ftrace", "block-ftrace")
		pbt[mode] = pib
		printf "%-8s paired in rounds: io-ftrace/block-ftrace %.4f\n", "", pft[mode]
		printf "%-8s paired in rounds: snoop-bpf/disabled %.4f, snoop-native/disabled %.4f,\n",
			"", pair_rounds(mode, "snoop-bpf", "disabled"),
			pair_rounds(mode, "snoop-native", "disabled")
		printf "%-8s   snoop-bpf/biosnoop-bt %.4f, snoop-bpf/snoop-native %.4f\n", "",
			pair_rounds(mode, "snoop-bpf", "biosnoop-bt"),
			pair_rounds(mode, "snoop-bpf", "snoop-native")
	}
	printf "(IOPS: medians of all measurements; /off, /disabled: ratios of the medians;\n"
	printf " paired: medians of the ratio within each quadruple of boots or each round)\n"
	worst = 2; ok = 1
	for (m = 1; m <= nmodes; m++) {
		p = pq[modes[m]]
		if (p <= 0 || p < 0.995)
			ok = 0
		if (p < worst) {
			worst = p; wmode = modes[m]
		}
	}
	printf "\ngoal: io events compiled in and disabled cost <= 0.5%% (paired disabled/off >= 0.995, every mode):"
	printf " worst %s %.4f: %s\n", wmode, worst, verdict(ok)
	worst_goal("io:io_start+io_done into a ring buffer within 10% of block:block_io_start+done",
		   "io-ftrace/block-ftrace", pft, 0.90)
	worst_goal("all four io events under bpftrace at least as fast as biosnoop.bt",
		   "io-bt/biosnoop-bt", pbt, 1.0)
}

# worst_goal(TEXT, RATIO, PAIRED, BOUND): the worst mode's paired ratio
function worst_goal(text, ratio, paired, bound,    m, p, w, wm, ok) {
	w = 1e9; ok = 1
	for (m = 1; m <= nmodes; m++) {
		p = paired[modes[m]]
		if (p <= 0 || p < bound)
			ok = 0
		if (p < w) {
			w = p; wm = modes[m]
		}
	}
	printf "goal: %s (paired %s >= %.2f, every mode): worst %s %.4f: %s\n", text, ratio, bound,
		wm, w, verdict(ok)
}
