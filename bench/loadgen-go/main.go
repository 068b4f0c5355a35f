// Command loadgen is the `kube` benchmark's load generator (bench/kube.ts): one client-go clientset with default
// settings (protobuf for built-in kinds, HTTP/2 when the server offers it) and no client-side rate limit, run against
// a server named by a kubeconfig. It prints one JSON object of figures on stdout.
//
//	creates/s of 1 KB ConfigMaps, GET by name/s and updates/s, each with -c workers for -duration;
//	LIST of -list-size ConfigMaps: p50 over -lists sequential lists;
//	watch delivery: for each count in -watchers (comma-separated), that many watches of one namespace while one writer updates ConfigMaps at -rate writes/s for
//	-watch-duration; the latency of an event is its arrival minus the write's send time stamped into the object.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

var (
	kubeconfig    = flag.String("kubeconfig", "", "admin kubeconfig of the server under test")
	concurrency   = flag.Int("c", 64, "workers for creates, GETs and updates")
	duration      = flag.Duration("duration", 5*time.Second, "length of each throughput phase")
	listSize      = flag.Int("list-size", 5000, "ConfigMaps in the listed namespace")
	lists         = flag.Int("lists", 15, "sequential LISTs measured")
	watchers      = flag.String("watchers", "500", "concurrent watches: a comma-separated list of counts, one watch phase each")
	rate          = flag.Int("rate", 100, "writes per second while watched")
	watchDuration = flag.Duration("watch-duration", 10*time.Second, "length of the watched writes")
	prefix        = flag.String("prefix", "bench", "namespace prefix")
)

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func kb() string { return strings.Repeat("x", 1024) }

// phase runs fn on -c workers until -duration has passed and returns the completed operations per second.
func phase(fn func(worker, i int) error) float64 {
	var done atomic.Int64
	var failed atomic.Int64
	var firstErr atomic.Value
	deadline := time.Now().Add(*duration)
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < *concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				if err := fn(w, i); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				done.Add(1)
			}
		}(w)
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		fmt.Fprintf(os.Stderr, "loadgen: %d failed operations, first: %v\n", n, firstErr.Load())
	}
	return float64(done.Load()) / time.Since(start).Seconds()
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p / 100 * float64(len(sorted)-1))
	return sorted[i]
}

func namespace(ctx context.Context, cs *kubernetes.Clientset, name string) {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	must(err)
}

