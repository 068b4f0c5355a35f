#!/usr/bin/env bash
# Builds OPA Gatekeeper's manager (its validating and mutation webhooks, audit and certificate rotation) from the Go
# module proxy into $HOME/.cache/atrium/bin/gatekeeper, for test/e2e/gatekeeper.test.ts; skipped when that build is
# there. Nothing of Gatekeeper is kept in the project: the module is downloaded into the Go module cache, and its
# main package (the module's root) is built there, as its own Makefile builds it, with its go.mod and go.sum (some of
# its pseudo-versions are missing from the checksum database the proxy mirrors, so `go install module@version`,
# which asks that database, fails; Gatekeeper's go.sum, itself verified with the module, has them). The suite reads
# Gatekeeper's manifests from the same directory.
set -euo pipefail
gatekeeper_version="${GATEKEEPER_VERSION:-v3.20.1}"
module=github.com/open-policy-agent/gatekeeper/v3
bin="$HOME/.cache/atrium/bin/gatekeeper"
start=$SECONDS
# The module (the suite's manifests, the sources built here) in the Go module cache; nothing to do when it is there.
dir="$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "${module}@${gatekeeper_version}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -d "$dir" ] || { echo "error: go mod download ${module}@${gatekeeper_version} gave no directory" >&2; exit 1; }
# Built in the module's directory, the binary's build info names no version (`(devel)`): a stamp file beside it does.
if [ -x "$bin" ] && [ "$(cat "$bin.version" 2>/dev/null)" = "${module}@${gatekeeper_version}" ]; then
  echo "gatekeeper ${gatekeeper_version} already built: ${bin}"
  exit 0
fi
mkdir -p "$(dirname "$bin")"
# -trimpath: the module cache's path stays out of the binary; the version stamp is the one Gatekeeper's Makefile sets.
(cd "$dir" && GOFLAGS=-buildvcs=false go build -trimpath -o "$bin.tmp" \
  -ldflags "-X ${module}/pkg/version.Version=${gatekeeper_version}" .)
mv "$bin.tmp" "$bin"
echo "${module}@${gatekeeper_version}" > "$bin.version"
echo "gatekeeper ${gatekeeper_version} built in $((SECONDS - start))s: ${bin}"
