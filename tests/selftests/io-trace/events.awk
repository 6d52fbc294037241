# SPDX-License-Identifier: GPL-2.0-only
#
# One io event of a tracefs "trace" file per line, as '|'-separated fields
# (ev: start, done, wait_start or wait_done, for io:io_start...; name and
# dirname, DTrace's fi_name and fi_dirname, derived from path and fspath as
# Documentation/trace/io-provider.rst says, since the events do not carry
# them):
#   ev|pid|comm|dev|rwbs|sector|bytes|lsector|flags|disk|driver|error|resid|
#   fsdev|fstype|ino|off|oflags|path|line|mount|fspath|name|dirname
# (line: the event's position in the trace, which is in time order).
{
	i = index($0, " [")
	if (!i)
		next
	head = substr($0, 1, i - 1)
	sub(/^ +/, "", head)
	n = split(head, parts, "-")
	pid = parts[n]
	comm = substr(head, 1, length(head) - length(pid) - 1)
	for (e = 1; e <= NF; e++)
		if ($e ~ /^io_(start|done|wait_start|wait_done):$/)
			break
	if (e > NF)
		next
	ev = substr($e, 4, length($e) - 4)	# the event without "io_" and ":"
	lsector = $(e + 6)
	gsub(/[()]/, "", lsector)
	delete kv
	for (k = e + 7; k <= NF; k++) {
		if ($k ~ /^path=/)
			break
		j = index($k, "=")
		if (j)
			kv[substr($k, 1, j - 1)] = substr($k, j + 1)
	}
	p = index($0, " path=")
	path = substr($0, p + 6)
	ln++
	print ev "|" pid "|" comm "|" $(e + 1) "|" $(e + 2) "|" $(e + 3) "|" $(e + 5) "|" \
		lsector "|" kv["flags"] "|" kv["disk"] "|" kv["driver"] "|" kv["error"] "|" \
		kv["resid"] "|" kv["fs"] "|" kv["fstype"] "|" kv["ino"] "|" kv["off"] "|" \
		kv["oflags"] "|" path "|" ln "|" kv["mount"] "|" kv["fspath"] "|" \
		name(path, kv["fspath"]) "|" dirname(path)
}

# a path from a root, or one cut to its end after "..."
function is_path(p) { return p ~ /^(\/|\.\.\.)/ }
function basename(p,  n, c) {
	if (!is_path(p))
		return p
	n = split(p, c, "/")
	return c[n] != "" ? c[n] : p
}
function name(p, fspath) {
	if (!is_path(p) && is_path(fspath))
		return basename(fspath)
	return basename(p)
}
function dirname(p,  i) {
	if (!is_path(p))
		return p
	for (i = length(p); i > 1 && substr(p, i, 1) != "/"; i--)
		;
	return substr(p, 1, i > 1 ? i - 1 : 1)
}
