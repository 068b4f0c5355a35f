package clients

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

const protobufContentType = "application/vnd.kubernetes.protobuf"

// assertProtobufWrites checks that every request with a body that the typed clients sent was protobuf: client-go
// encodes built-in kinds as protobuf since v0.32, so a server that only reads JSON fails all of them.
func assertProtobufWrites(t *testing.T, log *requestLog, minimum int) {
	t.Helper()
	n := 0
	for _, r := range log.all() {
		if r.Method != "POST" && r.Method != "PUT" {
			continue
		}
		n++
		if !strings.HasPrefix(r.ContentType, protobufContentType) {
			t.Errorf("%s %s was sent as %q, want protobuf", r.Method, r.URL, r.ContentType)
		}
	}
	if n < minimum {
		t.Errorf("saw %d POST/PUT requests, want at least %d", n, minimum)
	}
}

func TestTypedConfigMapCRUD(t *testing.T) {
	cfg, log := recordingConfig(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 30*time.Second)
	cms := cs.CoreV1().ConfigMaps(ns)

	created, err := cms.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cm1", Labels: map[string]string{"app": "compat"}, Annotations: map[string]string{"note": "first"}},
		Data:       map[string]string{"a": "1"},
		BinaryData: map[string][]byte{"bin": {0, 1, 2, 255}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if created.UID == "" || created.ResourceVersion == "" || created.CreationTimestamp.IsZero() {
		t.Fatalf("create did not fill uid/resourceVersion/creationTimestamp: %+v", created.ObjectMeta)
	}
	if created.Data["a"] != "1" || string(created.BinaryData["bin"]) != string([]byte{0, 1, 2, 255}) || created.Labels["app"] != "compat" {
		t.Fatalf("create round trip lost data: %+v", created)
	}

	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm1"}}, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("second create: got %v, want AlreadyExists", err)
	}

	got, err := cms.Get(ctx, "cm1", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if got.ResourceVersion != created.ResourceVersion || got.Annotations["note"] != "first" {
		t.Fatalf("get returned %+v, want the created object", got.ObjectMeta)
	}

	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm2", Labels: map[string]string{"app": "other"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create cm2: %v", err)
	}
	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=compat"})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "cm1" || list.ResourceVersion == "" {
		t.Fatalf("list app=compat: got %d items (rv %q), want just cm1", len(list.Items), list.ResourceVersion)
	}
	byField, err := cms.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=cm2"})
	if err != nil || len(byField.Items) != 1 || byField.Items[0].Name != "cm2" {
		t.Fatalf("list metadata.name=cm2: %v, %+v", err, byField)
	}

	got.Data["b"] = "2"
	updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if updated.Data["b"] != "2" || updated.ResourceVersion == got.ResourceVersion {
		t.Fatalf("update: data %v rv %s (was %s)", updated.Data, updated.ResourceVersion, got.ResourceVersion)
	}
	// The object in hand is now stale: updating it again must be a Conflict.
	if _, err := cms.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("stale update: got %v, want Conflict", err)
	}

	patched, err := cms.Patch(ctx, "cm1", types.StrategicMergePatchType, []byte(`{"data":{"a":null,"c":"3"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("strategic merge patch: %v", err)
	}
	if _, ok := patched.Data["a"]; ok || patched.Data["c"] != "3" || patched.Data["b"] != "2" {
		t.Fatalf("strategic merge patch result: %v", patched.Data)
	}
	patched, err = cms.Patch(ctx, "cm1", types.JSONPatchType, []byte(`[{"op":"replace","path":"/data/c","value":"4"}]`), metav1.PatchOptions{})
	if err != nil || patched.Data["c"] != "4" {
		t.Fatalf("json patch: %v, %v", err, patched)
	}

	dry, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dry"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || dry.Name != "dry" {
		t.Fatalf("dry-run create: %v", err)
	}
	if _, err := cms.Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("dry-run create persisted the object: %v", err)
	}

	if err := cms.Delete(ctx, "cm1", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &created.UID}}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := cms.Get(ctx, "cm1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: got %v, want NotFound", err)
	}
	if err := cms.Delete(ctx, "cm1", metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("second delete: got %v, want NotFound", err)
	}
	if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=other"}); err != nil {
		t.Fatalf("deletecollection: %v", err)
	}
	// Every namespace also holds kube-root-ca.crt (published by a controller); count only this test's objects.
	left, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app"})
	if err != nil || len(left.Items) != 0 {
		t.Fatalf("after deletecollection: %v, %d items", err, len(left.Items))
	}

	assertProtobufWrites(t, log, 4)
}

func TestTypedSecretCRUD(t *testing.T) {
	cfg, log := recordingConfig(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 30*time.Second)
	secrets := cs.CoreV1().Secrets(ns)

	created, err := secrets.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s1"},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"password": []byte("hunter2")},
		StringData: map[string]string{"user": "admin"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	// stringData is write-only: the server merges it into data.
	if string(created.Data["password"]) != "hunter2" || string(created.Data["user"]) != "admin" || len(created.StringData) != 0 {
		t.Fatalf("create: data %v stringData %v", created.Data, created.StringData)
	}
	if created.Type != corev1.SecretTypeOpaque {
		t.Fatalf("type %q", created.Type)
	}

	created.Data["password"] = []byte("correct horse")
	updated, err := secrets.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil || string(updated.Data["password"]) != "correct horse" {
		t.Fatalf("update: %v %v", err, updated)
	}

	// The type of a Secret is immutable.
	updated.Type = corev1.SecretTypeDockerConfigJson
	if _, err := secrets.Update(ctx, updated, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("changing type: got %v, want Invalid", err)
	}

	if err := secrets.Delete(ctx, "s1", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := secrets.Get(ctx, "s1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: %v", err)
	}
	assertProtobufWrites(t, log, 2)
}

func TestTypedNamespaceLifecycle(t *testing.T) {
	cfg, log := recordingConfig(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := testContext(t, 30*time.Second)
	name := "go-ns-lifecycle-" + dnsLabel(time.Now().Format("150405.000000"))

	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": "a"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if ns.Status.Phase != corev1.NamespaceActive {
		t.Fatalf("new namespace phase %q, want Active", ns.Status.Phase)
	}
	if ns.Labels[corev1.LabelMetadataName] != name {
		t.Fatalf("namespace lacks the %s label: %v", corev1.LabelMetadataName, ns.Labels)
	}
	list, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: "team=a"})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	found := false
	for _, item := range list.Items {
		found = found || item.Name == name
	}
	if !found {
		t.Fatalf("namespace %s not in list team=a", name)
	}

	if _, err := cs.CoreV1().ConfigMaps(name).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "inside"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create configmap in namespace: %v", err)
	}
	if _, err := cs.CoreV1().ConfigMaps("go-no-such-namespace").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("create in a missing namespace: got %v, want NotFound", err)
	}

	if err := cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	// Deletion is graceful: the namespace is Terminating until its contents are gone, or already gone.
	got, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if err == nil {
		if got.DeletionTimestamp == nil || got.Status.Phase != corev1.NamespaceTerminating {
			t.Fatalf("after delete: deletionTimestamp %v phase %q, want Terminating", got.DeletionTimestamp, got.Status.Phase)
		}
		if _, err := cs.CoreV1().ConfigMaps(name).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
			t.Fatalf("create in a terminating namespace: got %v, want Forbidden", err)
		}
	} else if !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: %v", err)
	}
	assertProtobufWrites(t, log, 2)
}

func TestTypedLeaseCRUD(t *testing.T) {
	cfg, log := recordingConfig(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 30*time.Second)
	leases := cs.CoordinationV1().Leases(ns)

	now := metav1.NewMicroTime(time.Now().Truncate(time.Microsecond))
	created, err := leases.Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "lock"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("a"),
			LeaseDurationSeconds: ptr.To[int32](15),
			AcquireTime:          &now,
			RenewTime:            &now,
			LeaseTransitions:     ptr.To[int32](0),
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if ptr.Deref(created.Spec.HolderIdentity, "") != "a" || ptr.Deref(created.Spec.LeaseDurationSeconds, 0) != 15 {
		t.Fatalf("create round trip: %+v", created.Spec)
	}
	if created.Spec.RenewTime == nil || !created.Spec.RenewTime.Time.Equal(now.Time) {
		t.Fatalf("renewTime %v, want %v (MicroTime must keep microseconds)", created.Spec.RenewTime, now)
	}

	later := metav1.NewMicroTime(now.Add(1500 * time.Microsecond))
	created.Spec.HolderIdentity = ptr.To("b")
	created.Spec.RenewTime = &later
	created.Spec.LeaseTransitions = ptr.To[int32](1)
	updated, err := leases.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if ptr.Deref(updated.Spec.HolderIdentity, "") != "b" || ptr.Deref(updated.Spec.LeaseTransitions, 0) != 1 || !updated.Spec.RenewTime.Time.Equal(later.Time) {
		t.Fatalf("update round trip: %+v", updated.Spec)
	}
	list, err := leases.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %v %v", err, list)
	}
	if err := leases.Delete(ctx, "lock", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := leases.Get(context.Background(), "lock", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: %v", err)
	}
	assertProtobufWrites(t, log, 2)
}
