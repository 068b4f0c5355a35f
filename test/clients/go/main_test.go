// Package clients drives a running atrium server with the real Kubernetes Go clients: client-go's typed, dynamic and
// apiextensions clientsets, informers (with and without WatchList), leader election, the event recorder, and a
// controller-runtime manager.
//
// The server is started by the caller (test/clients/clients.test.ts does it with the test harness); its admin
// kubeconfig is passed in ATRIUM_KUBECONFIG. Without it the whole package fails: a compatibility suite that silently
// skips would report green for a server nobody tested.
package clients

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// rootCAConfigMap is the ConfigMap a controller publishes into every namespace, as kube-controller-manager does.
const rootCAConfigMap = "kube-root-ca.crt"

// kubeconfigEnv names the environment variable holding the path of the admin kubeconfig of the server under test.
const kubeconfigEnv = "ATRIUM_KUBECONFIG"

func TestMain(m *testing.M) {
	if os.Getenv(kubeconfigEnv) == "" {
		fmt.Fprintf(os.Stderr, "FAIL: %s is not set; start an atrium server and point %s at its admin.kubeconfig\n", kubeconfigEnv, kubeconfigEnv)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// restConfig loads the admin kubeconfig of the server under test. Client-side rate limiting is lifted so that tests
// wait for the server, not for the token bucket.
func restConfig(t testing.TB) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv(kubeconfigEnv))
	if err != nil {
		t.Fatalf("loading %s: %v", os.Getenv(kubeconfigEnv), err)
	}
	cfg.QPS = 1000
	cfg.Burst = 1000
	cfg.UserAgent = "atrium-client-compat/" + t.Name()
	return cfg
}

// clientset is the typed client-go clientset for the server under test.
func clientset(t testing.TB) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(restConfig(t))
	if err != nil {
		t.Fatalf("building clientset: %v", err)
	}
	return cs
}

var namespaceCounter atomic.Int64

// testNamespace creates a fresh namespace named after the test and deletes it when the test ends.
func testNamespace(t testing.TB, cs kubernetes.Interface) string {
	t.Helper()
	name := fmt.Sprintf("go-%s-%d-%d", dnsLabel(t.Name()), time.Now().UnixNano()%100000, namespaceCounter.Add(1))
	if len(name) > 63 {
		name = name[len(name)-63:]
		name = strings.TrimLeft(name, "-")
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

// dnsLabel lower-cases s and replaces everything that is not [a-z0-9] by '-'.
func dnsLabel(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// testContext is a context that ends with the test or after the given timeout, whichever is first.
func testContext(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}

// eventually polls cond every 50ms until it returns true or the timeout passes, then fails the test with what.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var lastErr error
	for time.Now().Before(deadline) {
		ok, err := cond()
		if ok {
			return
		}
		lastErr = err
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s (last error: %v)", timeout, what, lastErr)
}
