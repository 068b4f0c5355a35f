#!/usr/bin/env bash
# Copied from the anchors tools (shared/tools/anchors) for the `kube` benchmark (bench/kube.ts); defaults to the
# binaries build-anchors.sh caches under ~/.cache/atrium/anchors/bin.
# Start a single-node "real" control plane: etcd + kube-apiserver, TLS everywhere
# except etcd (plain http on 127.0.0.1).
#
# usage: start-kube-apiserver.sh DIR
# env:   KUBE_APISERVER  (default /tmp/anchors/bin/kube-apiserver)
#        ETCD            (default /usr/bin/etcd; 3.4.23 here -- see README for the
#                         consistent-list-from-cache caveat)
#        KAS_PORT / ETCD_PORT / ETCD_PEER_PORT   fix ports instead of picking free ones
#        ADVERTISE_ADDRESS  IP for the "kubernetes" Service endpoints (default: first
#                        `hostname -I` address; set it empty -> --endpoint-reconciler-type=none)
#        KAS_EXTRA_ARGS  extra kube-apiserver flags (word-split), e.g.
#                        "--enable-priority-and-fairness=false --v=2"
#        READY_TIMEOUT   seconds to wait for /readyz (default 180)
#
# Produces in DIR: pki/ (ca, serving, admin client, front-proxy, SA keys),
# etcd/ (data), admin.kubeconfig, pids ("PID NAME" lines), env (ports),
# etcd.log, kube-apiserver.log.  Stop with stop-kube-apiserver.sh DIR.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"

DIR=${1:?usage: start-kube-apiserver.sh DIR}
mkdir -p "$DIR"; DIR=$(cd "$DIR" && pwd)
KAS=${KUBE_APISERVER:-$HOME/.cache/atrium/anchors/bin/kube-apiserver}
ETCD=${ETCD:-$HOME/.cache/atrium/anchors/bin/etcd}
[ -x "$KAS" ] || { echo "kube-apiserver binary not found: $KAS" >&2; exit 1; }
[ -x "$ETCD" ] || { echo "etcd binary not found: $ETCD" >&2; exit 1; }
if [ -f "$DIR/pids" ]; then
  echo "$DIR/pids exists -- already running? run stop-kube-apiserver.sh $DIR first" >&2; exit 1
fi

