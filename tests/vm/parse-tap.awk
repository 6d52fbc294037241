# SPDX-License-Identifier: GPL-2.0-or-later
#
# Count the results of the guest suites in a tap.log written by tests/vm/init.
# A suite that did not start, did not end, lost tests against its plan, bailed
# out or exited non-zero with no failing test counts as failed: a missing
# result is a failure, never a pass. A suite that skipped as a whole, as
# kselftest has it (a plan "1..0 # SKIP reason", exit status 4, before any
# check), counts as one skip, and says why.
#
# Variables: suites="a b c" (the suites that must have run), name (for messages).
# Output: diagnostic lines, then a last line "RESULT pass fail skip".

function finish_suite(   missing) {
	if (suite == "")
		return
	if (ended && rc == 4 && skipped_all && count == 0) {
		printf "# %s/%s: skipped: %s\n", name, suite, skip_reason
		skip++
		suite = ""
		return
	}
	if (!ended) {
		printf "not ok - %s/%s: suite did not finish\n", name, suite
		fail++
	} else if (plan < 0) {
		printf "not ok - %s/%s: no TAP plan\n", name, suite
		fail++
	} else if (count != plan) {
		missing = plan - count
		printf "not ok - %s/%s: plan 1..%d but %d results\n", name, suite, plan, count
		fail += (missing > 0 ? missing : 1)
	}
	if (bailed) {
		printf "not ok - %s/%s: bailed out\n", name, suite
		fail++
	}
	if (ended && rc == -1) {
		printf "not ok - %s/%s: kselftest's runner did not report it\n", name, suite
		fail++
	} else if (ended && rc != 0 && suite_fail == 0) {
		printf "not ok - %s/%s: exited with rc=%d\n", name, suite, rc
		fail++
	}
	printf "# %s/%s: %d passed, %d failed, %d skipped%s\n", name, suite, suite_pass, suite_fail, suite_skip,
		secs != "" ? " (" secs " s)" : ""
	suite = ""
}

BEGIN {
	n = split(suites, want, " ")
	for (i = 1; i <= n; i++)
		expected[want[i]] = 1
	pass = fail = skip = 0
	suite = ""
	done = 0
}

{ sub(/\r$/, "") }

/^# iotally-suite-begin / {
	finish_suite()
	suite = $3
	# kselftest's runner: its own lines, and the suite's prefixed "# "
	ks = ($4 == "kselftest"); ks_reported = 0
	started[suite] = 1
	plan = -1; count = 0; ended = 0; rc = 0; bailed = 0; secs = ""
	skipped_all = 0; skip_reason = ""
	suite_pass = suite_fail = suite_skip = 0
	last_failed = 0
	next
}
/^# iotally-suite-end / {
	if (suite != "") {
		ended = 1
		rc = $4
		sub(/^rc=/, "", rc)
		rc += 0
		secs = ($5 ~ /^seconds=/) ? substr($5, 9) : ""
		if (ks)
			rc = ks_reported ? ks_rc : -1
	}
	finish_suite()
	next
}
/^# iotally-guest-done/ { done = 1; next }

suite == "" { next }

# kselftest's runner: "ok|not ok N selftests: DIR: PROGRAM [# SKIP|# exit=N|
# # TIMEOUT S seconds]" ends the suite; its other lines are not the suite's.
ks && /^(not )?ok [0-9]+ selftests: / {
	ks_reported = 1
	if ($0 ~ /^ok .*# SKIP$/)
		ks_rc = 4
	else if ($0 ~ /^ok /)
		ks_rc = 0
	else if (match($0, /# exit=[0-9]+$/))
		ks_rc = substr($0, RSTART + 7) + 0
	else {
		printf "not ok - %s/%s: %s\n", name, suite, $0
		fail++
		ks_rc = 124
	}
	next
}
ks && !/^#( |$)/ { next }
ks && /^# (timeout set to|overriding timeout to|selftests: |Warning: )/ { next }
ks { sub(/^# ?/, "") }

/^1\.\.0 # SKIP/ {
	skipped_all = 1
	skip_reason = $0
	sub(/^1\.\.0 # SKIP */, "", skip_reason)
	plan = 0
	next
}
/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; next }
/^Bail out!/ { bailed = 1; print; next }
/^(not )?ok( |$)/ {
	count++
	if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) {
		skip++; suite_skip++
		last_failed = 0
	} else if ($0 ~ /^ok/) {
		pass++; suite_pass++
		last_failed = 0
	} else {
		fail++; suite_fail++
		printf "%s/%s: %s\n", name, suite, $0
		last_failed = 1
	}
	next
}
# Diagnostics that follow a failed test explain it: show them.
/^#/ { if (last_failed) print "    " $0; next }

END {
	finish_suite()
	for (s in expected) {
		if (!(s in started)) {
			printf "not ok - %s/%s: suite never started\n", name, s
			fail++
		}
	}
	if (!done) {
		printf "not ok - %s: guest did not finish\n", name
		fail++
	}
	printf "RESULT %d %d %d\n", pass, fail, skip
}
