#!/bin/bash
# modes.sh WHAT: what the table of modes (tests/modes.tsv) makes, on stdout.
#   header  splitcheck's letters, a line MODE('LETTER', FLAGS, "NAME") a
#           mode (the Makefile writes it to $(BUILD)/modes.h)
#   unit    tests/unit.sh's rows, WHEN|INPUTS|JUDGE|OPTIONS|NAME, the mode
#           names of OPTIONS written as splitcheck's letters
#   cmp     tests/cmp-builds.sh's runs of each mode: 'dump|TAG|COMMAND'
#           (once a dump, @f the dump), 'cut|TAG|COMMAND' (once a cut, @c
#           the dump's cut length, @r the strip's) and 'shim|TAG|ENV' (the
#           environment of a replay under the shim)
# Exits 2 on a table it cannot read: a unit row naming two modes that
# exclude each other, a form it does not know.
set -u
[ $# = 1 ] || { echo "usage: $0 header|unit|cmp" >&2; exit 2; }
exec awk -F'|' -v what="$1" '
function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
function squeeze(s) { gsub(/  +/, " ", s); return trim(s) }
function bad(msg) { print "modes.tsv:" NR ": " msg > "/dev/stderr"; err = 1; exit 2 }
# the rest of the line from field i on (a name may hold a |)
function rest(i,   s) { s = $i; for (i++; i <= NF; i++) s = s "|" $i; return trim(s) }
# a unit row: its options, mode names as letters; excluded pairs refused
function options(o,   w, n, i, j, s) {
	n = split(o, w, " ")
	for (i = 1; i <= n; i++) {
		if (!(w[i] in letter)) { s = s " " w[i]; continue }
		for (j = 1; j < i; j++)
			if ((w[j] in letter) && (index(" " excl[w[i]] " ", " " w[j] " ") ||
			    index(" " excl[w[j]] " ", " " w[i] " ")))
				bad(w[j] " and " w[i] " exclude each other")
		if (letter[w[i]] != "") s = s " -" letter[w[i]]
	}
	return trim(s)
}
# the commands of mode m in form f, "KIND|TAG|COMMAND" lines
function form(m, f,   o, r, h, p, s) {
	o = strip[m]; r = restore[m]; h = "$B/hprofstrip"; p = "$B/hprofrestore"
	s = "head -c @c @f > cut;"
	if (f == "file") run("dump", m, h " " o " -o out @f")
	else if (f == "pipe") run("dump", m " pipe", "cat @f | " h " " o " > out")
	else if (f == "pipe-v") run("dump", m " pipe", "cat @f | " h " " o " -v > out")
	else if (f == "stream") run("dump", m " stream", h " " o " " strip["stream"] " -o out @f")
	else if (f == "restore") {
		run("dump", m " restore", h " -o s @f && " p " " r " -o out s")
		run("dump", m " restore pipe", h " -o s @f && cat s | " p " " r " > out")
	} else if (f == "cut") run("cut", m " cut", s " " h " " o " -o out cut")
	else if (f == "cut-pipe") run("cut", m " cut pipe", "head -c @c @f | " h " " o " > out")
	else if (f == "cut-stream") run("cut", m " cut stream", s " " h " " o " " strip["stream"] " -o out cut")
	else if (f == "cut-salvage") run("cut", m " cut salvage", s " " h " " strip["salvage"] " " o " -o out cut")
	else if (f == "cut-restore") run("cut", m " cut restore", h " -o s @f; head -c @r s > cut; " p " " restore["salvage"] " " r " -o out cut")
	else if (f == "shim") print "shim|" m "|" squeeze(shim[m] " REPLAY_RUNTIME=none")
	else bad("mode " m ": no such form: " f)
}
function run(kind, tag, cmd) { print kind "|" tag "|" squeeze(cmd) }
/^[ \t]*(#|$)/ { next }
$1 ~ /^mode / {
	if (NF != 9) bad("a mode row has 9 columns")
	m = trim(substr($1, 6)); names[++nmodes] = m
	letter[m] = trim($2); flags[m] = trim($3); strip[m] = trim($4)
	restore[m] = trim($5); shim[m] = trim($6); excl[m] = trim($7)
	forms[m] = trim($9)
	next
}
$1 ~ /^unit / {
	if (NF < 5) bad("a unit row has 5 columns")
	# the options once every mode is read (a row may name a later one)
	units[++nunits] = trim(substr($1, 6)) "|" trim($2) "|" trim($3)
	uopts[nunits] = $4
	uname[nunits] = rest(5)
	uline[nunits] = NR
	next
}
{ bad("neither a mode nor a unit row") }
END {
	if (err) exit 2
	for (i = 1; i <= nmodes; i++) {
		m = names[i]
		if (what == "header" && letter[m] != "") {
			fl = flags[m]
			gsub(/\+/, " | ", fl)
			printf "MODE(\x27%s\x27, %s, \"%s\")\n", letter[m], fl, m
		}
		if (what == "cmp") {
			n = split(forms[m], f, " ")
			for (j = 1; j <= n; j++) form(m, f[j])
		}
	}
	for (i = 1; i <= nunits; i++) {
		NR = uline[i]
		o = options(uopts[i])
		if (what == "unit") print units[i] "|" o "|" uname[i]
	}
	if (what != "header" && what != "unit" && what != "cmp") {
		print "modes.sh: no such output: " what > "/dev/stderr"
		exit 2
	}
}' "$(dirname "$0")/modes.tsv"
