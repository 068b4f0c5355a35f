package clients

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Dependents named by ownerReferences go away with their owner under background propagation (the default), and stay,
// with the reference removed, under Orphan.
func TestGarbageCollectorFollowsOwnerReferences(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 60*time.Second)
	cms := cs.CoreV1().ConfigMaps(ns)

	ownedBy := func(owner *corev1.ConfigMap, name string) {
		t.Helper()
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: name,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID,
			}},
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating %s: %v", name, err)
		}
	}

	background, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner-background"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ownedBy(background, "dependent-background")
	if err := cms.Delete(ctx, background.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the dependent to be collected", func() (bool, error) {
		_, err := cms.Get(ctx, "dependent-background", metav1.GetOptions{})
		return apierrors.IsNotFound(err), err
	})

	orphaning, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner-orphan"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ownedBy(orphaning, "dependent-orphan")
	if err := cms.Delete(ctx, orphaning.Name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationOrphan)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the owner to be gone and the dependent orphaned", func() (bool, error) {
		if _, err := cms.Get(ctx, orphaning.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, err
		}
		dep, err := cms.Get(ctx, "dependent-orphan", metav1.GetOptions{})
		return err == nil && len(dep.OwnerReferences) == 0, err
	})
}
