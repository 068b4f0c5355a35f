package clients

// A webhook server written with controller-runtime, the way operators write theirs, registered in a workspace: a
// webhook.Server on loopback with its own serving certificate (signed by a CA of its own, which goes into the
// caBundles), serving
//   - /mutate-hooks-atrium-dev-v1-gadget: an admission.Defaulter for hooks.atrium.dev/v1 Gadget (color "blue" and a
//     label when none is set),
//   - /validate-hooks-atrium-dev-v1-gadget: an admission.Validator (more than 10 replicas is denied with the
//     validator's message; 0 replicas is a warning; it records whether each request was a dry run),
//   - /convert: controller-runtime's conversion webhook, converting v1 (Convertible) through the v2 hub,
//   - /slow: a raw admission handler that answers after 3 s, for timeouts,
//
// and a CRD gadgets.hooks.atrium.dev with two versions (v1 stored: spec.replicas, spec.color; v2: spec.size,
// spec.appearance.color) and conversion.strategy Webhook. Requests come from client-go (the dynamic client) and from
// kubectl, in both versions: the mutating and validating webhooks are registered for v1 only, so a v2 request reaches
// them converted (matchPolicy Equivalent) and the mutation is converted back. Then dry run (--dry-run=server: the
// webhooks are called with dryRun and nothing is stored; sideEffects other than None/NoneOnDryRun are refused),
// timeouts under failurePolicy Fail and Ignore, and the webhook server stopped (Fail refuses, Ignore admits, reads
// of the other version fail with the conversion webhook's error) and started again (everything works again).

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	whconversion "sigs.k8s.io/controller-runtime/pkg/webhook/conversion"
)

var (
	gadgetV1GV = schema.GroupVersion{Group: "hooks.atrium.dev", Version: "v1"}
	gadgetV2GV = schema.GroupVersion{Group: "hooks.atrium.dev", Version: "v2"}
)

// GadgetV1 is hooks.atrium.dev/v1 Gadget, the stored version.
type GadgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GadgetV1Spec `json:"spec,omitempty"`
}

type GadgetV1Spec struct {
	Replicas int32  `json:"replicas"`
	Color    string `json:"color,omitempty"`
}

// GadgetV2 is hooks.atrium.dev/v2 Gadget, the conversion hub.
type GadgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GadgetV2Spec `json:"spec,omitempty"`
}

type GadgetV2Spec struct {
	Size       int32            `json:"size"`
	Appearance GadgetAppearance `json:"appearance,omitempty"`
}

type GadgetAppearance struct {
	Color string `json:"color,omitempty"`
}

func (in *GadgetV1) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (in *GadgetV2) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// Hub marks v2 as the version every other converts through.
func (*GadgetV2) Hub() {}

// ConvertTo converts this v1 Gadget to the v2 hub.
func (in *GadgetV1) ConvertTo(dst conversion.Hub) error {
	out := dst.(*GadgetV2)
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = GadgetV2Spec{Size: in.Spec.Replicas, Appearance: GadgetAppearance{Color: in.Spec.Color}}
	return nil
}

// ConvertFrom converts the v2 hub to this v1 Gadget.
func (in *GadgetV1) ConvertFrom(src conversion.Hub) error {
	s := src.(*GadgetV2)
	s.ObjectMeta.DeepCopyInto(&in.ObjectMeta)
	in.Spec = GadgetV1Spec{Replicas: s.Spec.Size, Color: s.Spec.Appearance.Color}
	return nil
}

// gadgetDefaulter colors a Gadget blue and labels it when it has no color.
type gadgetDefaulter struct{}

func (gadgetDefaulter) Default(_ context.Context, g *GadgetV1) error {
	if g.Spec.Color == "" {
		g.Spec.Color = "blue"
		if g.Labels == nil {
			g.Labels = map[string]string{}
		}
		g.Labels["defaulted-by"] = "controller-runtime"
	}
	return nil
}

// gadgetValidator denies more than 10 replicas, warns about 0, and records the dry-run flag of every request.
type gadgetValidator struct {
	mu     sync.Mutex
	dryRun map[string]bool
}

func (v *gadgetValidator) record(ctx context.Context, g *GadgetV1) {
	if req, err := admission.RequestFromContext(ctx); err == nil {
		v.mu.Lock()
		v.dryRun[g.Name] = req.DryRun != nil && *req.DryRun
		v.mu.Unlock()
	}
}

