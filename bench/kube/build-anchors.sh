#!/usr/bin/env bash
# Builds the `kube` benchmark's reference binaries from the Go module proxy, into a cache reused across runs:
#   $ATRIUM_ANCHORS (default ~/.cache/atrium/anchors)/bin/kube-apiserver   k8s.io/kubernetes v1.32.4
#   $ATRIUM_ANCHORS/bin/etcd                                               go.etcd.io/etcd/server/v3 v3.5.16
#   $ATRIUM_ANCHORS/bin/e2e.test                                           k8s.io/kubernetes/test/e2e v1.32.4
#     (upstream's own e2e suite; test/conformance/upstream-e2e.test.ts runs its API-machinery conformance specs)
# The recipe is the anchors tools' (shared/tools/anchors/build-*.sh): a throw-away module requires
# k8s.io/kubernetes@VERSION and replaces every staging module (which kubernetes' own go.mod maps to ./staging/src/...)
# with the published v0.<minor>.<patch>. A binary already present at its version is not rebuilt.
# Builds run `nice -n 19` with `go build -p 2` (shared machine).
set -euo pipefail
KVER=${KUBE_VERSION:-v1.32.4}
EVER=${ETCD_VERSION:-v3.5.16}
ROOT=${ATRIUM_ANCHORS:-$HOME/.cache/atrium/anchors}
OUT=$ROOT/bin
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
mkdir -p "$OUT"

# module_kas: (re)creates the throw-away module that both kube-apiserver and e2e.test are built in. One module, one
# set of versions, so e2e.test compiles only what kube-apiserver's build did not already put in the build cache.
module_kas() {
  local WORK=$ROOT/kas STAGING_VER="v0.${KVER#v1.}"
  [ -f "$WORK/.ready-$KVER" ] && { cd "$WORK"; return 0; }
  rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK"
  local MODFILE
  MODFILE=$(nice -n 19 "$GO" mod download -json "k8s.io/kubernetes@$KVER" | sed -n 's/^\s*"GoMod": "\(.*\)",\?$/\1/p')
  [ -f "$MODFILE" ] || { echo "cannot find go.mod of k8s.io/kubernetes@$KVER" >&2; exit 1; }
  {
    echo "module anchors/kas"; echo
    grep -m1 '^go ' "$MODFILE"; echo
    grep '^godebug ' "$MODFILE" || true; echo
    echo "require k8s.io/kubernetes $KVER"; echo
    echo "replace ("
    grep -E '^\s*k8s\.io/[A-Za-z0-9._-]+ => \./staging/src/' "$MODFILE" | awk -v v="$STAGING_VER" '{print "\t" $1 " => " $1 " " v}'
    echo ")"
  } > go.mod
  # `go mod tidy` keeps only what the main module's packages import (not the tests of its dependencies), so the
  # imports of e2e's test main (e2e_test.go) are listed here as well: they are what `go test -c` links.
  printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver"\n\t_ "k8s.io/kubernetes/test/e2e"\n)\n' > tools.go
  echo ">> go mod tidy (kube-apiserver and e2e $KVER)"
  nice -n 19 "$GO" mod tidy
  local IMPORTS
  IMPORTS=$(nice -n 19 "$GO" list -f '{{join .TestImports "\n"}}' k8s.io/kubernetes/test/e2e | grep '\.' | sort -u)
  {
    printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver"\n\t_ "k8s.io/kubernetes/test/e2e"\n'
    for i in $IMPORTS; do printf '\t_ "%s"\n' "$i"; done
    printf ')\n'
  } > tools.go
  nice -n 19 "$GO" mod tidy
  touch ".ready-$KVER"
}

# The version stamps kube-apiserver's own build sets (both binaries report them: `--version`, the e2e framework's log).
kas_ldflags() {
  local MINOR COMMIT X="-X k8s.io/component-base/version" C="-X k8s.io/client-go/pkg/version"
  MINOR=$(echo "${KVER#v1.}" | cut -d. -f1)
  COMMIT=$(nice -n 19 "$GO" mod download -json "k8s.io/kubernetes@$KVER" | sed -n 's/^\s*"Hash": "\(.*\)",\?$/\1/p' | head -1)
  echo "-s -w $X.gitVersion=$KVER $X.gitMajor=1 $X.gitMinor=$MINOR $X.gitCommit=$COMMIT $X.gitTreeState=clean $X.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ) $C.gitVersion=$KVER $C.gitMajor=1 $C.gitMinor=$MINOR $C.gitCommit=$COMMIT $C.gitTreeState=clean"
}

build_kas() {
  if [ -x "$OUT/kube-apiserver" ] && "$OUT/kube-apiserver" --version 2>/dev/null | grep -q "$KVER\$"; then
    echo "kube-apiserver $KVER: cached at $OUT/kube-apiserver"; return 0
  fi
  module_kas
  echo ">> go build kube-apiserver $KVER"
  CGO_ENABLED=0 nice -n 19 "$GO" build -p 2 -trimpath -ldflags "$(kas_ldflags)" -o "$OUT/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  mv "$OUT/kube-apiserver.tmp" "$OUT/kube-apiserver"
  "$OUT/kube-apiserver" --version
}

# e2e.test after kube-apiserver, with the same flags: most of its packages (client-go, apimachinery, the API types)
# are then already compiled.
build_e2e() {
  if [ -x "$OUT/e2e.test" ] && "$OUT/e2e.test" --version 2>/dev/null | grep -q "$KVER\$"; then
    echo "e2e.test $KVER: cached at $OUT/e2e.test"; return 0
  fi
  module_kas
  echo ">> go test -c k8s.io/kubernetes/test/e2e $KVER (upstream's e2e suite; a few minutes on top of kube-apiserver)"
  CGO_ENABLED=0 nice -n 19 "$GO" test -c -p 2 -trimpath -ldflags "$(kas_ldflags)" -o "$OUT/e2e.test.tmp" k8s.io/kubernetes/test/e2e
  mv "$OUT/e2e.test.tmp" "$OUT/e2e.test"
  "$OUT/e2e.test" --version
}

build_etcd() {
  if [ -x "$OUT/etcd" ] && "$OUT/etcd" --version 2>/dev/null | grep -q "etcd Version: ${EVER#v}\$"; then
    echo "etcd $EVER: cached at $OUT/etcd"; return 0
  fi
  local WORK=$ROOT/etcd-mod COMMIT
  rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK"
  COMMIT=$(nice -n 19 "$GO" mod download -json "go.etcd.io/etcd/server/v3@$EVER" | sed -n 's/^\s*"Hash": "\(.*\)",\?$/\1/p' | head -1)
  printf 'module anchors/etcd\n\ngo 1.22\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$EVER" > go.mod
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > tools.go
  echo ">> go mod tidy (etcd $EVER)"
  nice -n 19 "$GO" mod tidy
  echo ">> go build etcd $EVER"
  CGO_ENABLED=0 nice -n 19 "$GO" build -p 2 -trimpath -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=${COMMIT:0:9}" -o "$OUT/etcd.tmp" go.etcd.io/etcd/server/v3
  mv "$OUT/etcd.tmp" "$OUT/etcd"
  "$OUT/etcd" --version
}

# `build-anchors.sh etcd` builds only etcd (a bench run without kube-apiserver), `kas` etcd and kube-apiserver
# (the benchmark), `all` (the default, .ci/run) e2e.test as well.
build_etcd
case "${1:-all}" in
  etcd) ;;
  kas) build_kas ;;
  *) build_kas; build_e2e ;;
esac
