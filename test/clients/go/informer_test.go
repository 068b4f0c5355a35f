package clients

import (
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// informerEvents records what a ConfigMap event handler saw, by event kind.
type informerEvents struct {
	mu      sync.Mutex
	added   map[string]bool
	updated map[string]string
	deleted map[string]bool
}

func newInformerEvents() *informerEvents {
	return &informerEvents{added: map[string]bool{}, updated: map[string]string{}, deleted: map[string]bool{}}
}

func (e *informerEvents) handler() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.added[obj.(*corev1.ConfigMap).Name] = true
		},
		UpdateFunc: func(_, obj any) {
			e.mu.Lock()
			defer e.mu.Unlock()
			cm := obj.(*corev1.ConfigMap)
			e.updated[cm.Name] = cm.Data["v"]
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			e.mu.Lock()
			defer e.mu.Unlock()
			e.deleted[obj.(*corev1.ConfigMap).Name] = true
		},
	}
}

func (e *informerEvents) check(f func(*informerEvents) bool) func() (bool, error) {
	return func() (bool, error) {
		e.mu.Lock()
		defer e.mu.Unlock()
		return f(e), nil
	}
}

// runConfigMapInformer starts a SharedInformerFactory informer for ConfigMaps in a fresh namespace holding one
// pre-existing object, waits for it to sync, then drives add/update/delete through the API and waits for the handler
// to see each of them. It returns the requests the informer's client sent.
func runConfigMapInformer(t *testing.T) *requestLog {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 60*time.Second)
	cms := cs.CoreV1().ConfigMaps(ns)
	// The informer selects by label, which also keeps kube-root-ca.crt (published into every namespace) out of it.
	selected := map[string]string{"informer-test": "yes"}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "pre", Labels: selected}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	cfg, log := recordingConfig(t)
	factory := informers.NewSharedInformerFactoryWithOptions(kubernetes.NewForConfigOrDie(cfg), 0, informers.WithNamespace(ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "informer-test=yes" }))
	informer := factory.Core().V1().ConfigMaps()
	events := newInformerEvents()
	if _, err := informer.Informer().AddEventHandler(events.handler()); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	// Shutdown waits for the informers, which run until stop closes: close it first.
	t.Cleanup(func() {
		close(stop)
		factory.Shutdown()
	})
	syncCtx := testContext(t, 20*time.Second)
	for typ, ok := range factory.WaitForCacheSync(syncCtx.Done()) {
		if !ok {
			t.Fatalf("informer for %v did not sync", typ)
		}
	}
	if _, err := informer.Lister().ConfigMaps(ns).Get("pre"); err != nil {
		t.Fatalf("lister after sync: %v", err)
	}

	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "live", Labels: selected}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "informer ADD of pre and live", events.check(func(e *informerEvents) bool { return e.added["pre"] && e.added["live"] }))
	if _, err := cms.Patch(ctx, "live", "application/merge-patch+json", []byte(`{"data":{"v":"2"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "informer UPDATE of live", events.check(func(e *informerEvents) bool { return e.updated["live"] == "2" }))
	if err := cms.Delete(ctx, "live", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "informer DELETE of live", events.check(func(e *informerEvents) bool { return e.deleted["live"] }))
	eventually(t, 10*time.Second, "lister to forget live", func() (bool, error) {
		items, err := informer.Lister().ConfigMaps(ns).List(labels.Everything())
		return err == nil && len(items) == 1 && items[0].Name == "pre", err
	})
	return log
}

// listAndWatchRequests splits the GETs the informer sent into plain lists and WatchList watches.
func listAndWatchRequests(log *requestLog) (lists, watchLists []string) {
	for _, r := range log.all() {
		if r.Method != "GET" || !strings.Contains(r.URL, "/configmaps") {
			continue
		}
		switch {
		case strings.Contains(r.URL, "sendInitialEvents=true"):
			watchLists = append(watchLists, r.URL)
		case !strings.Contains(r.URL, "watch=true"):
			lists = append(lists, r.URL)
		}
	}
	return lists, watchLists
}

func TestInformerWithListAndWatch(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	log := runConfigMapInformer(t)
	lists, watchLists := listAndWatchRequests(log)
	if len(lists) == 0 || len(watchLists) != 0 {
		t.Fatalf("with WatchListClient off the informer should LIST then WATCH; lists=%v watchLists=%v", lists, watchLists)
	}
}

// With WatchListClient (the default from client-go 0.35) the reflector never lists: it opens a watch with
// sendInitialEvents=true and waits for the bookmark annotated k8s.io/initial-events-end before it reports synced.
func TestInformerWithWatchList(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	log := runConfigMapInformer(t)
	lists, watchLists := listAndWatchRequests(log)
	if len(watchLists) == 0 || len(lists) != 0 {
		t.Fatalf("with WatchListClient on the informer should stream instead of listing; lists=%v watchLists=%v", lists, watchLists)
	}
	if !strings.Contains(watchLists[0], "resourceVersionMatch=NotOlderThan") || !strings.Contains(watchLists[0], "allowWatchBookmarks=true") {
		t.Fatalf("unexpected WatchList request %s", watchLists[0])
	}
}