func (v *gadgetValidator) seen(name string) (dryRun, ok bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	dryRun, ok = v.dryRun[name]
	return
}

func (v *gadgetValidator) check(g *GadgetV1) (admission.Warnings, error) {
	if g.Spec.Replicas > 10 {
		return nil, fmt.Errorf("a gadget may have at most 10 replicas, not %d", g.Spec.Replicas)
	}
	if g.Spec.Replicas == 0 {
		return admission.Warnings{"a gadget of 0 replicas does nothing"}, nil
	}
	return nil, nil
}

func (v *gadgetValidator) ValidateCreate(ctx context.Context, g *GadgetV1) (admission.Warnings, error) {
	v.record(ctx, g)
	return v.check(g)
}

func (v *gadgetValidator) ValidateUpdate(ctx context.Context, _, g *GadgetV1) (admission.Warnings, error) {
	v.record(ctx, g)
	return v.check(g)
}

func (v *gadgetValidator) ValidateDelete(context.Context, *GadgetV1) (admission.Warnings, error) {
	return nil, nil
}

// gadgetWebhookServer is the controller-runtime webhook server, restartable on its port.
type gadgetWebhookServer struct {
	port      int
	certDir   string
	caPEM     []byte
	validator *gadgetValidator
	cancel    context.CancelFunc
	done      chan error
}

// selfSignedServing writes a CA and a serving certificate for 127.0.0.1 signed by it into dir (tls.crt, tls.key,
// controller-runtime's names) and returns the CA in PEM.
func selfSignedServing(t *testing.T, dir string) []byte {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gadget-webhook-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "gadget-webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

func gadgetScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(gadgetV1GV.WithKind("Gadget"), &GadgetV1{})
	s.AddKnownTypeWithName(gadgetV2GV.WithKind("Gadget"), &GadgetV2{})
	metav1.AddToGroupVersion(s, gadgetV1GV)
	metav1.AddToGroupVersion(s, gadgetV2GV)
	return s
}

// start serves the webhooks on the server's port until stop.
func (s *gadgetWebhookServer) start(t *testing.T) {
	t.Helper()
	scheme := gadgetScheme()
	srv := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: s.port, CertDir: s.certDir})
	srv.Register("/mutate-hooks-atrium-dev-v1-gadget", admission.WithDefaulter[*GadgetV1](scheme, gadgetDefaulter{}))
	srv.Register("/validate-hooks-atrium-dev-v1-gadget", admission.WithValidator[*GadgetV1](scheme, s.validator))
	srv.Register("/convert", whconversion.NewWebhookHandler(scheme, whconversion.NewRegistry()))
	srv.Register("/slow", &webhook.Admission{Handler: admission.HandlerFunc(func(ctx context.Context, _ admission.Request) admission.Response {
		select {
		case <-time.After(3 * time.Second):
		case <-ctx.Done():
		}
		return admission.Allowed("")
	})})
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.done = make(chan error, 1)
	go func() { s.done <- srv.Start(ctx) }()
	eventually(t, 10*time.Second, "the webhook server to listen", func() (bool, error) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), time.Second)
		if err != nil {
			return false, err
		}
		c.Close()
		return true, nil
	})
}

func (s *gadgetWebhookServer) stop(t *testing.T) {
	t.Helper()
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("webhook server: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the webhook server did not stop")
	}
}

func (s *gadgetWebhookServer) url(path string) string {
	return fmt.Sprintf("https://127.0.0.1:%d%s", s.port, path)
}

