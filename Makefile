# MockCDN: `make serve` runs the server with its embedded defaults, `make test` runs every test.
# Both install the system libraries and tools they need first (Debian/Ubuntu, apt), and skip that when present.

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# libxxhash-dev: only its header, compiled into CMockCDNCrypto (XXH_INLINE_ALL); nothing of it is linked.
APT_PACKAGES := pkg-config libssl-dev libvips-dev libxml2-dev libxxhash-dev
# Video posters run the ffmpeg binary as a subprocess; the server links no FFmpeg library.
VIDEO_PACKAGES := ffmpeg
# A real browser for the browser tests (headless Chromium driven by Selenium).
BROWSER_PACKAGES := chromium chromium-driver
# Real peers for the compatibility suite and the OpenAPI check.
# Stream's Python server SDKs are pinned: the compat suite checks MockCDN against these exact releases.
# junitparser reads the coverage report's JUnit XML in Tests/compat/test_report.py.
PIP_PACKAGES := boto3 awscli cryptography pytest openapi-spec-validator selenium stream-chat==4.33.0 getstream==7.0.0 'moto[server]' pytest-xdist junitparser testcontainers
SERVE_FLAGS ?=
# The Python peers live in a virtualenv of the project's (Debian 12 and Ubuntu refuse `pip install` into the
# system Python, PEP 668). It sees the system's packages too, so what is already installed is not fetched
# again. Every recipe finds its python3, pip, aws and moto_server there first.
VENV := $(CURDIR)/.venv
export PATH := $(VENV)/bin:$(PATH)

.PHONY: deps video-deps browser-deps node-deps test-deps venv py-deps build binary release serve test architecture-check test-swift test-consumer test-compat test-helpers test-java client-coverage dist dist-deps dist-check client-isolation openapi-check docs format format-check bench-startup \
	bench-upload bench-resize bench soak fuzz test-stress clean

## deps: install pkg-config, libssl-dev, libvips-dev, libxml2-dev and libxxhash-dev with apt, only when pkg-config cannot find them.
deps:
	@if pkg-config --exists openssl vips libxml-2.0 libxxhash 2>/dev/null; then :; else \
		echo "installing $(APT_PACKAGES)"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(APT_PACKAGES); \
	fi

## video-deps: Debian's ffmpeg (video posters), only when no ffmpeg is on PATH.
video-deps:
	@if command -v ffmpeg >/dev/null; then :; else \
		echo "installing $(VIDEO_PACKAGES)"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(VIDEO_PACKAGES); \
	fi

## browser-deps: Debian's chromium and chromium-driver, only when either is missing.
browser-deps:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; else \
		echo "installing $(BROWSER_PACKAGES)"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(BROWSER_PACKAGES); \
	fi

## node-deps: Node.js for the JavaScript helper's tests (node --test, Node 18+), only when no node is on PATH.
node-deps:
	@if command -v node >/dev/null; then :; else \
		echo "installing nodejs"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends nodejs; \
	fi

# A JDK, JUnit 5 and Jackson for the Java helper's suite, when missing (clients/java/run-tests.sh installs them
# itself when run alone).
JAVA_MISSING = $(shell command -v javac >/dev/null || echo default-jdk-headless; \
	[ -f /usr/share/java/junit-platform-console-standalone.jar ] || echo junit5; \
	[ -f /usr/share/java/jackson-databind.jar ] || echo libjackson2-databind-java)

## test-deps: every system package make test needs (the groups above, python3-venv when the venv module is
## missing), in one apt transaction with one `apt-get update`; a no-op when all are there.
test-deps:
	@missing=""; \
	pkg-config --exists openssl vips libxml-2.0 libxxhash 2>/dev/null || missing="$$missing $(APT_PACKAGES)"; \
	command -v ffmpeg >/dev/null || missing="$$missing $(VIDEO_PACKAGES)"; \
	{ command -v chromium >/dev/null && command -v chromedriver >/dev/null; } || missing="$$missing $(BROWSER_PACKAGES)"; \
	command -v node >/dev/null || missing="$$missing nodejs"; \
	[ -x "$(VENV)/bin/python3" ] || python3 -c "import ensurepip" 2>/dev/null || missing="$$missing python3-venv"; \
	missing="$$missing $(strip $(JAVA_MISSING))"; \
	if [ -n "$$(echo $$missing)" ]; then \
		echo "installing$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

## venv: the project's virtualenv in .venv (python3-venv from apt only when the venv module is missing).
venv:
	@if [ -x "$(VENV)/bin/python3" ]; then :; else \
		python3 -m venv --system-site-packages "$(VENV)" 2>/dev/null || { \
			echo "installing python3-venv"; \
			$(SUDO) apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends python3-venv && \
			rm -rf "$(VENV)" && python3 -m venv --system-site-packages "$(VENV)"; }; \
	fi

