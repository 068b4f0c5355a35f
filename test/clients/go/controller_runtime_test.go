package clients

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The test CRD: compat.atrium.test/v1 Widget, namespaced, with a status subresource.
var widgetGVK = schema.GroupVersionKind{Group: "compat.atrium.test", Version: "v1", Kind: "Widget"}

const widgetFieldManager = "widget-controller"

func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	integer := apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int64"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.compat.atrium.test"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: widgetGVK.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Required: []string{"message"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{"message": str}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"configMapName":      str,
							"observedGeneration": integer,
						}},
					},
				}},
			}},
		},
	}
}

// installWidgetCRD creates the Widget CRD through the apiextensions clientset (which sends protobuf) and waits until
// it is Established and served.
func installWidgetCRD(t *testing.T) {
	cfg, log := recordingConfig(t)
	ext := apiextensionsclient.NewForConfigOrDie(cfg)
	ctx := testContext(t, 60*time.Second)
	_, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, widgetCRD(), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating the Widget CRD: %v", err)
	}
	for _, r := range log.all() {
		if r.Method == "POST" && !strings.HasPrefix(r.ContentType, protobufContentType) {
			t.Errorf("the apiextensions clientset sent %q, want protobuf", r.ContentType)
		}
	}
	eventually(t, 30*time.Second, "the Widget CRD to be Established", func() (bool, error) {
		crd, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "widgets.compat.atrium.test", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, fmt.Errorf("conditions %+v", crd.Status.Conditions)
	})
	dc := clientset(t).Discovery()
	eventually(t, 30*time.Second, "compat.atrium.test/v1 in discovery", func() (bool, error) {
		list, err := dc.ServerResourcesForGroupVersion(widgetGVK.GroupVersion().String())
		if err != nil {
			return false, err
		}
		for _, r := range list.APIResources {
			if r.Name == "widgets" && r.Kind == "Widget" {
				return true, nil
			}
		}
		return false, nil
	})
}

// widgetReconciler keeps one ConfigMap per Widget, owned by it and written by server-side apply, and reports it in
// the Widget's status through the status subresource.
type widgetReconciler struct {
	client client.Client
}

func (r *widgetReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	widget := &unstructured.Unstructured{}
	widget.SetGroupVersionKind(widgetGVK)
	if err := r.client.Get(ctx, req.NamespacedName, widget); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	message, _, _ := unstructured.NestedString(widget.Object, "spec", "message")
	cmName := widget.GetName() + "-config"
	cm := corev1ac.ConfigMap(cmName, widget.GetNamespace()).
		WithLabels(map[string]string{"widget": widget.GetName()}).
		WithData(map[string]string{"message": message}).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion(widgetGVK.GroupVersion().String()).
			WithKind(widgetGVK.Kind).
			WithName(widget.GetName()).
			WithUID(widget.GetUID()).
			WithController(true).
			WithBlockOwnerDeletion(true))
	if err := r.client.Apply(ctx, cm, client.FieldOwner(widgetFieldManager), client.ForceOwnership); err != nil {
		return reconcile.Result{}, fmt.Errorf("applying ConfigMap: %w", err)
	}

	observed, _, _ := unstructured.NestedInt64(widget.Object, "status", "observedGeneration")
	current, _, _ := unstructured.NestedString(widget.Object, "status", "configMapName")
	if observed == widget.GetGeneration() && current == cmName {
		return reconcile.Result{}, nil
	}
	if err := unstructured.SetNestedField(widget.Object, cmName, "status", "configMapName"); err != nil {
		return reconcile.Result{}, err
	}
	if err := unstructured.SetNestedField(widget.Object, widget.GetGeneration(), "status", "observedGeneration"); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, r.client.Status().Update(ctx, widget)
}

