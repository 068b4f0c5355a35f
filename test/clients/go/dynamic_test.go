package clients

import (
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
)

// The dynamic client speaks JSON only; it is what generic tools (kubectl apply, Argo CD, Flux) use.
func TestDynamicClientCRUD(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 30*time.Second)
	dyn := dynamic.NewForConfigOrDie(restConfig(t))

	cases := []struct {
		gvr  schema.GroupVersionResource
		kind string
		body map[string]any
		// field to change by merge patch, and the path to read it back
		patch string
		check []string
		want  string
	}{
		{
			gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, kind: "ConfigMap",
			body:  map[string]any{"data": map[string]any{"k": "v"}},
			patch: `{"data":{"k":"patched"}}`, check: []string{"data", "k"}, want: "patched",
		},
		{
			gvr: schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, kind: "Lease",
			body:  map[string]any{"spec": map[string]any{"holderIdentity": "x"}},
			patch: `{"spec":{"holderIdentity":"y"}}`, check: []string{"spec", "holderIdentity"}, want: "y",
		},
		{
			gvr: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, kind: "Role",
			body:  map[string]any{"rules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": []any{"get"}}}},
			patch: `{"metadata":{"labels":{"patched":"yes"}}}`, check: []string{"metadata", "labels", "patched"}, want: "yes",
		},
	}
	for _, tc := range cases {
		t.Run(tc.gvr.Resource, func(t *testing.T) {
			apiVersion := tc.gvr.GroupVersion().String()
			obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": tc.kind, "metadata": map[string]any{"name": "dyn", "labels": map[string]any{"via": "dynamic"}}}}
			for k, v := range tc.body {
				obj.Object[k] = v
			}
			client := dyn.Resource(tc.gvr).Namespace(ns)
			created, err := client.Create(ctx, obj, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if created.GetAPIVersion() != apiVersion || created.GetKind() != tc.kind || created.GetUID() == "" {
				t.Fatalf("create returned %s %s uid=%q", created.GetAPIVersion(), created.GetKind(), created.GetUID())
			}
			list, err := client.List(ctx, metav1.ListOptions{LabelSelector: "via=dynamic"})
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			if len(list.Items) != 1 || list.GetResourceVersion() == "" || list.GetKind() != tc.kind+"List" {
				t.Fatalf("list: kind %q rv %q items %d", list.GetKind(), list.GetResourceVersion(), len(list.Items))
			}
			patched, err := client.Patch(ctx, "dyn", types.MergePatchType, []byte(tc.patch), metav1.PatchOptions{})
			if err != nil {
				t.Fatalf("merge patch: %v", err)
			}
			if got, _, _ := unstructured.NestedString(patched.Object, tc.check...); got != tc.want {
				t.Fatalf("after patch %v = %q, want %q", tc.check, got, tc.want)
			}
			patched.SetAnnotations(map[string]string{"updated": "true"})
			updated, err := client.Update(ctx, patched, metav1.UpdateOptions{})
			if err != nil || updated.GetAnnotations()["updated"] != "true" {
				t.Fatalf("update: %v", err)
			}
			if err := client.Delete(ctx, "dyn", metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete: %v", err)
			}
			if _, err := client.Get(ctx, "dyn", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Fatalf("get after delete: %v", err)
			}
		})
	}
}

// Discovery is what RESTMappers (dynamic clients, controller-runtime) are built from.
func TestDiscovery(t *testing.T) {
	dc := discovery.NewDiscoveryClientForConfigOrDie(restConfig(t))
	groups, resources, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatalf("ServerGroupsAndResources: %v", err)
	}
	names := map[string]bool{}
	for _, g := range groups {
		names[g.Name] = true
	}
	for _, want := range []string{"", "coordination.k8s.io", "rbac.authorization.k8s.io", "events.k8s.io"} {
		if !names[want] {
			t.Errorf("group %q missing from discovery", want)
		}
	}
	found := map[string]metav1.APIResource{}
	for _, list := range resources {
		for _, r := range list.APIResources {
			found[list.GroupVersion+"/"+r.Name] = r
		}
	}
	cm, ok := found["v1/configmaps"]
	if !ok || !cm.Namespaced || cm.Kind != "ConfigMap" {
		t.Fatalf("v1/configmaps in discovery: %+v", cm)
	}
	ns, ok := found["v1/namespaces"]
	if !ok || ns.Namespaced {
		t.Fatalf("v1/namespaces in discovery: %+v", ns)
	}
	v, err := dc.ServerVersion()
	if err != nil || v.Major == "" || v.GitVersion == "" {
		t.Fatalf("ServerVersion: %v %+v", err, v)
	}
}