// freePort asks the kernel for a free loopback port (controller-runtime's server takes a fixed one).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// workspaceConfig creates a workspace under root and returns the admin config and a kubeconfig file pointed into it.
func workspaceConfig(t *testing.T, name string) (*rest.Config, string) {
	t.Helper()
	root := restConfig(t)
	dyn := dynamic.NewForConfigOrDie(root)
	wsGVR := schema.GroupVersionResource{Group: "tenancy.kcp.io", Version: "v1alpha1", Resource: "workspaces"}
	ws := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "tenancy.kcp.io/v1alpha1", "kind": "Workspace", "metadata": map[string]any{"name": name}, "spec": map[string]any{}}}
	if _, err := dyn.Resource(wsGVR).Create(context.Background(), ws, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating workspace %s: %v", name, err)
	}
	t.Cleanup(func() { _ = dyn.Resource(wsGVR).Delete(context.Background(), name, metav1.DeleteOptions{}) })
	eventually(t, 30*time.Second, "workspace "+name+" Ready", func() (bool, error) {
		w, err := dyn.Resource(wsGVR).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		phase, _, _ := unstructured.NestedString(w.Object, "status", "phase")
		return phase == "Ready", fmt.Errorf("phase %q", phase)
	})
	host := root.Host
	if i := strings.Index(host, "/clusters/"); i >= 0 {
		host = host[:i]
	}
	host = strings.TrimSuffix(host, "/") + "/clusters/root:" + name
	cfg := rest.CopyConfig(root)
	cfg.Host = host

	raw, err := clientcmd.LoadFromFile(os.Getenv(kubeconfigEnv))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range raw.Clusters {
		c.Server = host
	}
	file := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := clientcmd.WriteToFile(*raw, file); err != nil {
		t.Fatal(err)
	}
	return cfg, file
}

// kubectlRun runs kubectl with the kubeconfig, stdin optional, and returns stdout, stderr and the error.
func kubectlRun(kubeconfig, stdin string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func gadgetCRD(s *gadgetWebhookServer) *apiextensionsv1.CustomResourceDefinition {
	obj := func(props map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props}
	}
	version := func(name string, storage bool, spec apiextensionsv1.JSONSchemaProps) apiextensionsv1.CustomResourceDefinitionVersion {
		return apiextensionsv1.CustomResourceDefinitionVersion{Name: name, Served: true, Storage: storage,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: ptr.To(obj(map[string]apiextensionsv1.JSONSchemaProps{"spec": spec}))}}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.hooks.atrium.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "hooks.atrium.dev",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				version("v1", true, obj(map[string]apiextensionsv1.JSONSchemaProps{"replicas": {Type: "integer"}, "color": {Type: "string"}})),
				version("v2", false, obj(map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer"}, "appearance": obj(map[string]apiextensionsv1.JSONSchemaProps{"color": {Type: "string"}})})),
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{
					ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: ptr.To(s.url("/convert")), CABundle: s.caPEM},
					ConversionReviewVersions: []string{"v1"},
				},
			},
		},
	}
}

func gadgetRule() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"hooks.atrium.dev"}, APIVersions: []string{"v1"}, Resources: []string{"gadgets"}},
	}}
}

func gadget(version, ns, name string, spec map[string]any, labels map[string]any) *unstructured.Unstructured {
	meta := map[string]any{"name": name, "namespace": ns}
	if labels != nil {
		meta["labels"] = labels
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "hooks.atrium.dev/" + version, "kind": "Gadget", "metadata": meta, "spec": spec}}
}

