#!/usr/bin/env bash
# Builds cert-manager's controller and webhook (test/e2e/cert-manager: their cmd/ sources at the version below, on
# github.com/cert-manager/cert-manager from the Go module proxy) into $HOME/.cache/atrium/bin, for
# test/e2e/cert-manager.test.ts. Skipped when binaries of this version are there. Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/../test/e2e/cert-manager"
version=v1.17.4
bin="$HOME/.cache/atrium/bin"
mkdir -p "$bin"
for c in controller webhook; do
  out="$bin/cert-manager-$c"
  if [ -x "$out" ] && go version -m "$out" 2>/dev/null | grep -q "dep[[:space:]]*github.com/cert-manager/cert-manager[[:space:]]*${version}[[:space:]]"; then
    echo "cert-manager $c ${version} already built: $out"
    continue
  fi
  # The version stamp cert-manager's Makefile sets (its user agent and `--version`).
  (cd "$c" && go build -trimpath -buildvcs=false -ldflags "-X github.com/cert-manager/cert-manager/pkg/util.AppVersion=${version}" -o "$out.tmp" . && mv "$out.tmp" "$out")
  echo "built cert-manager $c ${version}: $out"
done
