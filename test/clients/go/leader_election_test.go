package clients

import (
	"context"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/ptr"
)

const leaseDuration = 4 * time.Second

// candidate is one leader-election participant and what its callbacks reported.
type candidate struct {
	id      string
	mu      sync.Mutex
	leading bool
	stopped bool
	cancel  context.CancelFunc
	done    chan struct{}
}

func (c *candidate) state() (leading, stopped bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leading, c.stopped
}

// runCandidate starts leader election for id on the Lease ns/name; it gives the lease up when cancelled.
func runCandidate(t *testing.T, cs kubernetes.Interface, ns, name, id string) *candidate {
	c := &candidate{id: id, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: ns, Name: name},
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock,
		// Short enough for a quick test, with margin for a loaded CI machine: a renewal has 3 s to get through.
		LeaseDuration:   leaseDuration,
		RenewDeadline:   3 * time.Second,
		RetryPeriod:     250 * time.Millisecond,
		ReleaseOnCancel: true,
		Name:            id,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) {
				c.mu.Lock()
				c.leading = true
				c.mu.Unlock()
			},
			OnStoppedLeading: func() {
				c.mu.Lock()
				c.leading = false
				c.stopped = true
				c.mu.Unlock()
			},
		},
	})
	if err != nil {
		t.Fatalf("NewLeaderElector: %v", err)
	}
	go func() {
		defer close(c.done)
		elector.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-c.done
	})
	return c
}

func TestLeaderElectionWithLeaseLock(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 60*time.Second)
	const leaseName = "compat-leader"

	first := runCandidate(t, cs, ns, leaseName, "candidate-a")
	eventually(t, 10*time.Second, "candidate-a to lead", func() (bool, error) {
		leading, _ := first.state()
		return leading, nil
	})
	second := runCandidate(t, cs, ns, leaseName, "candidate-b")

	// While a renews, b must stay a follower: watch it for more than one lease duration.
	deadline := time.Now().Add(leaseDuration + time.Second)
	for time.Now().Before(deadline) {
		if leading, _ := second.state(); leading {
			t.Fatalf("candidate-b leads while candidate-a still renews")
		}
		time.Sleep(100 * time.Millisecond)
	}
	lease, err := cs.CoordinationV1().Leases(ns).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get lease: %v", err)
	}
	if ptr.Deref(lease.Spec.HolderIdentity, "") != "candidate-a" || lease.Spec.RenewTime == nil || lease.Spec.AcquireTime == nil {
		t.Fatalf("lease while a leads: %+v", lease.Spec)
	}
	transitions := ptr.Deref(lease.Spec.LeaseTransitions, 0)

	// a steps down and releases the lease; b takes over.
	first.cancel()
	<-first.done
	if _, stopped := first.state(); !stopped {
		t.Fatalf("candidate-a did not report OnStoppedLeading")
	}
	eventually(t, 10*time.Second, "candidate-b to take over", func() (bool, error) {
		leading, _ := second.state()
		return leading, nil
	})
	lease, err = cs.CoordinationV1().Leases(ns).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get lease: %v", err)
	}
	if ptr.Deref(lease.Spec.HolderIdentity, "") != "candidate-b" {
		t.Fatalf("lease holder after handover %q, want candidate-b", ptr.Deref(lease.Spec.HolderIdentity, ""))
	}
	if got := ptr.Deref(lease.Spec.LeaseTransitions, 0); got <= transitions {
		t.Fatalf("leaseTransitions %d after handover, want more than %d", got, transitions)
	}
}