func TestControllerRuntimeWebhookServerInWorkspace(t *testing.T) {
	wsName := fmt.Sprintf("gadget-hooks-%d", time.Now().UnixNano()%100000)
	cfg, kubeconfig := workspaceConfig(t, wsName)
	ctx := testContext(t, 5*time.Minute)
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	apix := apiextensionsclient.NewForConfigOrDie(cfg)
	ns := testNamespace(t, cs)

	certDir := t.TempDir()
	s := &gadgetWebhookServer{port: freePort(t), certDir: certDir, caPEM: selfSignedServing(t, certDir), validator: &gadgetValidator{dryRun: map[string]bool{}}}
	s.start(t)
	t.Cleanup(func() { s.stop(t) })

	if _, err := apix.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, gadgetCRD(s), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the CRD: %v", err)
	}
	// Removed while the webhook server still runs (cleanups run last first): the server's own informers of every
	// resource would otherwise keep failing to list gadgets through a conversion webhook that is gone.
	t.Cleanup(func() {
		_ = apix.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), "gadgets.hooks.atrium.dev", metav1.DeleteOptions{})
	})
	eventually(t, 30*time.Second, "the Gadget CRD Established", func() (bool, error) {
		c, err := apix.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "gadgets.hooks.atrium.dev", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range c.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})

	none := admissionregistrationv1.SideEffectClassNone
	noneOnDryRun := admissionregistrationv1.SideEffectClassNoneOnDryRun
	fail := admissionregistrationv1.Fail
	ignore := admissionregistrationv1.Ignore
	clientConfig := func(path string) admissionregistrationv1.WebhookClientConfig {
		return admissionregistrationv1.WebhookClientConfig{URL: ptr.To(s.url(path)), CABundle: s.caPEM}
	}
	// The gadgets of the timeout and failure tests below (labelled probe) are for their own webhooks only.
	notProbes := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "probe", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "gadget-defaulter"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "mgadget.hooks.atrium.dev", ClientConfig: clientConfig("/mutate-hooks-atrium-dev-v1-gadget"), Rules: gadgetRule(),
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, FailurePolicy: &fail,
			ObjectSelector: notProbes,
		}},
	}
	if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, mwc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the MutatingWebhookConfiguration: %v", err)
	}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "gadget-validator"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "vgadget.hooks.atrium.dev", ClientConfig: clientConfig("/validate-hooks-atrium-dev-v1-gadget"), Rules: gadgetRule(),
			SideEffects: &noneOnDryRun, AdmissionReviewVersions: []string{"v1"}, FailurePolicy: &fail,
			ObjectSelector: notProbes,
		}},
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, vwc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the ValidatingWebhookConfiguration: %v", err)
	}
	v1Res := dyn.Resource(gadgetV1GV.WithResource("gadgets")).Namespace(ns)
	v2Res := dyn.Resource(gadgetV2GV.WithResource("gadgets")).Namespace(ns)

	// The webhook configurations are read from a cache: wait until the first gadget is mutated.
	eventually(t, 30*time.Second, "a gadget created through client-go in v1 to be defaulted by the webhook", func() (bool, error) {
		_ = v1Res.Delete(ctx, "probe", metav1.DeleteOptions{})
		got, err := v1Res.Create(ctx, gadget("v1", ns, "probe", map[string]any{"replicas": int64(1)}, nil), metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		color, _, _ := unstructured.NestedString(got.Object, "spec", "color")
		return color == "blue", fmt.Errorf("spec.color %q", color)
	})

	t.Run("client-go: create in v1 is mutated, read in v2 is converted", func(t *testing.T) {
		got, err := v1Res.Create(ctx, gadget("v1", ns, "alpha", map[string]any{"replicas": int64(3)}, nil), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if got.GetLabels()["defaulted-by"] != "controller-runtime" {
			t.Errorf("labels %v, want defaulted-by=controller-runtime", got.GetLabels())
		}
		v2, err := v2Res.Get(ctx, "alpha", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get in v2: %v", err)
		}
		size, _, _ := unstructured.NestedInt64(v2.Object, "spec", "size")
		color, _, _ := unstructured.NestedString(v2.Object, "spec", "appearance", "color")
		if v2.GetAPIVersion() != "hooks.atrium.dev/v2" || size != 3 || color != "blue" {
			t.Errorf("v2 object %s size %d color %q, want hooks.atrium.dev/v2 size 3 color blue", v2.GetAPIVersion(), size, color)
		}
		if v2.GetLabels()["defaulted-by"] != "controller-runtime" {
			t.Errorf("v2 labels %v", v2.GetLabels())
		}
		list, err := v2Res.List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) < 2 {
			t.Fatalf("list in v2: %v (%d items)", err, len(list.Items))
		}
		for _, it := range list.Items {
			if _, found, _ := unstructured.NestedInt64(it.Object, "spec", "size"); !found || it.GetAPIVersion() != "hooks.atrium.dev/v2" {
				t.Errorf("listed %s %s not converted: %v", it.GetAPIVersion(), it.GetName(), it.Object["spec"])
			}
		}
	})

	t.Run("client-go: create in v2 reaches the v1 webhooks converted, read in v1", func(t *testing.T) {
		got, err := v2Res.Create(ctx, gadget("v2", ns, "beta", map[string]any{"size": int64(4)}, nil), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create in v2: %v", err)
		}
		if c, _, _ := unstructured.NestedString(got.Object, "spec", "appearance", "color"); c != "blue" || got.GetAPIVersion() != "hooks.atrium.dev/v2" {
			t.Errorf("created %s with appearance.color %q, want v2 and blue (the v1 defaulter's patch converted back)", got.GetAPIVersion(), c)
		}
		v1, err := v1Res.Get(ctx, "beta", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get in v1: %v", err)
		}
		if r, _, _ := unstructured.NestedInt64(v1.Object, "spec", "replicas"); r != 4 {
			t.Errorf("v1 spec %v, want replicas 4", v1.Object["spec"])
		}
		_, err = v2Res.Create(ctx, gadget("v2", ns, "too-big", map[string]any{"size": int64(12)}, nil), metav1.CreateOptions{})
		want := `admission webhook "vgadget.hooks.atrium.dev" denied the request: a gadget may have at most 10 replicas, not 12`
		if err == nil || !strings.Contains(err.Error(), want) || !apierrors.IsForbidden(err) {
			t.Errorf("create of 12 replicas in v2: %v, want Forbidden %q", err, want)
		}
	})

	t.Run("client-go: denied with the validator's message, on create and update", func(t *testing.T) {
		_, err := v1Res.Create(ctx, gadget("v1", ns, "huge", map[string]any{"replicas": int64(11)}, nil), metav1.CreateOptions{})
		want := `admission webhook "vgadget.hooks.atrium.dev" denied the request: a gadget may have at most 10 replicas, not 11`
		if err == nil || err.Error() != want || !apierrors.IsForbidden(err) {
			t.Errorf("create: %v, want Forbidden %q", err, want)
		}
		if _, err := v1Res.Get(ctx, "huge", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the denied gadget exists: %v", err)
		}
		cur, err := v1Res.Get(ctx, "alpha", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_ = unstructured.SetNestedField(cur.Object, int64(20), "spec", "replicas")
		if _, err := v1Res.Update(ctx, cur, metav1.UpdateOptions{}); err == nil || !strings.Contains(err.Error(), "not 20") {
			t.Errorf("update to 20 replicas: %v, want the validator's denial", err)
		}
	})

	t.Run("kubectl: create in v2 mutated and read in v1; denial and warning printed", func(t *testing.T) {
		manifest := fmt.Sprintf("apiVersion: hooks.atrium.dev/v2\nkind: Gadget\nmetadata:\n  name: gamma\n  namespace: %s\nspec:\n  size: 5\n", ns)
		if out, errOut, err := kubectlRun(kubeconfig, manifest, "create", "-f", "-"); err != nil || !strings.Contains(out, "gadget.hooks.atrium.dev/gamma created") {
			t.Fatalf("kubectl create: %v\n%s%s", err, out, errOut)
		}
		out, errOut, err := kubectlRun(kubeconfig, "", "get", "gadgets.v1.hooks.atrium.dev", "gamma", "-n", ns, "-o", "json")
		if err != nil {
			t.Fatalf("kubectl get in v1: %v %s", err, errOut)
		}
		var v1 GadgetV1
		if err := json.Unmarshal([]byte(out), &v1); err != nil {
			t.Fatal(err)
		}
		if v1.APIVersion != "hooks.atrium.dev/v1" || v1.Spec.Replicas != 5 || v1.Spec.Color != "blue" || v1.Labels["defaulted-by"] != "controller-runtime" {
			t.Errorf("kubectl get in v1: %+v", v1)
		}
		out, _, err = kubectlRun(kubeconfig, "", "get", "gadgets.v2.hooks.atrium.dev", "alpha", "-n", ns, "-o", "jsonpath={.apiVersion} {.spec.size} {.spec.appearance.color}")
		if err != nil || out != "hooks.atrium.dev/v2 3 blue" {
			t.Errorf("kubectl get alpha in v2: %q %v", out, err)
		}
		bad := strings.Replace(manifest, "size: 5", "size: 50", 1)
		_, errOut, err = kubectlRun(kubeconfig, bad, "create", "-f", "-")
		if err == nil || !strings.Contains(errOut, `admission webhook "vgadget.hooks.atrium.dev" denied the request: a gadget may have at most 10 replicas, not 50`) {
			t.Errorf("kubectl create of 50 replicas: %v %q", err, errOut)
		}
		zero := strings.NewReplacer("size: 5", "size: 0", "gamma", "zero").Replace(manifest)
		_, errOut, err = kubectlRun(kubeconfig, zero, "apply", "-f", "-")
		if err != nil || !strings.Contains(errOut, "Warning: a gadget of 0 replicas does nothing") {
			t.Errorf("kubectl apply of 0 replicas: %v, stderr %q, want the validator's warning", err, errOut)
		}
	})

	t.Run("--dry-run=server calls the webhooks with dryRun and stores nothing", func(t *testing.T) {
		manifest := fmt.Sprintf("apiVersion: hooks.atrium.dev/v1\nkind: Gadget\nmetadata:\n  name: dry\n  namespace: %s\nspec:\n  replicas: 2\n", ns)
		out, errOut, err := kubectlRun(kubeconfig, manifest, "create", "--dry-run=server", "-f", "-", "-o", "jsonpath={.spec.color}")
		if err != nil || out != "blue" {
			t.Errorf("kubectl create --dry-run=server: %q %v %s, want the defaulted color", out, err, errOut)
		}
		if dry, ok := s.validator.seen("dry"); !ok || !dry {
			t.Errorf("the validator saw dry (called %v) with dryRun %v, want true", ok, dry)
		}
		if _, err := v1Res.Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("a dry-run gadget was stored: %v", err)
		}
		_, errOut, err = kubectlRun(kubeconfig, strings.Replace(manifest, "replicas: 2", "replicas: 99", 1), "create", "--dry-run=server", "-f", "-")
		if err == nil || !strings.Contains(errOut, "not 99") {
			t.Errorf("a dry run of 99 replicas: %v %q, want the validator's denial", err, errOut)
		}
		// client-go: the same through CreateOptions.DryRun.
		got, err := v2Res.Create(ctx, gadget("v2", ns, "dry2", map[string]any{"size": int64(1)}, nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatalf("dry-run create in v2: %v", err)
		}
		if c, _, _ := unstructured.NestedString(got.Object, "spec", "appearance", "color"); c != "blue" {
			t.Errorf("dry-run create in v2 answered color %q", c)
		}
		if dry, ok := s.validator.seen("dry2"); !ok || !dry {
			t.Errorf("the validator saw dry2 (called %v) with dryRun %v", ok, dry)
		}
		if _, err := v1Res.Get(ctx, "dry2", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("dry2 was stored: %v", err)
		}
		// admissionregistration.k8s.io/v1 knows only side-effect-free webhooks: Some and Unknown are refused.
		some := admissionregistrationv1.SideEffectClassSome
		bad := vwc.DeepCopy()
		bad.Name, bad.ResourceVersion = "side-effects", ""
		bad.Webhooks[0].SideEffects = &some
		_, err = cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, bad, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`) {
			t.Errorf("sideEffects Some: %v", err)
		}
	})

	probe := func(name string) *unstructured.Unstructured {
		return gadget("v1", ns, name, map[string]any{"replicas": int64(1), "color": "red"}, map[string]any{"probe": name})
	}
	probeHook := func(name, path string, policy *admissionregistrationv1.FailurePolicyType, timeout int32) *admissionregistrationv1.ValidatingWebhookConfiguration {
		return &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: name + ".hooks.atrium.dev", ClientConfig: clientConfig(path), Rules: gadgetRule(), SideEffects: &none,
				AdmissionReviewVersions: []string{"v1"}, FailurePolicy: policy, TimeoutSeconds: ptr.To(timeout),
				ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "probe", Operator: metav1.LabelSelectorOpIn, Values: []string{name + "-a", name + "-b", name + "-c"}}}},
			}},
		}
	}
	// createProbe retries while the configuration is not yet in the webhook cache (the gadget is admitted unreviewed).
	createProbe := func(t *testing.T, name string, reviewed func(err error, took time.Duration) bool) (error, time.Duration) {
		var lastErr error
		var took time.Duration
		eventually(t, 30*time.Second, "a gadget reviewed by "+name, func() (bool, error) {
			_ = v1Res.Delete(ctx, name, metav1.DeleteOptions{})
			start := time.Now()
			_, lastErr = v1Res.Create(ctx, probe(name), metav1.CreateOptions{})
			took = time.Since(start)
			return reviewed(lastErr, took), lastErr
		})
		return lastErr, took
	}

	t.Run("timeoutSeconds: Fail refuses after the timeout, Ignore admits", func(t *testing.T) {
		if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, probeHook("slow", "/slow", &fail, 1), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		err, took := createProbe(t, "slow-a", func(err error, _ time.Duration) bool { return err != nil })
		if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), `failed calling webhook "slow.hooks.atrium.dev": failed to call webhook: Post "`+s.url("/slow")+`?timeout=1s": context deadline exceeded`) {
			t.Errorf("create behind a slow webhook (Fail): %v", err)
		}
		if took < 900*time.Millisecond || took > 2500*time.Millisecond {
			t.Errorf("the refusal took %s, want about the 1s timeout", took)
		}
		cur, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "slow", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cur.Webhooks[0].FailurePolicy = &ignore
		if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		err, took = createProbe(t, "slow-b", func(err error, took time.Duration) bool { return err == nil && took > 900*time.Millisecond })
		if err != nil || took > 2500*time.Millisecond {
			t.Errorf("create behind a slow webhook (Ignore): %v after %s, want admitted after the 1s timeout", err, took)
		}
		_ = cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, "slow", metav1.DeleteOptions{})
	})

	t.Run("the webhook server stopped: Fail refuses, Ignore admits, conversion fails; started again, all works", func(t *testing.T) {
		for _, c := range []struct {
			name   string
			policy *admissionregistrationv1.FailurePolicyType
		}{{"down-fail", &fail}, {"down-ignore", &ignore}} {
			if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, probeHook(c.name, "/validate-hooks-atrium-dev-v1-gadget", c.policy, 5), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		// Both configurations are in effect once a probe of each reaches the (running) validator.
		for _, name := range []string{"down-fail-a", "down-ignore-a"} {
			createProbe(t, name, func(err error, _ time.Duration) bool { _, ok := s.validator.seen(name); return err == nil && ok })
		}
		s.stop(t)
		_, err := v1Res.Create(ctx, probe("down-fail-b"), metav1.CreateOptions{})
		want := `Internal error occurred: failed calling webhook "down-fail.hooks.atrium.dev": failed to call webhook: Post "` + s.url("/validate-hooks-atrium-dev-v1-gadget") + `?timeout=5s": dial tcp 127.0.0.1:`
		if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("create behind a stopped webhook (Fail): %v\nwant %s...connection refused", err, want)
		}
		if _, err := v1Res.Create(ctx, probe("down-ignore-b"), metav1.CreateOptions{}); err != nil {
			t.Errorf("create behind a stopped webhook (Ignore): %v", err)
		}
		// The stored version is still served; the other one needs the conversion webhook.
		if _, err := v1Res.Get(ctx, "alpha", metav1.GetOptions{}); err != nil {
			t.Errorf("get in the stored version with the conversion webhook down: %v", err)
		}
		_, err = v2Res.Get(ctx, "alpha", metav1.GetOptions{})
		if err == nil || !strings.Contains(err.Error(), "conversion webhook for hooks.atrium.dev/v1, Kind=Gadget failed: Post \""+s.url("/convert")) {
			t.Errorf("get in v2 with the conversion webhook down: %v", err)
		}
		_, errOut, err := kubectlRun(kubeconfig, "", "get", "gadgets.v2.hooks.atrium.dev", "alpha", "-n", ns)
		if err == nil || !strings.Contains(errOut, "conversion webhook for hooks.atrium.dev/v1, Kind=Gadget failed") {
			t.Errorf("kubectl get in v2 with the conversion webhook down: %v %q", err, errOut)
		}
		// The mutating webhook (Fail) refuses every other gadget.
		if _, err := v1Res.Create(ctx, gadget("v1", ns, "unmutated", map[string]any{"replicas": int64(1)}, nil), metav1.CreateOptions{}); !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), `failed calling webhook "mgadget.hooks.atrium.dev"`) {
			t.Errorf("create behind the stopped mutating webhook: %v", err)
		}

		s.start(t)
		if _, err := v1Res.Create(ctx, probe("down-fail-c"), metav1.CreateOptions{}); err != nil {
			t.Errorf("create behind the restarted webhook (Fail): %v", err)
		}
		v2, err := v2Res.Get(ctx, "alpha", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get in v2 after the restart: %v", err)
		}
		if size, _, _ := unstructured.NestedInt64(v2.Object, "spec", "size"); size != 3 {
			t.Errorf("v2 after the restart: %v", v2.Object["spec"])
		}
	})
}
