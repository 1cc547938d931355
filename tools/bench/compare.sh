#!/usr/bin/env bash
# compare.sh [-n RUNS] [-k] [SCENARIO...]: time `salt-call --local` against
# `brine call --local` on the scenarios of ../shared/bench.
#
# Each scenario is a tree written by ../shared/bench/gen_tree.py (kind, size
# and salt-call function below). Both commands run with the same minion
# config as the conformance cases (../shared/conformance/caselib.py: fixed
# grains, id "minion", a fresh scratch dir each), with --out json; their
# first outputs, normalized as the conformance harness does (paths,
# durations, start times), must be identical. Then each runs RUNS times
# (default 5) after one warm-up run, timed with hyperfine when it is
# installed, else with a loop over `date +%s%N`, and the ratios of the
# means are printed: wall time, and CPU time (user+system, children
# included; hyperfine only), which a loaded machine skews less. Without salt-call on PATH it says so and times brine alone.
#
# BRINE is the brine binary (default: built from this tree into a temp
# dir); SALT_CALL the salt-call command (default: salt-call on PATH).
# -k keeps the generated trees and workspaces. Exit status 1 when an output
# differs.
set -euo pipefail

runs=5 keep=0
while getopts "n:kh" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	k) keep=1 ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
shared=${SHARED:-$(cd "$repo/../shared" && pwd)}
gen=$shared/bench/gen_tree.py
caselib=$shared/conformance
for f in "$gen" "$caselib/caselib.py"; do
	[ -f "$f" ] || { echo "compare.sh: $f not found (set SHARED)" >&2; exit 2; }
done

