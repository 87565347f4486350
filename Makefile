# The two commands a fresh machine needs: `make run` and `make test`.
PORT ?= 8080
HOST ?= 127.0.0.1

.PHONY: run test build release bench

run:
	scripts/install-deps.sh run
	swift build -c release --product depthbook
	.build/release/depthbook serve --host $(HOST) --port $(PORT)

test:
	scripts/test.sh

release:
	swift build -c release --product depthbook

bench: release
	scripts/bench.sh