# ---------------------------------------------------------------- certificates
PKI=$DIR/pki; mkdir -p "$PKI"
ADV=${ADVERTISE_ADDRESS-$(hostname -I 2>/dev/null | awk '{print $1}')}
if [ ! -f "$PKI/ca.crt" ]; then
  (
  cd "$PKI"
  q() { "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }; }
  ca() { # name cn
    q openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -keyout "$1.key" -out "$1.crt" -subj "/CN=$2" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature"
  }
  leaf() { # name subj ca ext
    q openssl req -new -newkey rsa:2048 -nodes -sha256 -keyout "$1.key" -out "$1.csr" -subj "$2"
    printf '%b' "$4" > "$1.ext"
    q openssl x509 -req -sha256 -days 3650 -in "$1.csr" -CA "$3.crt" -CAkey "$3.key" -CAcreateserial -out "$1.crt" -extfile "$1.ext"
    rm -f "$1.csr" "$1.ext"
  }
  ca ca anchors-kubernetes-ca
  SANS="IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  [ -n "$ADV" ] && SANS="$SANS,IP:$ADV"
  leaf apiserver "/CN=kube-apiserver" ca \
    "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=$SANS\n"
  leaf admin "/O=system:masters/CN=admin" ca \
    "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n"
  ca front-proxy-ca anchors-front-proxy-ca
  leaf front-proxy-client "/CN=front-proxy-client" front-proxy-ca \
    "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n"
  q openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out sa.key
  q openssl pkey -in sa.key -pubout -out sa.pub
  chmod 600 ./*.key
  )
  echo "generated PKI in $PKI"
fi

# ---------------------------------------------------------------- etcd
free_port; ETCD_PORT=${ETCD_PORT:-$FREE_PORT}
free_port; ETCD_PEER_PORT=${ETCD_PEER_PORT:-$FREE_PORT}
free_port; KAS_PORT=${KAS_PORT:-$FREE_PORT}
mkdir -p "$DIR/etcd"
ETCD_PID=$(launch etcd "$DIR/etcd.log" "$ETCD" \
  --name anchor --data-dir "$DIR/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "anchor=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new \
  --logger=zap --log-outputs=stderr)
echo "$ETCD_PID $(basename "$(readlink -f "$ETCD")")" > "$DIR/pids"
if ! wait_http "http://127.0.0.1:$ETCD_PORT/health" 60 "$ETCD_PID"; then
  tail -30 "$DIR/etcd.log" >&2; "$HERE/stop-kube-apiserver.sh" "$DIR" >&2 || true; exit 1
fi
ETCD_VERSION=$("$ETCD" --version 2>/dev/null | sed -n 's/^etcd Version: //p')
echo "etcd $ETCD_VERSION ready: pid $ETCD_PID, http://127.0.0.1:$ETCD_PORT"

# ---------------------------------------------------------------- kube-apiserver
ADV_ARGS=()
if [ -n "$ADV" ]; then ADV_ARGS=(--advertise-address "$ADV"); else ADV_ARGS=(--endpoint-reconciler-type=none); fi
# shellcheck disable=SC2206
EXTRA=(${KAS_EXTRA_ARGS:-})
KAS_PID=$(launch kube-apiserver "$DIR/kube-apiserver.log" "$KAS" \
  --bind-address 127.0.0.1 --secure-port "$KAS_PORT" "${ADV_ARGS[@]}" \
  --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
  --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
  --client-ca-file "$PKI/ca.crt" \
  --authorization-mode RBAC \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
  --service-cluster-ip-range 10.0.0.0/24 \
  --requestheader-client-ca-file "$PKI/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
  --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
  --requestheader-extra-headers-prefix X-Remote-Extra- \
  --proxy-client-cert-file "$PKI/front-proxy-client.crt" --proxy-client-key-file "$PKI/front-proxy-client.key" \
  --allow-privileged=true \
  "${EXTRA[@]}")
echo "$KAS_PID $(basename "$(readlink -f "$KAS")")" >> "$DIR/pids"

cat > "$DIR/admin.kubeconfig" <<EOK
apiVersion: v1
kind: Config
clusters:
- name: anchor-kube-apiserver
  cluster:
    server: https://127.0.0.1:$KAS_PORT
    certificate-authority-data: $(base64 -w0 < "$PKI/ca.crt")
users:
- name: admin
  user:
    client-certificate-data: $(base64 -w0 < "$PKI/admin.crt")
    client-key-data: $(base64 -w0 < "$PKI/admin.key")
contexts:
- name: admin
  context: {cluster: anchor-kube-apiserver, user: admin}
current-context: admin
EOK
chmod 600 "$DIR/admin.kubeconfig"
cat > "$DIR/env" <<EOE
KAS_URL=https://127.0.0.1:$KAS_PORT
KAS_PORT=$KAS_PORT
ETCD_URL=http://127.0.0.1:$ETCD_PORT
ETCD_PORT=$ETCD_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
ETCD_PID=$ETCD_PID
ETCD_VERSION=$ETCD_VERSION
KAS_PID=$KAS_PID
KUBECONFIG=$DIR/admin.kubeconfig
EOE

T0=$(date +%s.%N)
if ! wait_http "https://127.0.0.1:$KAS_PORT/readyz" "${READY_TIMEOUT:-180}" "$KAS_PID" \
     --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key"; then
  tail -40 "$DIR/kube-apiserver.log" >&2; "$HERE/stop-kube-apiserver.sh" "$DIR" >&2 || true; exit 1
fi
echo "kube-apiserver ready: pid $KAS_PID, https://127.0.0.1:$KAS_PORT (readyz after $(echo "$(date +%s.%N) - $T0" | bc)s)"
echo "export KUBECONFIG=$DIR/admin.kubeconfig"
