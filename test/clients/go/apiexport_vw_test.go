package clients

// A kcp-style provider controller, written with stock controller-runtime: its manager is pointed at the APIExport
// virtual workspace's `/clusters/*` URL (from the APIExportEndpointSlice), lists and watches the exported widgets of
// every workspace that bound the export, and writes back through `/clusters/<cluster>` of the same virtual workspace
// (the cluster read from each object's kcp.io/cluster annotation): each widget's status, and a ConfigMap — a claimed
// resource — where the tenant accepted the claim. Three tenants bind the export as `kubectl kcp bind apiexport` does:
// one accepts the ConfigMaps claim, one rejects it, one says nothing.

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var (
	sharedWidgetGVK  = schema.GroupVersionKind{Group: "widgets.kcp-style.test", Version: "v1", Kind: "Widget"}
	workspacesGVR    = schema.GroupVersionResource{Group: "tenancy.kcp.io", Version: "v1alpha1", Resource: "workspaces"}
	schemasGVR       = schema.GroupVersionResource{Group: "apis.kcp.io", Version: "v1alpha1", Resource: "apiresourceschemas"}
	exportsGVR       = schema.GroupVersionResource{Group: "apis.kcp.io", Version: "v1alpha2", Resource: "apiexports"}
	bindingsGVR      = schema.GroupVersionResource{Group: "apis.kcp.io", Version: "v1alpha2", Resource: "apibindings"}
	endpointSliceGVR = schema.GroupVersionResource{Group: "apis.kcp.io", Version: "v1alpha1", Resource: "apiexportendpointslices"}
)

// providerReconciler reconciles widgets of every binding workspace through the virtual workspace.
type providerReconciler struct {
	cache    client.Reader
	vwBase   string
	base     *rest.Config
	mu       sync.Mutex
	clients  map[string]client.Client
	refusals map[string]string
}

func (r *providerReconciler) clientFor(cluster string) (client.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.clients[cluster]; ok {
		return c, nil
	}
	cfg := rest.CopyConfig(r.base)
	cfg.Host = r.vwBase + "/clusters/" + cluster
	c, err := client.New(cfg, client.Options{})
	if err == nil {
		r.clients[cluster] = c
	}
	return c, err
}

func (r *providerReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(sharedWidgetGVK)
	if err := r.cache.Get(ctx, req.NamespacedName, w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	cluster := w.GetAnnotations()["kcp.io/cluster"]
	if cluster == "" {
		return reconcile.Result{}, fmt.Errorf("widget %s has no kcp.io/cluster annotation", req)
	}
	c, err := r.clientFor(cluster)
	if err != nil {
		return reconcile.Result{}, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "widget-" + w.GetName(), Namespace: w.GetNamespace()}, Data: map[string]string{"owner": w.GetName()}}
	if err := c.Create(ctx, cm); err != nil && !apierrors.IsAlreadyExists(err) {
		if !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
			return reconcile.Result{}, err
		}
		// ConfigMaps are not served here (not in its discovery): the workspace did not accept the claim.
		r.mu.Lock()
		r.refusals[cluster] = err.Error()
		r.mu.Unlock()
	}
	patch := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": sharedWidgetGVK.GroupVersion().String(), "kind": sharedWidgetGVK.Kind,
		"metadata": map[string]any{"name": w.GetName(), "namespace": w.GetNamespace()},
		"status":   map[string]any{"phase": "Reconciled", "cluster": cluster},
	}}
	return reconcile.Result{}, c.Status().Patch(ctx, patch, client.Merge)
}

