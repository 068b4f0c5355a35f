package clients

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
		"k8s.io/apimachinery/pkg/watch"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// TestHTTP2Negotiated: client-go's transport negotiates HTTP/2 with the server (ALPN h2), as with kube-apiserver.
func TestHTTP2Negotiated(t *testing.T) {
	cfg := restConfig(t)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(cfg.Host + "/version")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.ProtoMajor != 2 {
		t.Fatalf("client-go spoke %s, want HTTP/2", resp.Proto)
	}
	// The typed clientset's requests go over the same h2 transport.
	cs := clientset(t)
	if _, err := cs.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
}

// codecs decode every built-in kind of client-go's scheme and apiextensions' CRDs.
var codecs = func() serializer.CodecFactory {
	s := runtime.NewScheme()
	if err := scheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return serializer.NewCodecFactory(s)
}()

// contentClient is a REST client for one group version that accepts only the given media type.
func contentClient(t *testing.T, gv schema.GroupVersion, accept string) *rest.RESTClient {
	t.Helper()
	cfg := restConfig(t)
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = codecs.WithoutConversion()
	cfg.AcceptContentTypes = accept
	cfg.ContentType = "application/json"
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// getBoth reads the same path as JSON and as protobuf, checks each answer's content type and decodes both with
// client-go's codecs.
func getBoth(t *testing.T, gv schema.GroupVersion, path string) (fromJSON, fromProto runtime.Object) {
	t.Helper()
	ctx := testContext(t, 30*time.Second)
	var jsonType, protoType string
	fromJSON, err := contentClient(t, gv, "application/json").Get().AbsPath(path).Do(ctx).ContentType(&jsonType).Get()
	if err != nil {
		t.Fatalf("GET %s as JSON: %v", path, err)
	}
	fromProto, err = contentClient(t, gv, protobufContentType).Get().AbsPath(path).Do(ctx).ContentType(&protoType).Get()
	if err != nil {
		t.Fatalf("GET %s as protobuf: %v", path, err)
	}
	if jsonType != "application/json" || protoType != protobufContentType {
		t.Fatalf("GET %s: content types %q and %q", path, jsonType, protoType)
	}
	return fromJSON, fromProto
}

func assertSame(t *testing.T, what string, fromJSON, fromProto runtime.Object) {
	t.Helper()
	// Items of a list carry no apiVersion/kind in protobuf (as kube-apiserver's); atrium's JSON lists name them.
	if list, ok := fromJSON.(metav1.ListInterface); ok {
		_ = list
		clearItemTypeMeta(fromJSON)
		clearItemTypeMeta(fromProto)
	}
	if !apiequality.Semantic.DeepEqual(fromJSON, fromProto) {
		j, _ := json.MarshalIndent(fromJSON, "", " ")
		p, _ := json.MarshalIndent(fromProto, "", " ")
		t.Fatalf("%s differs between JSON and protobuf:\nJSON:     %s\nprotobuf: %s", what, j, p)
	}
}

func clearItemTypeMeta(obj runtime.Object) {
	switch l := obj.(type) {
	case *corev1.ConfigMapList:
		for i := range l.Items {
			l.Items[i].TypeMeta = metav1.TypeMeta{}
		}
	case *corev1.SecretList:
		for i := range l.Items {
			l.Items[i].TypeMeta = metav1.TypeMeta{}
		}
	case *coordinationv1.LeaseList:
		for i := range l.Items {
			l.Items[i].TypeMeta = metav1.TypeMeta{}
		}
	case *corev1.ResourceQuotaList:
		for i := range l.Items {
			l.Items[i].TypeMeta = metav1.TypeMeta{}
		}
	case *rbacv1.RoleList:
		for i := range l.Items {
			l.Items[i].TypeMeta = metav1.TypeMeta{}
		}
	case *corev1.EventList:
		for i := range l.Items {
			l.Items[i].TypeMeta = metav1.TypeMeta{}
		}
	}
}

// TestProtobufMatchesJSON: GET and LIST of built-in kinds answered in protobuf decode, with client-go, to exactly what
// the JSON answers decode to — bytes, quantities, int-or-strings, times and micro-times, pointers, maps and nested
// lists, managedFields — and a missing object is a protobuf Status that client-go reads as NotFound.
func TestProtobufMatchesJSON(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 60*time.Second)
	one := int32(30)
	now := metav1.NewMicroTime(time.Now().Truncate(time.Microsecond))
	holder := "me"
	_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "pb", Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"note": "x"}},
		Data:       map[string]string{"k": "v", "empty": ""},
		BinaryData: map[string][]byte{"bin": {0, 1, 2, 255}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "pb"}, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"password": []byte("hunter2")},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.CoordinationV1().Leases(ns).Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "pb"}, Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &one, RenewTime: &now, AcquireTime: &now},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.CoreV1().ResourceQuotas(ns).Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "pb"},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m"), corev1.ResourceMemory: resource.MustParse("1Gi"), "count/configmaps": resource.MustParse("10")}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "pb"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"get", "list"}}, {NonResourceURLs: nil, APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"*"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.CoreV1().Events(ns).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "pb"},
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: ns, Name: "pb", APIVersion: "v1"},
		Reason:         "Tested", Message: "protobuf", Type: "Normal", Count: 3,
		FirstTimestamp: metav1.NewTime(time.Now().Add(-time.Minute).Truncate(time.Second)), LastTimestamp: metav1.NewTime(time.Now().Truncate(time.Second)),
		EventTime: now, ReportingController: "atrium.test/pb", ReportingInstance: "pb-1", Action: "Test",
		Source: corev1.EventSource{Component: "pb"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A CRD: JSONSchemaProps unions (props-or-bool, props-or-array), raw JSON defaults, conditions.
	installWidgetCRD(t)

	core := schema.GroupVersion{Version: "v1"}
	for _, p := range []struct {
		gv   schema.GroupVersion
		path string
	}{
		{core, "/api/v1/namespaces/" + ns + "/configmaps/pb"},
		{core, "/api/v1/namespaces/" + ns + "/configmaps"},
		{core, "/api/v1/namespaces/" + ns + "/secrets/pb"},
		{core, "/api/v1/namespaces/" + ns + "/resourcequotas/pb"},
		{core, "/api/v1/namespaces/" + ns + "/resourcequotas"},
		{core, "/api/v1/namespaces/" + ns + "/events/pb"},
		{core, "/api/v1/namespaces/" + ns + "/events"},
		{schema.GroupVersion{Group: "apiextensions.k8s.io", Version: "v1"}, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.compat.atrium.test"},
		{core, "/api/v1/namespaces/" + ns},
		{schema.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}, "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases/pb"},
		{schema.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}, "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases"},
		{schema.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}, "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles/pb"},
		{schema.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}, "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles"},
	} {
		j, pb := getBoth(t, p.gv, p.path)
		assertSame(t, p.path, j, pb)
	}
	// The typed clientset (which asks protobuf first) reads what was written, e.g. the Secret's bytes.
	s, err := cs.CoreV1().Secrets(ns).Get(ctx, "pb", metav1.GetOptions{})
	if err != nil || string(s.Data["password"]) != "hunter2" {
		t.Fatalf("secret over protobuf: %v %v", s, err)
	}

	// A missing object: a protobuf Status, decoded into the same NotFound error as from JSON.
	var ct string
	_, err = contentClient(t, core, protobufContentType+",application/json").Get().AbsPath("/api/v1/namespaces/" + ns + "/configmaps/missing").Do(ctx).ContentType(&ct).Get()
	if !apierrors.IsNotFound(err) || ct != protobufContentType {
		t.Fatalf("missing object: err %v, content type %q", err, ct)
	}
	_, jerr := contentClient(t, core, "application/json").Get().AbsPath("/api/v1/namespaces/" + ns + "/configmaps/missing").Do(ctx).Get()
	if !apiequality.Semantic.DeepEqual(err.(*apierrors.StatusError).ErrStatus, jerr.(*apierrors.StatusError).ErrStatus) {
		t.Fatalf("Status differs:\nprotobuf: %#v\nJSON:     %#v", err.(*apierrors.StatusError).ErrStatus, jerr.(*apierrors.StatusError).ErrStatus)
	}
}

