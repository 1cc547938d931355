#!/usr/bin/env bash
# fuzz.sh [-t DURATION] [PATTERN]: run every Go fuzz target of the module
# (func FuzzXxx in a _test.go file) for DURATION each (default 3s), one
# after another, as CI does; PATTERN (a grep -E regexp) narrows them by
# "package/FuzzName". A failing input is written under the package's
# testdata/fuzz/FuzzName/ by go test and the script exits 1.
#
# Long runs (hours, as before a release) use the same script:
#   tools/fuzz.sh -t 1h 'jinja|yamlload'
set -euo pipefail

fuzztime=3s
while getopts "t:h" opt; do
	case $opt in
	t) fuzztime=$OPTARG ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
pattern=${1:-.}

cd "$(dirname "$0")/.."
failed=0 ran=0
while IFS=: read -r file name; do
	pkg=./$(dirname "$file")
	[[ "$pkg/$name" =~ $pattern ]] || continue
	ran=$((ran + 1))
	echo "== $pkg $name ($fuzztime)"
	# Go's fuzzer can stop with "context deadline exceeded" and no failing
	# input when a worker answers its coordinator late on a loaded machine
	# (a toolchain flake, golang/go#56238): such a run is tried once more.
	for try in 1 2; do
		if out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg" 2>&1); then
			echo "$out"
			break
		fi
		echo "$out"
		if [ $try = 1 ] && grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input written' <<<"$out"; then
			echo "fuzz: $name stopped on the fuzzer's deadline without a failing input; trying again"
			continue
		fi
		failed=1
		break
	done
done < <(git grep -o -E '^func Fuzz[A-Za-z0-9_]*' -- '*_test.go' | sed 's/func //' | sort)
echo "fuzz: $ran targets, $([ $failed = 0 ] && echo none failed || echo FAILED)"
exit $failed
