#!/usr/bin/env bash
# The measurements of issue #30's acceptance on this machine's CPU, in one command (make bench-vendor):
# the CPU model; BenchmarkLogisticBlockGradSums/adult/R=32 of the SIMD and the portable build,
# alternated over three rounds at GOMAXPROCS=2 (the acceptance asks SIMD ≥ 3× faster; the portable
# time is the machine factor between two machines); and `reproduce corrdp-fig1b --profile full`,
# wall and CPU time (CPU ≈ 2× wall when both cores work). Compare with the same script's output on
# the other vendor in BENCHMARKS.md. It needs the Adult data in $FEATUREDP_DATA and takes about
# five minutes on the 2-core AMD EPYC; run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${FEATUREDP_DATA:-}" ] || [ ! -f "$FEATUREDP_DATA/adult.data" ]; then
  echo "bench-vendor: set FEATUREDP_DATA to the folder holding adult.data (featuredp data fetch gets it)" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lscpu | grep -E '^(Vendor ID|Model name|CPU\(s\)):' || true
go version
GOEXPERIMENT=simd go test -c -o "$tmp/simd.test" ./models
go test -c -o "$tmp/portable.test" ./models
for round in 1 2 3; do
  for build in simd portable; do
    "$tmp/$build.test" -test.run '^$' -test.bench 'LogisticBlockGradSums/adult/R=32$' -test.cpu 2 -test.count 1 |
      sed -n "s/^Benchmark/round $round $build: Benchmark/p"
  done
done
GOEXPERIMENT=simd go build -o "$tmp/featuredp" ./cmd/featuredp
TIMEFORMAT='corrdp-fig1b --profile full (SIMD build): %R s wall, %U s user CPU, %S s system CPU'
time "$tmp/featuredp" reproduce corrdp-fig1b --profile full --out "$tmp/out" >/dev/null