func TestAPIExportVirtualWorkspaceController(t *testing.T) {
	ctx := testContext(t, 120*time.Second)
	cfg := restConfig(t)
	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	origin := u.Scheme + "://" + u.Host
	at := func(path string) *rest.Config {
		c := rest.CopyConfig(cfg)
		c.Host = origin + path
		return c
	}
	dynAt := func(path string) *dynamic.DynamicClient { return dynamic.NewForConfigOrDie(at(path)) }
	suffix := fmt.Sprintf("%d", time.Now().UnixNano()%1_000_000)
	provider, tenants := "provider-"+suffix, []string{"accepts-" + suffix, "rejects-" + suffix, "silent-" + suffix}

	root := dynAt("/clusters/root")
	for _, ws := range append([]string{provider}, tenants...) {
		_, err := root.Resource(workspacesGVR).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "tenancy.kcp.io/v1alpha1", "kind": "Workspace", "metadata": map[string]any{"name": ws}, "spec": map[string]any{},
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating workspace %s: %v", ws, err)
		}
	}
	clusterOf := map[string]string{}
	for _, ws := range append([]string{provider}, tenants...) {
		eventually(t, 30*time.Second, "workspace "+ws+" Ready", func() (bool, error) {
			w, err := root.Resource(workspacesGVR).Get(ctx, ws, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			clusterOf[ws], _, _ = unstructured.NestedString(w.Object, "spec", "cluster")
			phase, _, _ := unstructured.NestedString(w.Object, "status", "phase")
			return phase == "Ready", nil
		})
	}

	// The provider's API: one schema, one export claiming ConfigMaps.
	prov := dynAt("/clusters/root:" + provider)
	_, err = prov.Resource(schemasGVR).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apis.kcp.io/v1alpha1", "kind": "APIResourceSchema",
		"metadata": map[string]any{"name": "v1.widgets.widgets.kcp-style.test"},
		"spec": map[string]any{
			"group": sharedWidgetGVK.Group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"type": "object", "properties": map[string]any{
					"spec":   map[string]any{"type": "object", "properties": map[string]any{"size": map[string]any{"type": "integer"}}},
					"status": map[string]any{"type": "object", "properties": map[string]any{"phase": map[string]any{"type": "string"}, "cluster": map[string]any{"type": "string"}}},
				}},
			}},
		},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the APIResourceSchema: %v", err)
	}
	_, err = prov.Resource(exportsGVR).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apis.kcp.io/v1alpha2", "kind": "APIExport", "metadata": map[string]any{"name": "widgets"},
		"spec": map[string]any{
			"resources":        []any{map[string]any{"name": "widgets", "group": sharedWidgetGVK.Group, "schema": "v1.widgets.widgets.kcp-style.test", "storage": map[string]any{"crd": map[string]any{}}}},
			"permissionClaims": []any{map[string]any{"group": "", "resource": "configmaps", "verbs": []any{"*"}}},
		},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the APIExport: %v", err)
	}

	// The tenants bind it as `kubectl kcp bind apiexport root:<provider>:widgets [--accept|reject-permission-claim configmaps.core]` does.
	states := []string{"Accepted", "Rejected", ""}
	for i, ws := range tenants {
		spec := map[string]any{"reference": map[string]any{"export": map[string]any{"path": "root:" + provider, "name": "widgets"}}}
		if states[i] != "" {
			spec["permissionClaims"] = []any{map[string]any{"group": "", "resource": "configmaps", "verbs": []any{"*"}, "selector": map[string]any{"matchAll": true}, "state": states[i]}}
		}
		tenant := dynAt("/clusters/root:" + ws)
		eventually(t, 30*time.Second, "binding in "+ws, func() (bool, error) {
			_, err := tenant.Resource(bindingsGVR).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "apis.kcp.io/v1alpha2", "kind": "APIBinding", "metadata": map[string]any{"name": "widgets"}, "spec": spec,
			}}, metav1.CreateOptions{})
			return err == nil || apierrors.IsAlreadyExists(err), err
		})
		eventually(t, 30*time.Second, "binding in "+ws+" Bound", func() (bool, error) {
			b, err := tenant.Resource(bindingsGVR).Get(ctx, "widgets", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			phase, _, _ := unstructured.NestedString(b.Object, "status", "phase")
			return phase == "Bound", nil
		})
		eventually(t, 30*time.Second, "widget in "+ws, func() (bool, error) {
			_, err := tenant.Resource(sharedWidgetGVK.GroupVersion().WithResource("widgets")).Namespace("default").Create(ctx, &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": sharedWidgetGVK.GroupVersion().String(), "kind": "Widget", "metadata": map[string]any{"name": "w-" + ws}, "spec": map[string]any{"size": int64(i + 1)},
			}}, metav1.CreateOptions{})
			return err == nil || apierrors.IsAlreadyExists(err), err
		})
	}

	// The virtual workspace URL, as the provider finds it.
	var vwURL string
	eventually(t, 30*time.Second, "the APIExportEndpointSlice's endpoint", func() (bool, error) {
		s, err := prov.Resource(endpointSliceGVR).Get(ctx, "widgets", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		eps, _, _ := unstructured.NestedSlice(s.Object, "status", "endpoints")
		if len(eps) == 0 {
			return false, nil
		}
		vwURL, _ = eps[0].(map[string]any)["url"].(string)
		return vwURL != "", nil
	})
	vw, err := url.Parse(vwURL)
	if err != nil {
		t.Fatal(err)
	}
	vwBase := origin + vw.Path

	mgr, err := ctrl.NewManager(at(vw.Path+"/clusters/*"), ctrl.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
	})
	if err != nil {
		t.Fatalf("NewManager at the virtual workspace: %v", err)
	}
	rec := &providerReconciler{cache: mgr.GetCache(), vwBase: vwBase, base: cfg, clients: map[string]client.Client{}, refusals: map[string]string{}}
	forType := &unstructured.Unstructured{}
	forType.SetGroupVersionKind(sharedWidgetGVK)
	if err := ctrl.NewControllerManagedBy(mgr).Named("widgets-provider-" + suffix).For(forType).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).Complete(rec); err != nil {
		t.Fatalf("building the controller: %v", err)
	}
	mgrCtx, stopManager := context.WithCancel(context.Background())
	managerDone := make(chan error, 1)
	go func() { managerDone <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		stopManager()
		if err := <-managerDone; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	for i, ws := range tenants {
		tenant := dynAt("/clusters/root:" + ws)
		eventually(t, 30*time.Second, "widget in "+ws+" reconciled through the virtual workspace", func() (bool, error) {
			w, err := tenant.Resource(sharedWidgetGVK.GroupVersion().WithResource("widgets")).Namespace("default").Get(ctx, "w-"+ws, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			phase, _, _ := unstructured.NestedString(w.Object, "status", "phase")
			return phase == "Reconciled", nil
		})
		cs := kubernetes.NewForConfigOrDie(at("/clusters/root:" + ws))
		_, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "widget-w-"+ws, metav1.GetOptions{})
		if states[i] == "Accepted" {
			if err != nil {
				t.Errorf("%s accepted the claim, yet the controller's ConfigMap is missing: %v", ws, err)
			}
		} else if !apierrors.IsNotFound(err) {
			t.Errorf("%s did not accept the claim, yet: %v (ConfigMap found: %v)", ws, err, err == nil)
		} else {
			rec.mu.Lock()
			refused := rec.refusals[clusterOf[ws]]
			rec.mu.Unlock()
			if refused == "" {
				t.Errorf("%s did not accept the claim, yet the controller was not refused", ws)
			}
		}
	}
	// The widgets of all three, listed across workspaces from the manager's cache.
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(sharedWidgetGVK.GroupVersion().WithKind("WidgetList"))
	if err := mgr.GetCache().List(ctx, list); err != nil {
		t.Fatalf("listing from the cache: %v", err)
	}
	seen := map[string]bool{}
	for _, w := range list.Items {
		seen[w.GetName()] = w.GetAnnotations()["kcp.io/cluster"] != ""
	}
	for _, ws := range tenants {
		if !seen["w-"+ws] {
			t.Errorf("the cache across the virtual workspace lacks w-%s with its kcp.io/cluster (saw %v)", ws, seen)
		}
	}
}