# name kind sls per-sls function...
scenarios=(
	"lowstate-mix-1k mix 50 20 state.show_lowstate"
	"lowstate-mix-10k mix 500 20 state.show_lowstate"
	"apply-nop-1k nop 50 20 state.apply"
	"apply-nop-10k nop 500 20 state.apply"
	"apply-files-200 files 10 20 state.apply"
	"apply-mix-1k mix 50 20 state.apply"
	"test-mix-1k mix 50 20 state.apply test=True"
	"pillar-mix-1k mix 50 20 pillar.items"
	"test-true nop 1 1 test.true"
)
if [ $# -gt 0 ]; then
	want=" $* "
	picked=()
	for s in "${scenarios[@]}"; do
		[[ $want == *" ${s%% *} "* ]] && picked+=("$s")
	done
	scenarios=("${picked[@]}")
	[ ${#scenarios[@]} -gt 0 ] || { echo "compare.sh: no such scenario: $*" >&2; exit 2; }
fi

work=$(mktemp -d /tmp/brine-compare.XXXXXX)
cleanup() { if [ "$keep" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT

if [ -z "${BRINE:-}" ]; then
	echo "building brine..."
	(cd "$repo" && GOFLAGS=-buildvcs=false CGO_ENABLED=0 go build -o "$work/brine" ./cmd/brine)
	BRINE=$work/brine
fi
salt=${SALT_CALL:-$(command -v salt-call || true)}
if [ -z "$salt" ]; then
	echo "salt-call is not on PATH: timing brine alone, outputs not compared"
fi
hf=$(command -v hyperfine || true)

# py CMD ARGS...: the caselib helpers this script needs.
py() {
	python3 - "$caselib" "$@" <<'PY'
import json, os, sys
sys.path.insert(0, sys.argv[1])
import caselib
cmd, args = sys.argv[2], sys.argv[3:]
if cmd == "workspace":            # CASE -> prints the -c dir, then the argv
    case = caselib.load_case(args[0])
    ws = caselib.Workspace(case, keep=True)
    print(ws.conf)
    print(" ".join(case.argv))
elif cmd == "normalize":          # CASE CONF STDOUT RC -> normalized JSON
    case = caselib.load_case(args[0])
    conf = args[1]
    top = os.path.dirname(conf)
    pairs = []
    for path, ph in ((os.path.join(top, "scratch"), "{scratch}"), (conf, "{conf}"), (case.dir, "{root}")):
        for p in {path, os.path.realpath(path)}:
            pairs.append((p, ph))
    pairs.sort(key=lambda kv: -len(kv[0]))
    with open(args[2], encoding="utf-8") as fh:
        text = fh.read()
    try:
        doc = caselib.normalize(text, int(args[3]), pairs)
    except ValueError as exc:
        doc = {"retcode": int(args[3]), "error": "output is not JSON: %s" % exc}
    sys.stdout.write(caselib.dumps(doc))
elif cmd == "mean":               # hyperfine JSON -> mean wall and CPU seconds of each command
    with open(args[0]) as fh:
        for r in json.load(fh)["results"]:
            print("%.6f %.6f" % (r["mean"], r["user"] + r["system"]))
PY
}

# run_once NAME CMD CONF ARGV OUT: one run of CMD as salt-call is run by
# the conformance harness, stdout to OUT; prints the exit code.
run_once() {
	local rc=0
	(umask 022; cd "$(dirname "$3")" && LC_ALL=C.UTF-8 $2 -c "$3" --local --out json $4 >"$5" 2>"$5.err") || rc=$?
	echo "$rc"
}

# loop_mean CMD: mean seconds of RUNS runs after one warm-up.
loop_mean() {
	local i start end total=0
	eval "$1" >/dev/null 2>&1 || true
	for ((i = 0; i < runs; i++)); do
		start=$(date +%s%N)
		eval "$1" >/dev/null 2>&1 || true
		end=$(date +%s%N)
		total=$((total + end - start))
	done
	awk -v t="$total" -v n="$runs" 'BEGIN { printf "%.6f\n", t / n / 1e9 }'
}

failed=0
printf '%-18s %10s %10s %8s %8s  %s\n' scenario salt-call brine wall cpu outputs
for s in "${scenarios[@]}"; do
	read -r name kind sls per fun <<<"$s"
	dir=$work/$name
	python3 "$gen" "$dir/case" --sls "$sls" --per-sls "$per" --kind "$kind" --argv $fun >/dev/null
	mapfile -t b < <(py workspace "$dir/case")
	bconf=${b[0]} argv=${b[1]}
	bcmd="$BRINE call"
	rc=$(run_once brine "$bcmd" "$bconf" "$argv" "$dir/brine.out")
	py normalize "$dir/case" "$bconf" "$dir/brine.out" "$rc" >"$dir/brine.json"
	verdict="-"
	if [ -n "$salt" ]; then
		mapfile -t sw < <(py workspace "$dir/case")
		sconf=${sw[0]}
		rc=$(run_once salt "$salt" "$sconf" "$argv" "$dir/salt.out")
		py normalize "$dir/case" "$sconf" "$dir/salt.out" "$rc" >"$dir/salt.json"
		if cmp -s "$dir/salt.json" "$dir/brine.json"; then
			verdict=identical
		else
			verdict="DIFFER (diff $dir/salt.json $dir/brine.json)"
			failed=1
			keep=1
		fi
	fi
	bfull="cd $(dirname "$bconf") && LC_ALL=C.UTF-8 $bcmd -c $bconf --local --out json $argv"
	sfull=""
	[ -n "$salt" ] && sfull="cd $(dirname "$sconf") && LC_ALL=C.UTF-8 $salt -c $sconf --local --out json $argv"
	if [ -n "$hf" ]; then
		cmds=("$bfull")
		[ -n "$sfull" ] && cmds=("$sfull" "$bfull")
		hyperfine -w 1 -r "$runs" -i --export-json "$dir/times.json" --shell=bash "${cmds[@]}" >/dev/null
		mapfile -t means < <(py mean "$dir/times.json")
	else
		means=()
		[ -n "$sfull" ] && means+=("$(loop_mean "$sfull") -")
		means+=("$(loop_mean "$bfull") -")
	fi
	if [ -n "$sfull" ]; then
		read -r st sc <<<"${means[0]}"
		read -r bt bc <<<"${means[1]}"
		ratio=$(awk -v s="$st" -v b="$bt" 'BEGIN { printf "%.1fx", s / b }')
		cratio=-
		[ "$sc" != - ] && cratio=$(awk -v s="$sc" -v b="$bc" 'BEGIN { printf "%.1fx", s / b }')
		printf '%-18s %9.3fs %9.3fs %8s %8s  %s\n' "$name" "$st" "$bt" "$ratio" "$cratio" "$verdict"
	else
		read -r bt _ <<<"${means[0]}"
		printf '%-18s %10s %9.3fs %8s %8s  %s\n' "$name" - "$bt" - - "$verdict"
	fi
done
exit $failed