## py-deps: the Python peers (botocore, awscli, ...), installed into .venv with pip only when one is missing.
py-deps: venv
	@if python3 -c "import boto3, botocore, cryptography, pytest, openapi_spec_validator, selenium, moto, flask, xdist, junitparser, testcontainers; \
		from importlib.metadata import version as v; \
		assert v('stream-chat') == '4.33.0' and v('getstream') == '7.0.0'" 2>/dev/null \
		&& command -v aws >/dev/null && command -v moto_server >/dev/null; then :; else \
		echo "installing $(PIP_PACKAGES)"; python3 -m pip install -q $(PIP_PACKAGES); \
	fi
	@# awscrt apart, in .venv/crt: boto3 switches to the CRT signer when it can import it, and most users' boto3
	@# cannot; the tests that need it (CRC64NVME, CRC32C) put it on their own path.
	@if [ -d "$(VENV)/crt/awscrt" ]; then :; else \
		echo "installing awscrt into $(VENV)/crt"; python3 -m pip install -q --target "$(VENV)/crt" awscrt; \
	fi
	@# s3fs, minio-py and aiobotocore apart, in .venv/s3clients: aiobotocore pins a botocore of its own, which would
	@# move the boto3 and awscli every other test runs; their test runs them in a process of its own.
	@if [ -d "$(VENV)/s3clients/s3fs" ] && [ -d "$(VENV)/s3clients/minio" ] && [ -d "$(VENV)/s3clients/aiobotocore" ]; then :; else \
		echo "installing s3fs minio aiobotocore into $(VENV)/s3clients"; \
		python3 -m pip install -q --target "$(VENV)/s3clients" s3fs minio aiobotocore 2>&1 | grep -v "dependency resolver\|requires botocore" || true; \
	fi
	@# The Python helper (clients/python), editable: its suite runs the code in the checkout.
	@if python3 -c "import mockcdn.pytest_plugin" 2>/dev/null; then :; else \
		echo "installing clients/python"; python3 -m pip install -q -e clients/python; \
	fi

build: deps
	$(SWIFT) build

## binary: the debug server, with its image worker and module beside it (scripts/build-server.sh).
binary: deps
	SWIFT=$(SWIFT) scripts/build-server.sh

# The binary the peers' suites (compat, helpers, Java) run: .build/debug/mockcdn, built first, unless make test's
# lanes hand them a copy of it (PEERS_BINARY; scripts/test-lanes.sh).
PEERS_BINARY ?=
PEER_BINARY = $(or $(PEERS_BINARY),$(CURDIR)/.build/debug/mockcdn)
PEER_BUILD = $(if $(PEERS_BINARY),,binary)

release: deps
	SWIFT=$(SWIFT) scripts/build-server.sh -c release

## serve: run a release build of the server (in memory, 127.0.0.1:8080, demo app); a debug build is
## about 80 times slower on an upload. Extra flags: make serve SERVE_FLAGS="--port 0"
serve: deps video-deps
	SWIFT=$(SWIFT) scripts/build-server.sh -c release
	.build/release/mockcdn serve $(SERVE_FLAGS)

## test: every test: one apt transaction (test-deps), then two lanes side by side, one per core
## (scripts/test-lanes.sh): the Swift build and suites; the pip installs, checks and the peers' suites.
test: test-deps
	MAKE="$(MAKE)" SWIFT=$(SWIFT) scripts/test-lanes.sh

# Built first, then run with a bound: a normal run takes 0.5 to 2 minutes, and a hang fails in 10, naming the
# tests that never finished.
test-swift: video-deps py-deps
	$(SWIFT) build --build-tests
	MOCKCDN_REQUIRE_S3=1 SWIFT=$(SWIFT) scripts/swift-test-bounded.sh 600 --parallel --skip-build

## test-consumer: Tests/ExampleConsumer, a package that depends on MockCDN as a user's does and imports only
## MockCDNTesting and MockCDNClient; built in the same scratch folder, so it reuses every module already built.
test-consumer: deps video-deps
	$(SWIFT) build --build-tests --package-path Tests/ExampleConsumer --scratch-path .build
	SWIFT=$(SWIFT) scripts/swift-test-bounded.sh 300 --package-path Tests/ExampleConsumer --scratch-path .build --skip-build

## client-coverage: MockCDNClient's own end-to-end suite, with the contract coverage report of every server it
## started written to .build/client-coverage.md (MOCKCDN_REPORT; docs/report.md lists the rows it leaves).
client-coverage: deps video-deps
	$(SWIFT) build --build-tests
	MOCKCDN_REPORT=$(CURDIR)/.build/client-coverage.md $(SWIFT) test --skip-build --filter MockCDNClientTests
	@sed -n 3p $(CURDIR)/.build/client-coverage.md

