package clients

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// nextEvent reads one event from w or fails after timeout.
func nextEvent(t *testing.T, w watch.Interface, timeout time.Duration) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("watch closed early")
		}
		return ev
	case <-time.After(timeout):
		t.Fatalf("no watch event within %s", timeout)
	}
	return watch.Event{}
}

func TestListThenWatch(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 30*time.Second)
	cms := cs.CoreV1().ConfigMaps(ns)

	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()

	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}, Data: map[string]string{"x": "1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["x"] = "2"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "after", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	want := []struct {
		typ  watch.EventType
		data string
	}{{watch.Added, "1"}, {watch.Modified, "2"}, {watch.Deleted, "2"}}
	for i := 0; i < len(want); {
		ev := nextEvent(t, w, 10*time.Second)
		if ev.Type == watch.Bookmark {
			continue
		}
		got, ok := ev.Object.(*corev1.ConfigMap)
		if !ok {
			t.Fatalf("event %d: object is %T (%v)", i, ev.Object, ev.Object)
		}
		if got.Name == rootCAConfigMap {
			continue
		}
		if ev.Type != want[i].typ || got.Name != "after" || got.Data["x"] != want[i].data {
			t.Fatalf("event %d: %s %s x=%q, want %s after x=%q", i, ev.Type, got.Name, got.Data["x"], want[i].typ, want[i].data)
		}
		i++
	}
}

func TestWatchFromEmptyResourceVersionSendsCurrentState(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 30*time.Second)
	cms := cs.CoreV1().ConfigMaps(ns)
	for _, name := range []string{"a", "b"} {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	seen := map[string]bool{}
	for !seen["a"] || !seen["b"] {
		ev := nextEvent(t, w, 10*time.Second)
		if ev.Type != watch.Added {
			t.Fatalf("got %s, want ADDED for the existing objects", ev.Type)
		}
		seen[ev.Object.(*corev1.ConfigMap).Name] = true
	}
	if !seen["a"] || !seen["b"] {
		t.Fatalf("initial events for %v, want a and b", seen)
	}
}

func TestWatchWithTimeoutSecondsEnds(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 30*time.Second)
	timeout := int64(1)
	start := time.Now()
	w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{TimeoutSeconds: &timeout})
	if err != nil {
		t.Fatal(err)
	}
	for range w.ResultChan() {
	}
	if elapsed := time.Since(start); elapsed < 900*time.Millisecond || elapsed > 10*time.Second {
		t.Fatalf("watch with timeoutSeconds=1 ended after %s", elapsed)
	}
}

func TestWatchSendInitialEventsEndsWithBookmark(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 30*time.Second)
	cms := cs.CoreV1().ConfigMaps(ns)
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "existing"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	send := true
	w, err := cms.Watch(ctx, metav1.ListOptions{SendInitialEvents: &send, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// ADDED for every object in the namespace (ours and kube-root-ca.crt), then the bookmark that ends them.
	initial := map[string]bool{}
	ev := nextEvent(t, w, 10*time.Second)
	for ev.Type == watch.Added {
		initial[ev.Object.(*corev1.ConfigMap).Name] = true
		ev = nextEvent(t, w, 10*time.Second)
	}
	if !initial["existing"] {
		t.Fatalf("initial events %v lack existing", initial)
	}
	if ev.Type != watch.Bookmark {
		t.Fatalf("after the initial ADDED events got %s, want BOOKMARK", ev.Type)
	}
	bm := ev.Object.(*corev1.ConfigMap)
	if bm.Annotations[metav1.InitialEventsAnnotationKey] != "true" || bm.ResourceVersion == "" {
		t.Fatalf("bookmark metadata %+v, want the %s annotation and a resourceVersion", bm.ObjectMeta, metav1.InitialEventsAnnotationKey)
	}
}
