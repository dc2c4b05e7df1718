# MockCDN: `make serve` runs the server with its embedded defaults, `make test` runs every test.
# Both install the system libraries they need first (Debian/Ubuntu, apt), and skip that when present.

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := pkg-config libssl-dev libvips-dev
SERVE_FLAGS ?=

.PHONY: deps build release serve test test-swift format format-check bench-startup clean

## deps: install pkg-config, libssl-dev and libvips-dev with apt, only when pkg-config cannot find them.
deps:
	@if pkg-config --exists openssl vips 2>/dev/null; then :; else \
		echo "installing $(APT_PACKAGES)"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(APT_PACKAGES); \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product mockcdn

## serve: run the server (in memory, 127.0.0.1:8080, demo app). Extra flags: make serve SERVE_FLAGS="--port 0"
serve: deps
	$(SWIFT) run mockcdn serve $(SERVE_FLAGS)

## test: every test suite the project has.
test: deps format-check test-swift

test-swift:
	$(SWIFT) test --parallel

format:
	$(SWIFT) format format --in-place --recursive --parallel Package.swift Sources Tests

## format-check: fails when any Swift file drifts from .swift-format.
format-check:
	$(SWIFT) format lint --strict --recursive --parallel Package.swift Sources Tests

bench-startup: release
	Benchmarks/startup.sh

clean:
	rm -rf .build
