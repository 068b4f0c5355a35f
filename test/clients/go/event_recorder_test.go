package clients

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"
)

// The classic recorder (tools/record) writes core/v1 Events and aggregates repeats by patching the count.
func TestCoreEventRecorder(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 30*time.Second)
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "subject"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	broadcaster := record.NewBroadcaster()
	t.Cleanup(broadcaster.Shutdown)
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "compat-test"})
	recorder.Event(cm, corev1.EventTypeNormal, "Synced", "configmap synced")

	eventually(t, 15*time.Second, "the Synced event", func() (bool, error) {
		list, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=subject,reason=Synced"})
		if err != nil || len(list.Items) != 1 {
			return false, err
		}
		ev := list.Items[0]
		if ev.InvolvedObject.Kind != "ConfigMap" || ev.InvolvedObject.UID != cm.UID || ev.Type != corev1.EventTypeNormal || ev.Message != "configmap synced" || ev.Source.Component != "compat-test" || ev.Count != 1 {
			t.Fatalf("event %+v", ev)
		}
		return true, nil
	})

	// The same event again is folded into the existing one (count 2) by a strategic merge patch.
	recorder.Event(cm, corev1.EventTypeNormal, "Synced", "configmap synced")
	eventually(t, 15*time.Second, "the Synced event to count 2", func() (bool, error) {
		list, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=subject,reason=Synced"})
		return err == nil && len(list.Items) == 1 && list.Items[0].Count == 2, err
	})
}

// The new recorder (tools/events) writes events.k8s.io/v1 Events.
func TestEventsV1Recorder(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 30*time.Second)
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "subject"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()})
	stop := make(chan struct{})
	broadcaster.StartRecordingToSink(stop)
	t.Cleanup(func() {
		close(stop)
		broadcaster.Shutdown()
	})
	recorder := broadcaster.NewRecorder(scheme.Scheme, "compat-controller")
	recorder.Eventf(cm, nil, corev1.EventTypeWarning, "Failed", "Reconcile", "could not reconcile %s", cm.Name)

	eventually(t, 15*time.Second, "the events.k8s.io Failed event", func() (bool, error) {
		list, err := cs.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, ev := range list.Items {
			if ev.Reason == "Failed" {
				if ev.Regarding.UID != cm.UID || ev.Type != corev1.EventTypeWarning || ev.Action != "Reconcile" || ev.Note != "could not reconcile subject" || ev.ReportingController != "compat-controller" {
					t.Fatalf("event %+v", ev)
				}
				return true, nil
			}
		}
		return false, nil
	})
}
