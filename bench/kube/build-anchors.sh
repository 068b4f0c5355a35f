#!/usr/bin/env bash
# Builds the `kube` benchmark's reference binaries from the Go module proxy, into a cache reused across runs:
#   $ATRIUM_ANCHORS (default ~/.cache/atrium/anchors)/bin/kube-apiserver   k8s.io/kubernetes v1.32.4
#   $ATRIUM_ANCHORS/bin/etcd                                               go.etcd.io/etcd/server/v3 v3.5.16
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

build_kas() {
  if [ -x "$OUT/kube-apiserver" ] && "$OUT/kube-apiserver" --version 2>/dev/null | grep -q "$KVER\$"; then
    echo "kube-apiserver $KVER: cached at $OUT/kube-apiserver"; return 0
  fi
  local WORK=$ROOT/kas STAGING_VER="v0.${KVER#v1.}" MINOR
  MINOR=$(echo "${KVER#v1.}" | cut -d. -f1)
  rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK"
  local MODFILE COMMIT
  MODFILE=$(nice -n 19 "$GO" mod download -json "k8s.io/kubernetes@$KVER" | sed -n 's/^\s*"GoMod": "\(.*\)",\?$/\1/p')
  [ -f "$MODFILE" ] || { echo "cannot find go.mod of k8s.io/kubernetes@$KVER" >&2; exit 1; }
  COMMIT=$(nice -n 19 "$GO" mod download -json "k8s.io/kubernetes@$KVER" | sed -n 's/^\s*"Hash": "\(.*\)",\?$/\1/p' | head -1)
  {
    echo "module anchors/kas"; echo
    grep -m1 '^go ' "$MODFILE"; echo
    grep '^godebug ' "$MODFILE" || true; echo
    echo "require k8s.io/kubernetes $KVER"; echo
    echo "replace ("
    grep -E '^\s*k8s\.io/[A-Za-z0-9._-]+ => \./staging/src/' "$MODFILE" | awk -v v="$STAGING_VER" '{print "\t" $1 " => " $1 " " v}'
    echo ")"
  } > go.mod
  printf '//go:build tools\n\npackage tools\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver"\n' > tools.go
  echo ">> go mod tidy (kube-apiserver $KVER)"
  nice -n 19 "$GO" mod tidy
  local X="-X k8s.io/component-base/version" C="-X k8s.io/client-go/pkg/version"
  local LDFLAGS="-s -w $X.gitVersion=$KVER $X.gitMajor=1 $X.gitMinor=$MINOR $X.gitCommit=$COMMIT $X.gitTreeState=clean $X.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ) $C.gitVersion=$KVER $C.gitMajor=1 $C.gitMinor=$MINOR $C.gitCommit=$COMMIT $C.gitTreeState=clean"
  echo ">> go build kube-apiserver $KVER"
  CGO_ENABLED=0 nice -n 19 "$GO" build -p 2 -trimpath -ldflags "$LDFLAGS" -o "$OUT/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  mv "$OUT/kube-apiserver.tmp" "$OUT/kube-apiserver"
  "$OUT/kube-apiserver" --version
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

# `build-anchors.sh etcd` builds only etcd (a bench run without kube-apiserver).
build_etcd
[ "${1:-all}" = etcd ] || build_kas