func main() {
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	must(err)
	cfg.QPS = -1 // no client-side rate limit; everything else as client-go's defaults
	cfg.UserAgent = "atrium-bench-loadgen"
	cs, err := kubernetes.NewForConfig(cfg)
	must(err)
	ctx := context.Background()
	run := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	out := map[string]float64{}

	// creates
	ns := *prefix + "-" + run
	namespace(ctx, cs, ns)
	created := make([][]string, *concurrency)
	data := kb()
	out["createsPerSec"] = phase(func(w, i int) error {
		name := fmt.Sprintf("cm-%d-%d", w, i)
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": data}}, metav1.CreateOptions{})
		if err == nil {
			created[w] = append(created[w], name)
		}
		return err
	})
	// GET by name: each worker reads back what it created, round robin.
	out["getsPerSec"] = phase(func(w, i int) error {
		names := created[w]
		_, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, names[i%len(names)], metav1.GetOptions{})
		return err
	})
	// updates: each worker rewrites its own objects (an unconditional update, as `kubectl replace` without a
	// resourceVersion), so no two workers conflict.
	out["updatesPerSec"] = phase(func(w, i int) error {
		names := created[w]
		_, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: names[i%len(names)]}, Data: map[string]string{"v": data, "i": strconv.Itoa(i)}}, metav1.UpdateOptions{})
		return err
	})

	// LIST of list-size objects in a namespace of their own.
	lns := ns + "-list"
	namespace(ctx, cs, lns)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < *concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(*listSize) {
					return
				}
				_, err := cs.CoreV1().ConfigMaps(lns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("l-%d", i)}, Data: map[string]string{"v": data}}, metav1.CreateOptions{})
				must(err)
			}
		}()
	}
	wg.Wait()
	var listMs []float64
	for i := 0; i < *lists+2; i++ {
		t0 := time.Now()
		l, err := cs.CoreV1().ConfigMaps(lns).List(ctx, metav1.ListOptions{})
		must(err)
		// (plus the namespace's kube-root-ca.crt where a controller publishes it)
		if len(l.Items) < *listSize || len(l.Items) > *listSize+1 {
			must(fmt.Errorf("listed %d ConfigMaps, want %d", len(l.Items), *listSize))
		}
		if i >= 2 { // two warm-up lists
			listMs = append(listMs, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	sort.Float64s(listMs)
	out["listP50Ms"] = percentile(listMs, 50)

	// watch delivery, once per watcher count, each in a namespace of its own
	namespaces := []string{ns, lns}
	for _, field := range strings.Split(*watchers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		must(err)
		wns := fmt.Sprintf("%s-watch-%d", ns, n)
		watchPhase(ctx, cs, wns, n, out)
		namespaces = append(namespaces, wns)
	}

	for _, n := range namespaces {
		_ = cs.CoreV1().Namespaces().Delete(ctx, n, metav1.DeleteOptions{})
	}
	enc := json.NewEncoder(os.Stdout)
	must(enc.Encode(out))
}

// watchPhase measures delivery to `watchers` watches of namespace wns while ConfigMaps there are updated at -rate
// writes/s; it records watch<N>Events, watch<N>Expected, watch<N>P50Ms and watch<N>P99Ms in out.
func watchPhase(ctx context.Context, cs *kubernetes.Clientset, wns string, watchers int, out map[string]float64) {
	namespace(ctx, cs, wns)
	const objects = 50
	for i := 0; i < objects; i++ {
		_, err := cs.CoreV1().ConfigMaps(wns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w-%d", i)}, Data: map[string]string{"t": "0"}}, metav1.CreateOptions{})
		must(err)
	}
	start, err := cs.CoreV1().ConfigMaps(wns).List(ctx, metav1.ListOptions{Limit: 1})
	must(err)
	var mu sync.Mutex
	var lat []float64
	var ready sync.WaitGroup
	var ws []watch.Interface
	for i := 0; i < watchers; i++ {
		w, err := cs.CoreV1().ConfigMaps(wns).Watch(ctx, metav1.ListOptions{ResourceVersion: start.ResourceVersion})
		must(err)
		ws = append(ws, w)
	}
	for _, w := range ws {
		ready.Add(1)
		go func(w watch.Interface) {
			defer ready.Done()
			local := make([]float64, 0, 1024)
			for ev := range w.ResultChan() {
				cm, ok := ev.Object.(*corev1.ConfigMap)
				if !ok || ev.Type != watch.Modified {
					continue
				}
				sent, err := strconv.ParseInt(cm.Data["t"], 10, 64)
				if err != nil || sent == 0 {
					continue
				}
				local = append(local, float64(time.Now().UnixNano()-sent)/1e6)
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}(w)
	}
	time.Sleep(time.Second) // every watch established
	interval := time.Second / time.Duration(*rate)
	writes := int(watchDuration.Seconds() * float64(*rate))
	tick := time.NewTicker(interval)
	var wwg sync.WaitGroup
	for i := 0; i < writes; i++ {
		<-tick.C
		wwg.Add(1)
		go func(i int) {
			defer wwg.Done()
			_, err := cs.CoreV1().ConfigMaps(wns).Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w-%d", i%objects)}, Data: map[string]string{"t": strconv.FormatInt(time.Now().UnixNano(), 10)}}, metav1.UpdateOptions{})
			must(err)
		}(i)
	}
	tick.Stop()
	wwg.Wait()
	time.Sleep(2 * time.Second) // let the last events arrive
	for _, w := range ws {
		w.Stop()
	}
	ready.Wait()
	sort.Float64s(lat)
	key := func(name string) string { return fmt.Sprintf("watch%d%s", watchers, name) }
	out[key("Events")] = float64(len(lat))
	out[key("Expected")] = float64(writes * watchers)
	out[key("P50Ms")] = percentile(lat, 50)
	out[key("P99Ms")] = percentile(lat, 99)

}