## test-compat: real AWS tooling (botocore's CloudFrontSigner, aws cloudfront sign), moto_server and the Stream
## SDKs against the real binary, and every code block of the README and docs/guides (node runs the JavaScript
## ones); two pytest workers (pytest-xdist), since most tests wait on servers.
test-compat: deps video-deps browser-deps py-deps node-deps $(PEER_BUILD)
	MOCKCDN_BINARY=$(PEER_BINARY) python3 -m pytest -q -n 2 Tests/compat

## test-helpers: the Python helper's pytest suite and the JavaScript helper's node --test suite, each against
## the real binary.
test-helpers: deps video-deps py-deps node-deps $(PEER_BUILD)
	MOCKCDN_BINARY=$(PEER_BINARY) python3 -m pytest -q clients/python/tests
	cd clients/js && MOCKCDN_BINARY=$(PEER_BINARY) node --test

## test-java: the JUnit 5 helper (clients/java), compiled with javac and run by JUnit's console launcher against
## the real binary; Debian's JDK, junit5 and Jackson are installed when missing (clients/java/run-tests.sh).
test-java: deps video-deps $(PEER_BUILD)
	MOCKCDN_BINARY=$(PEER_BINARY) clients/java/run-tests.sh

## dist: the release artifacts in dist/: the relocatable Linux tarball (packaging/make-dist.sh: release build,
## the Swift runtime linked in, libMockCDNVips, the resources and the fixtures), and the Python wheel that
## wraps it (packaging/make-wheel.py: the helper, the pytest plugin and a `mockcdn` command).
dist: deps video-deps py-deps dist-deps
	@tarball=$$(SWIFT=$(SWIFT) packaging/make-dist.sh) && wheel=$$(python3 packaging/make-wheel.py "$$tarball") \
		&& ls -l "$$tarball" "$$wheel"

## dist-deps: setuptools 70 or later and wheel in .venv, which build and tag the wheel.
dist-deps: venv
	@if python3 -c "import wheel, setuptools; assert int(setuptools.__version__.split('.')[0]) >= 70" \
		2>/dev/null; then :; else echo "installing wheel setuptools>=70"; \
		python3 -m pip install -q wheel 'setuptools>=70'; fi

## dist-check: the artifacts as users run them, in a clean Debian bookworm root with only the run-stage
## packages (packaging/clean-root.sh, cached outside the checkout): ldd on every shipped ELF file, then the
## smoke suite (Tests/dist) and the wheel in a fresh venv, the image built and run with podman (and the
## Python Testcontainers module against it); then every code block of the README and guides the
## tarball ships, run from the unpacked tarball in empty folders (Tests/compat/test_doc_snippets.py with
## MOCKCDN_SNIPPETS_INSTALL). Needs root (chroot, mount); skipped, saying so, otherwise.
dist-check:
	@if [ "$$(id -u)" != 0 ]; then \
		echo "dist-check: SKIPPED: it needs root for chroot and mount (CI runs it as root)"; exit 0; fi; \
	$(MAKE) --no-print-directory dist && \
	if command -v debootstrap >/dev/null && command -v podman >/dev/null && command -v runc >/dev/null; then :; else \
		echo "installing debootstrap podman runc"; apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap podman runc; fi && \
	cache=$$(packaging/clean-root.sh --layer python) && \
	MOCKCDN_DIST=$$(ls dist/mockcdn-*-linux-*.tar.gz) MOCKCDN_WHEEL=$$(ls dist/mockcdn-*.whl) \
		MOCKCDN_CLEAN_ROOT=$$cache python3 -m pytest -q -p no:mockcdn -p no:cacheprovider Tests/dist && \
	unpacked=$$(mktemp -d) && tar -xzf dist/mockcdn-*-linux-*.tar.gz -C "$$unpacked" && \
	install=$$(ls -d "$$unpacked"/mockcdn-*) && \
	MOCKCDN_SNIPPETS_INSTALL=$$install MOCKCDN_BINARY=$$install/bin/mockcdn \
		python3 -m pytest -q -p no:cacheprovider Tests/compat/test_doc_snippets.py; \
	status=$$?; rm -rf "$$unpacked"; exit $$status

