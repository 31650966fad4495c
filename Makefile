# featuredp — developer and CI entry points.
#   make reproduce   run the main job: every paper figure into results/ (quick profile; ARGS="--profile full" etc.)
#   make test        what CI runs: installs Jupyter + GoNB if missing, go vet, all tests incl. notebooks
#   make notebooks   open the notebooks in a browser (Jupyter classic UI, GoNB kernel)
#   make nb-run      execute every notebook headless into build/notebooks (+ HTML); NOTEBOOKS=… for some

# x/tools for goimports (GoNB needs it at run time); gopls v0.24.0 needs go >= 1.27
XTOOLS_VERSION := v0.52.0
GOPLS_VERSION  := v0.23.0
GOBIN := $(shell go env GOBIN)
ifeq ($(GOBIN),)
GOBIN := $(shell go env GOPATH)/bin
endif
export PATH := $(GOBIN):$(PATH)
NOTEBOOKS := $(wildcard notebooks/*.ipynb)
NB_OUT    := build/notebooks
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
# Real datasets: ../shared/datasets when present (never committed); tests skip without them.
FEATUREDP_DATA ?= $(if $(wildcard ../shared/datasets/adult.data),$(abspath ../shared/datasets),)
export FEATUREDP_DATA
# Debian packages: as root directly, otherwise through sudo; with neither, say what to install.
SUDO := $(if $(filter 0,$(shell id -u)),,$(if $(shell command -v sudo),sudo,NOSUDO))
APT_INSTALL := env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends
define apt_install
	@if [ "$(SUDO)" = NOSUDO ]; then echo "make: missing Debian packages $(1); install them as root: apt-get install $(1)" >&2; exit 1; fi
	$(SUDO) apt-get update -qq && $(SUDO) $(APT_INSTALL) $(1)
endef

.PHONY: reproduce test test-plan test-race vet fmt-check nb-deps nb-deps-ui nb-tools nb-gopls nb-kernel nb-setup notebooks nb-run nb-test nb-clean bench bench-numpy bench-vendor fuzz

# GOEXPERIMENT=simd (Go 1.26, amd64 with AVX2+FMA) turns on the SIMD kernels of
# models/logistic_block_simd.go; results are bit-identical without it, only slower.
SIMD := GOEXPERIMENT=simd

reproduce:
	@echo "building build/featuredp (the first build downloads the Go modules and compiles: 1-2 min)..."
	$(SIMD) go build -o build/featuredp ./cmd/featuredp
	build/featuredp reproduce all --out results $(ARGS)

# The suite (notebooks included: GoNB inherits the environment) runs with the SIMD kernels; the
# portable kernels are compared with them bit for bit inside that run and built and tested alone after.
test: test-plan nb-deps nb-tools fmt-check vet
	$(SIMD) REQUIRE_NOTEBOOKS=1 go test -count=1 -timeout 60m ./...
	go test -count=1 -run 'Block|Lockstep|Gonum|Parts|VecMath' ./models/ ./mechanisms/ ./internal/gemm/

# What `make test` is about to do, printed before it does it.
test-plan:
	@echo "make test: 1. Debian packages jupyter-nbconvert and dataset-fashion-mnist (with their Python dependencies; apt-get$(if $(filter 0,$(shell id -u)), as root, through sudo)) unless present;"
	@echo "           2. GoNB and goimports into $(GOBIN) (go install; Go modules from the proxy);"
	@echo "           3. gofmt and go vet, then every test, the 20 notebooks included, with GOEXPERIMENT=simd, then the portable kernels."
	@echo "           Measured on a 2-core AMD EPYC VM: 15-19 min in all (the notebooks about 14 min of it, the first build 1-2 min more)."

# The race detector, in the two configurations that work. With GOEXPERIMENT=simd, Go 1.26's
# simd/archsimd partial loads (LoadFloat64x8SlicePart, used by internal/gemm for row tails) convert
# a slice tail to a *[8]float64, which -race's pointer checker (checkptr, on by default with -race)
# rejects as "straddles multiple allocations" although only the in-bounds lanes are touched: a
# toolchain issue, not a data race. So the SIMD build runs -race with checkptr off, and the portable
# build runs -race with checkptr on (the same Go code apart from the kernels). -short keeps it to
# about the time of `make test`.
test-race:
	$(SIMD) go test -race -gcflags=all=-d=checkptr=0 -short -count=1 -timeout 90m ./...
	go test -race -short -count=1 -timeout 90m ./...

vet:
	go vet ./...
	$(SIMD) go vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

nb-deps:   # Jupyter's nbconvert (headless execution) and Fashion-MNIST, from Debian
ifeq ($(shell command -v jupyter-nbconvert >/dev/null && [ -d /usr/share/datasets/fashion-mnist ] && echo ok),)
	$(call apt_install,jupyter-nbconvert dataset-fashion-mnist)
endif
nb-deps-ui: nb-deps   # the browser UI
ifeq ($(shell command -v jupyter-notebook),)
	$(call apt_install,jupyter-notebook)
endif
nb-tools:
	cd tools && go install github.com/janpfeifer/gonb
	go install golang.org/x/tools/cmd/goimports@$(XTOOLS_VERSION)
nb-gopls:  # optional: autocomplete in the browser
	go install golang.org/x/tools/gopls@$(GOPLS_VERSION)
nb-kernel: nb-tools
	gonb --install --force_deps
nb-setup: nb-deps-ui nb-tools nb-kernel
notebooks: nb-setup
	jupyter notebook $(ROOT_FLAG) --notebook-dir=notebooks
nb-run: nb-deps nb-tools nb-kernel   # NOTEBOOKS=notebooks/01-tour.ipynb runs one
	tools/nbrun.sh $(NB_OUT) $(NOTEBOOKS)
	jupyter nbconvert --log-level=WARN --to html --output-dir $(NB_OUT) $(addprefix $(NB_OUT)/,$(notdir $(NOTEBOOKS)))
nb-test: nb-deps nb-tools
	REQUIRE_NOTEBOOKS=1 go test -count=1 -timeout 60m -v ./notebooks/
nb-clean:
	jupyter nbconvert --clear-output --inplace \
	  --ClearOutputPreprocessor.remove_metadata_fields='["execution","collapsed","scrolled"]' $(NOTEBOOKS)

bench:   # the numbers in BENCHMARKS.md
	$(SIMD) go test -run '^$$' -bench . -benchmem ./accounting/ ./mechanisms/ ./models/ ./experiments/ ./internal/gemm/

bench-vendor:   # issue #30's acceptance on this CPU: SIMD vs portable kernel, corrdp-fig1b full wall and CPU
	tools/bench_vendor.sh

bench-numpy:   # the same E3 DP-SGD step in numpy (python3-numpy from Debian), beside BenchmarkDPSGDStepE3
	@command -v /usr/bin/python3 >/dev/null && /usr/bin/python3 -c 'import numpy' 2>/dev/null || \
	  { echo "bench-numpy: needs Debian's python3-numpy (apt-get install python3-numpy)"; exit 1; }
	/usr/bin/python3 tools/bench_numpy.py 20
	$(SIMD) go test -run '^$$' -bench 'DPSGDStepE3' -benchtime 20x ./mechanisms/

# Every fuzz target as NAME:PACKAGE; `make fuzz` runs each for FUZZTIME (60 s unless set; 5m for the
# accountant's acceptance run), anchored so that a name never matches a longer one.
FUZZ_TARGETS := \
  FuzzRDPInvariants:./accounting/ \
  FuzzGaussianInvariants:./accounting/ \
  FuzzAnalyticGaussianFullRange:./accounting/ \
  FuzzConversionSubnormalDelta:./accounting/ \
  FuzzLogSubnormal:./internal/numeric/ \
  FuzzLedgerInvariants:./accounting/ \
  FuzzParseLedger:./cmd/featuredp/ \
  FuzzFDPAccountingInvariants:./notions/fdp/ \
  FuzzCompareConfig:./notions/fdp/ \
  FuzzCorrDPAccountingInvariants:./notions/corrdp/ \
  FuzzLaplaceAccuracy:./notions/corrdp/ \
  FuzzChecks:./internal/valid/ \
  FuzzAllocationInvariants:./notions/bcdp/ \
  FuzzTheorem2Invariants:./notions/smoothdp/ \
  FuzzReadCSV:./data/ \
  FuzzReadIDX:./data/ \
  FuzzPublicEncodingIsDataIndependent:./data/ \
  FuzzEstimateMeansInBounds:./notions/bcdp/ \
  FuzzSecureRelease:./mechanisms/ \
  FuzzGranularity:./mechanisms/ \
  FuzzMergeParts:./experiments/ \
  FuzzReportFlags:./cmd/featuredp/ \
  FuzzEncodeCSV:./data/ \
  FuzzIndependentAccounting:./accounting/ \
  FuzzParseKey:./release/ \
  FuzzPredictPaths:./release/ \
  FuzzRead:./release/ \
  FuzzReadSigned:./release/ \
  FuzzTrainOptions:./dpnb/

fuzz:
	@for t in $(FUZZ_TARGETS); do \
	  echo "fuzz $${t%%:*} in $${t#*:}"; \
	  go test -run '^$$' -fuzz="^$${t%%:*}\$$" -fuzztime=$(or $(FUZZTIME),60s) $${t#*:} || exit 1; \
	done
