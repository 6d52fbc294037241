# SPDX-License-Identifier: GPL-2.0-or-later
#
# The legacy-listener benchmark across kernels, from the patched kernel's
# tap.log and then the stock kernel's: per listener count, the median over
# rounds of the rate with N listeners over the rate with none, on each
# kernel, and what a listener adds to an exit (us). The issue's goal
# (patched within 2 % of stock when no listener asks for the I/O
# attribute) needs one configuration with and without the listener patch:
# these two kernels differ in configuration, so the verdict says so
# rather than compare their ratios.
#
# Loaded after tests/bench/lib.awk (add(), cnt[], median(), f[]).

FNR == 1 { file++ }
/^# BENCH / && f["kind"] == "listeners" {
	k = file == 1 ? "patched" : "stock"
	sum[k, f["n"], f["round"]] += f["rate"]
	add(k SUBSEP "rate" SUBSEP f["n"], f["rate"])
	if (f["round"] > maxround)
		maxround = f["round"]
}

END {
	printf "\n%-10s %13s %13s %18s %18s\n", "listeners", "patched/none", "stock/none",
		"patched +us/exit", "stock +us/exit"
	nn = split("1 8", ns, " ")
	for (j = 1; j <= nn; j++) {
		n = ns[j]
		for (k = 1; k <= 2; k++) {
			kk = k == 1 ? "patched" : "stock"
			for (r = 1; r <= maxround; r++)
				if ((kk, n, r) in sum && (kk, 0, r) in sum && sum[kk, 0, r] > 0)
					add(kk SUBSEP n, sum[kk, n, r] / sum[kk, 0, r])
			x = median(kk SUBSEP "rate" SUBSEP n); z = median(kk SUBSEP "rate" SUBSEP 0)
			us[kk] = x > 0 && z > 0 ? 1e6 / x - 1e6 / z : 0
		}
		printf "%-10s %13.4f %13.4f %18.1f %18.1f\n", n, median("patched" SUBSEP n),
			median("stock" SUBSEP n), us["patched"], us["stock"]
	}
	printf "goal (patched within 2%% of stock, legacy listeners only): not decided by these kernels:"
	printf " exits/s with no listener %.1f patched, %.1f stock (different configurations);",
		median("patched" SUBSEP "rate" SUBSEP 0), median("stock" SUBSEP "rate" SUBSEP 0)
	printf " it needs one configuration with and without the listener patch\n"
}