## client-isolation: MockCDNClient builds on its own: no server, Hummingbird or NIO module is compiled; the
## package declares the iOS 15 floor the client keeps.
client-isolation:
	$(SWIFT) package dump-package | python3 scripts/check-client-floor.py
	rm -rf .build-client
	$(SWIFT) build --target MockCDNClient --scratch-path .build-client > /dev/null
	@extra=$$(find .build-client -name '*.swiftmodule' -path '*Modules*' ! -name 'MockCDNClient.swiftmodule'); \
		if [ -n "$$extra" ]; then echo "MockCDNClient pulled in: $$extra"; exit 1; fi; \
		echo "MockCDNClient builds alone"
	rm -rf .build-client

## openapi-check: openapi.yaml is a valid OpenAPI 3.1 document.
openapi-check: py-deps
	python3 -m openapi_spec_validator openapi.yaml

## docs: the API reference of MockCDNClient and MockCDNTesting, built by DocC (swift-docc-plugin) into
## .build/docs/MockCDNClient.doccarchive and .build/docs/MockCDNTesting.doccarchive, DocC's warnings as errors;
## then fails naming any public symbol of the two without a doc comment (scripts/check-doc-comments.py).
DOCS_DIR := $(CURDIR)/.build/docs
docs: deps
	rm -rf $(DOCS_DIR) && mkdir -p $(DOCS_DIR) && touch $(DOCS_DIR)/.started
	$(SWIFT) package --allow-writing-to-directory $(DOCS_DIR) generate-documentation \
		--target MockCDNClient --target MockCDNTesting --output-path $(DOCS_DIR) --warnings-as-errors
	python3 scripts/check-doc-comments.py --newer-than $(DOCS_DIR)/.started MockCDNClient MockCDNTesting

format:
	$(SWIFT) format format --in-place --recursive --parallel Package.swift Sources Tests

## format-check: fails when any Swift file drifts from .swift-format.
format-check:
	$(SWIFT) format lint --strict --recursive --parallel Package.swift Sources Tests

## architecture-check: no API surface of the server uses a sibling surface's types, and every error type has a
## category (scripts/check-surfaces.py, scripts/check-errors.py; docs/architecture.md says why).
architecture-check:
	python3 scripts/check-surfaces.py
	python3 scripts/check-errors.py

bench-startup: release
	Benchmarks/startup.sh

bench-upload: release
	Benchmarks/upload-memory.sh

## soak: 10 minutes of mixed load against the disk store of the release tarball's binary (Benchmarks/soak.py):
## reads of every credential kind, uploads up to 100 MiB, resizes and posters, faults and clock jumps, and a
## SIGKILL and restart every minute; writes Benchmarks/results/soak.md and fails on a 5xx outside the injected faults, a
## lost acknowledged upload, or RSS that is not flat.
soak: deps video-deps py-deps
	@tarball=$$(SWIFT=$(SWIFT) packaging/make-dist.sh) && rm -rf .build/soak && mkdir -p .build/soak \
		&& tar -xzf "$$tarball" -C .build/soak --strip-components=1
	python3 Benchmarks/soak.py --binary $(CURDIR)/.build/soak/bin/mockcdn

## fuzz: the longer hostile runs: 60 s of the load test (10 s in make test), schemathesis, and 60 s of each
## libFuzzer target.
fuzz: deps py-deps
	SWIFT=$(SWIFT) scripts/build-server.sh
	MOCKCDN_BINARY=$(CURDIR)/.build/debug/mockcdn MOCKCDN_LOAD_SECONDS=60 python3 -m pytest -q -s Tests/compat/test_load.py
	Tests/schemathesis.sh
	Fuzz/run.sh

## test-stress: the whole suite (make test) while stress-ng keeps 4 CPU workers and an I/O worker busy on the
## same cores, as a busy CI runner would; stress-ng stops with the suite.
test-stress:
	@command -v stress-ng >/dev/null || { echo "installing stress-ng"; $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends stress-ng; }
	@stress-ng --cpu 4 --io 1 --timeout 2h --quiet & load=$$!; trap 'kill $$load 2>/dev/null' EXIT; \
		start=$$(date +%s); $(MAKE) --no-print-directory test; code=$$?; \
		echo "test-stress: make test under stress-ng exited $$code after $$(( $$(date +%s) - start )) s"; exit $$code

## bench: every benchmark against its reference in one run; writes Benchmarks/results/latest.md.
## make bench SECTIONS=s3-upload runs only the sections named and prints them (Benchmarks/bench.sh --help lists
## them); BINARY=.build/release/mockcdn measures that build instead of the release tarball's; BEFORE=BINARY (or a
## commit) times an earlier build in the same rounds (Benchmarks/bench.sh --before).
bench: deps venv
	Benchmarks/bench.sh $(SECTIONS)

## bench-resize: per-request resize over HTTP against the same libvips operation in process (needs deps).
bench-resize: deps release
	Benchmarks/resize.sh

clean:
	rm -rf .build