// TestProtobufWatch: a watch asked for in protobuf streams length-prefixed WatchEvent frames that client-go decodes
// into the same objects as a GET in JSON.
func TestProtobufWatch(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	ctx := testContext(t, 60*time.Second)
	core := schema.GroupVersion{Version: "v1"}
	pb := contentClient(t, core, protobufContentType)
	w, err := pb.Get().AbsPath("/api/v1/namespaces/"+ns+"/configmaps").Param("watch", "true").Param("fieldSelector", "metadata.name=w").Param("allowWatchBookmarks", "true").Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Data: map[string]string{"a": "1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Patch(ctx, "w", "application/merge-patch+json", []byte(`{"data":{"a":"2"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "w", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var got []watch.EventType
	var modified *corev1.ConfigMap
	timeout := time.After(20 * time.Second)
	for len(got) < 3 {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %v", got)
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			cm, ok := ev.Object.(*corev1.ConfigMap)
			if !ok {
				t.Fatalf("event %s carries %T", ev.Type, ev.Object)
			}
			got = append(got, ev.Type)
			if ev.Type == watch.Modified {
				modified = cm
			}
		case <-timeout:
			t.Fatalf("events so far: %v", got)
		}
	}
	if strings.Join([]string{string(got[0]), string(got[1]), string(got[2])}, ",") != "ADDED,MODIFIED,DELETED" {
		t.Fatalf("events %v", got)
	}
	if modified.Data["a"] != "2" || modified.Namespace != ns || len(modified.ManagedFields) == 0 {
		t.Fatalf("modified object %+v", modified)
	}
}

