# SPDX-License-Identifier: GPL-2.0-or-later
#
# Count KUnit results (KTAP, printed at boot) in a guest console log.
# Test cases are the results one level below a suite; a suite that reported
# fewer results than its plan, or a run with fewer suites than its plan or
# than the caller expects (min_suites), counts the shortfall as failures.
#
# Output: diagnostic lines, then "RESULT pass fail skip".

BEGIN { pass = fail = skip = 0; suites = 0; top_plan = -1; in_ktap = 0 }

{
	sub(/\r$/, "")
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "")
}

/^KTAP version/ { in_ktap = 1; next }
!in_ktap { next }

/^1\.\.[0-9]+$/ { top_plan = substr($0, 4) + 0; next }
/^    1\.\.[0-9]+$/ { case_plan = substr($0, 8) + 0; cases = 0; case_fail = 0; next }
/^    # Subtest: / { suite_name = substr($0, 15); next }
/^    (not )?ok [0-9]+ / {
	cases++
	if ($0 ~ /# SKIP/)
		skip++
	else if ($0 ~ /^    ok/)
		pass++
	else {
		fail++
		case_fail++
		printf "kunit/%s: %s\n", suite_name, substr($0, 5)
	}
	next
}
/^(not )?ok [0-9]+ / {
	suites++
	if (case_plan > 0 && cases < case_plan) {
		printf "not ok - kunit/%s: plan 1..%d but %d results\n", suite_name, case_plan, cases
		fail += case_plan - cases
	}
	if ($0 ~ /^not ok/ && case_fail == 0) {
		printf "kunit: %s\n", $0
		fail++
	}
	case_plan = 0
	cases = 0
	case_fail = 0
	next
}

END {
	if (top_plan >= 0 && suites < top_plan) {
		printf "not ok - kunit: plan 1..%d suites but %d finished\n", top_plan, suites
		fail += top_plan - suites
	}
	if (suites < min_suites + 0) {
		printf "not ok - kunit: %d suites ran, %d expected\n", suites, min_suites
		fail += min_suites - suites
	}
	printf "# kunit: %d suites, %d passed, %d failed, %d skipped\n", suites, pass, fail, skip
	printf "RESULT %d %d %d\n", pass, fail, skip
}