func TestControllerRuntimeReconcilesCustomResource(t *testing.T) {
	installWidgetCRD(t)
	cs := clientset(t)
	ns := testNamespace(t, cs)
	cfg := restConfig(t)

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
	})
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	forType := &unstructured.Unstructured{}
	forType.SetGroupVersionKind(widgetGVK)
	err = ctrl.NewControllerManagedBy(mgr).
		Named("widget-" + ns).
		For(forType).
		Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(&widgetReconciler{client: mgr.GetClient()})
	if err != nil {
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

	ctx := testContext(t, 90*time.Second)
	dyn := dynamic.NewForConfigOrDie(cfg)
	widgets := dyn.Resource(widgetGVK.GroupVersion().WithResource("widgets")).Namespace(ns)
	widget, err := widgets.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": widgetGVK.GroupVersion().String(), "kind": widgetGVK.Kind,
		"metadata": map[string]any{"name": "w1"},
		"spec":     map[string]any{"message": "hello"},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the Widget: %v", err)
	}

	var cm *corev1.ConfigMap
	eventually(t, 30*time.Second, "the owned ConfigMap", func() (bool, error) {
		cm, err = cs.CoreV1().ConfigMaps(ns).Get(ctx, "w1-config", metav1.GetOptions{})
		return err == nil && cm.Data["message"] == "hello", err
	})
	if len(cm.OwnerReferences) != 1 {
		t.Fatalf("ownerReferences %+v, want one", cm.OwnerReferences)
	}
	ref := cm.OwnerReferences[0]
	if ref.APIVersion != "compat.atrium.test/v1" || ref.Kind != "Widget" || ref.Name != "w1" || ref.UID != widget.GetUID() || !ptr.Deref(ref.Controller, false) || !ptr.Deref(ref.BlockOwnerDeletion, false) {
		t.Fatalf("ownerReference %+v does not point at the Widget %s", ref, widget.GetUID())
	}
	applied := false
	for _, mf := range cm.ManagedFields {
		applied = applied || (mf.Manager == widgetFieldManager && mf.Operation == metav1.ManagedFieldsOperationApply)
	}
	if !applied {
		t.Fatalf("managedFields %+v lack an Apply entry for %s", cm.ManagedFields, widgetFieldManager)
	}

	waitForStatus := func(generation int64) *unstructured.Unstructured {
		t.Helper()
		var got *unstructured.Unstructured
		eventually(t, 30*time.Second, fmt.Sprintf("status.observedGeneration %d", generation), func() (bool, error) {
			got, err = widgets.Get(ctx, "w1", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			observed, _, _ := unstructured.NestedInt64(got.Object, "status", "observedGeneration")
			name, _, _ := unstructured.NestedString(got.Object, "status", "configMapName")
			return observed == generation && name == "w1-config", nil
		})
		return got
	}
	got := waitForStatus(1)
	// Writing status through the subresource must not count as a spec change.
	if got.GetGeneration() != 1 {
		t.Fatalf("generation %d after the status update, want 1", got.GetGeneration())
	}

	// A spec change bumps the generation; the reconciler re-applies the ConfigMap and records the new generation.
	if _, err := widgets.Patch(ctx, "w1", "application/merge-patch+json", []byte(`{"spec":{"message":"bye"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patching the Widget: %v", err)
	}
	eventually(t, 30*time.Second, "the ConfigMap to follow the spec", func() (bool, error) {
		cm, err = cs.CoreV1().ConfigMaps(ns).Get(ctx, "w1-config", metav1.GetOptions{})
		return err == nil && cm.Data["message"] == "bye", err
	})
	waitForStatus(2)

	// The ConfigMap is owned: deleting it makes the controller (watching owned objects) recreate it.
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "w1-config", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting the ConfigMap: %v", err)
	}
	eventually(t, 30*time.Second, "the ConfigMap to be recreated", func() (bool, error) {
		again, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "w1-config", metav1.GetOptions{})
		return err == nil && again.UID != cm.UID && again.Data["message"] == "bye", err
	})
}