// TestProtobufRawWatchFraming checks the wire format itself: the content type names the watch stream, and each
// frame is a 4-byte big-endian length followed by a WatchEvent whose object is a full protobuf body ("k8s\x00").
func TestProtobufRawWatchFraming(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "f"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg := restConfig(t)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(testContext(t, 20*time.Second), "GET", cfg.Host+"/api/v1/namespaces/"+ns+"/configmaps?watch=true", nil)
	req.Header.Set("Accept", protobufContentType+", application/json")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != protobufContentType+";stream=watch" {
		t.Fatalf("content type %q", ct)
	}
	head := make([]byte, 4)
	if _, err := io.ReadFull(resp.Body, head); err != nil {
		t.Fatal(err)
	}
	n := int(head[0])<<24 | int(head[1])<<16 | int(head[2])<<8 | int(head[3])
	frame := make([]byte, n)
	if _, err := io.ReadFull(resp.Body, frame); err != nil {
		t.Fatal(err)
	}
	var ev metav1.WatchEvent
	if err := ev.Unmarshal(frame); err != nil {
		t.Fatalf("frame of %d bytes is no WatchEvent: %v", n, err)
	}
	if ev.Type != "ADDED" || !strings.HasPrefix(string(ev.Object.Raw), "k8s\x00") {
		t.Fatalf("event %s, object %q", ev.Type, ev.Object.Raw[:min(8, len(ev.Object.Raw))])
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(ev.Object.Raw, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cm, ok := obj.(*corev1.ConfigMap); !ok || cm.Name != "f" {
		t.Fatalf("decoded %#v", obj)
	}
}

// TestCustomResourcesStayJSON: custom resources have no protobuf form. A client accepting protobuf or JSON gets JSON;
// one accepting only protobuf gets 406, as from kube-apiserver.
func TestCustomResourcesStayJSON(t *testing.T) {
	installWidgetCRD(t)
	cfg := restConfig(t)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func(accept string) (int, string) {
		req, _ := http.NewRequest("GET", cfg.Host+"/apis/compat.atrium.test/v1/widgets", nil)
		req.Header.Set("Accept", accept)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type")
	}
	if code, ct := get(protobufContentType + ",application/json"); code != 200 || ct != "application/json" {
		t.Fatalf("protobuf,json: %d %q", code, ct)
	}
	if code, _ := get(protobufContentType); code != http.StatusNotAcceptable {
		t.Fatalf("protobuf only: %d, want 406", code)
	}
}
