// Command gen writes the protobuf fixtures used by atrium's protobuf decoder tests.
//
// Every object below is written twice, as the Kubernetes protobuf envelope
// (magic prefix + runtime.Unknown, exactly what client-go sends) and as JSON
// (what a JSON client would send for the same object). The decoder test checks
// that decoding the first yields the second.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
)

func ptr[T any](v T) *T { return &v }

func tm(gv schema.GroupVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: gv.String(), Kind: kind}
}

var (
	created = metav1.NewTime(time.Date(2024, 5, 17, 9, 30, 12, 0, time.UTC))
	later   = metav1.NewTime(time.Date(2024, 5, 17, 10, 0, 0, 0, time.UTC))
	micro   = metav1.NewMicroTime(time.Date(2024, 5, 17, 9, 31, 1, 123456789, time.UTC))
)

func fixtures() map[string]runtime.Object {
	core := corev1.SchemeGroupVersion
	return map[string]runtime.Object{
		"namespace": &corev1.Namespace{
			TypeMeta: tm(core, "Namespace"),
			ObjectMeta: metav1.ObjectMeta{
				Name:                       "team-a",
				UID:                        types.UID("6c1f7c8e-2a43-4b8e-9a55-1d1f0c7e9b01"),
				ResourceVersion:            "42",
				Generation:                 3,
				CreationTimestamp:          created,
				DeletionTimestamp:          &later,
				DeletionGracePeriodSeconds: ptr[int64](0),
				Labels:                     map[string]string{"team": "a", "kubernetes.io/metadata.name": "team-a"},
				Annotations:                map[string]string{"note": "héllo ✓", "empty": ""},
				Finalizers:                 []string{"example.com/cleanup"},
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "0b2c3d4e-0000-4000-8000-000000000001",
					Controller: ptr(true), BlockOwnerDeletion: ptr(false),
				}},
				ManagedFields: []metav1.ManagedFieldsEntry{{
					Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
					Time: &created, FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:team":{}}}}`)},
				}},
			},
			Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
			Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive, Conditions: []corev1.NamespaceCondition{{
				Type: corev1.NamespaceDeletionContentFailure, Status: corev1.ConditionFalse, LastTransitionTime: later,
				Reason: "ContentDeleted", Message: "All content successfully deleted",
			}}},
		},
		"namespace-minimal": &corev1.Namespace{TypeMeta: tm(core, "Namespace"), ObjectMeta: metav1.ObjectMeta{Name: "foo"}},
		"configmap": &corev1.ConfigMap{
			TypeMeta:   tm(core, "ConfigMap"),
			ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "team-a", GenerateName: "settings-"},
			Immutable:  ptr(false),
			Data:       map[string]string{"app.properties": "a=1\nb=2\n", "empty": ""},
			BinaryData: map[string][]byte{"blob": {0, 1, 2, 250, 255}, "none": {}},
		},
		"secret": &corev1.Secret{
			TypeMeta:   tm(core, "Secret"),
			ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "team-a"},
			Immutable:  ptr(true),
			Type:       corev1.SecretTypeBasicAuth,
			Data:       map[string][]byte{"username": []byte("admin"), "password": []byte("s3cr3t")},
			StringData: map[string]string{"extra": "plain"},
		},
		"serviceaccount": &corev1.ServiceAccount{
			TypeMeta:                     tm(core, "ServiceAccount"),
			ObjectMeta:                   metav1.ObjectMeta{Name: "builder", Namespace: "team-a"},
			Secrets:                      []corev1.ObjectReference{{Name: "builder-token", Namespace: "team-a", Kind: "Secret"}},
			ImagePullSecrets:             []corev1.LocalObjectReference{{Name: "registry"}},
			AutomountServiceAccountToken: ptr(false),
		},
		"event-core": &corev1.Event{
			TypeMeta:   tm(core, "Event"),
			ObjectMeta: metav1.ObjectMeta{Name: "team-a.17d0", Namespace: "team-a"},
			InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "team-a", Name: "settings", UID: "u-1",
				APIVersion: "v1", ResourceVersion: "7", FieldPath: "data"},
			Reason: "Updated", Message: "config changed", Source: corev1.EventSource{Component: "controller", Host: "node-1"},
			FirstTimestamp: created, LastTimestamp: later, Count: 4, Type: corev1.EventTypeNormal,
			EventTime: micro, Series: &corev1.EventSeries{Count: 2, LastObservedTime: micro},
			Action: "Reconcile", Related: &corev1.ObjectReference{Kind: "Secret", Name: "creds"},
			ReportingController: "example.com/controller", ReportingInstance: "controller-0",
		},
		"event-events-v1": &eventsv1.Event{
			TypeMeta:            tm(eventsv1.SchemeGroupVersion, "Event"),
			ObjectMeta:          metav1.ObjectMeta{Name: "lease.17d1", Namespace: "kube-system"},
			EventTime:           micro,
			Series:              &eventsv1.EventSeries{Count: 3, LastObservedTime: micro},
			ReportingController: "example.com/elector", ReportingInstance: "elector-1",
			Action: "Acquire", Reason: "LeaderElection", Note: "elector-1 became leader", Type: "Normal",
			Regarding:                corev1.ObjectReference{Kind: "Lease", Namespace: "kube-system", Name: "elector", APIVersion: "coordination.k8s.io/v1"},
			DeprecatedSource:         corev1.EventSource{Component: "elector"},
			DeprecatedCount:          0,
			DeprecatedFirstTimestamp: created,
		},
		"lease": &coordv1.Lease{
			TypeMeta:   tm(coordv1.SchemeGroupVersion, "Lease"),
			ObjectMeta: metav1.ObjectMeta{Name: "elector", Namespace: "kube-system"},
			Spec: coordv1.LeaseSpec{
				HolderIdentity: ptr("elector-1_5e4f"), LeaseDurationSeconds: ptr[int32](15),
				AcquireTime: &micro, RenewTime: ptr(metav1.NewMicroTime(time.Date(2024, 5, 17, 9, 31, 16, 5000, time.UTC))),
				LeaseTransitions: ptr[int32](0),
			},
		},
		"clusterrole": &rbacv1.ClusterRole{
			TypeMeta:   tm(rbacv1.SchemeGroupVersion, "ClusterRole"),
			ObjectMeta: metav1.ObjectMeta{Name: "monitoring"},
			Rules: []rbacv1.PolicyRule{
				{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, ResourceNames: []string{"a"}},
				{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics", "/healthz/*"}},
			},
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
				{MatchLabels: map[string]string{"rbac.example.com/aggregate-to-monitoring": "true"}},
				{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}},
					{Key: "legacy", Operator: metav1.LabelSelectorOpDoesNotExist}}},
			}},
		},
		"rolebinding": &rbacv1.RoleBinding{
			TypeMeta:   tm(rbacv1.SchemeGroupVersion, "RoleBinding"),
			ObjectMeta: metav1.ObjectMeta{Name: "readers", Namespace: "team-a"},
			Subjects: []rbacv1.Subject{
				{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "alice"},
				{Kind: "ServiceAccount", Name: "builder", Namespace: "team-a"},
			},
			RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"},
		},
		"selfsubjectaccessreview": &authzv1.SelfSubjectAccessReview{
			TypeMeta: tm(authzv1.SchemeGroupVersion, "SelfSubjectAccessReview"),
			Spec: authzv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authzv1.ResourceAttributes{
				Namespace: "team-a", Verb: "create", Group: "apps", Resource: "deployments", Subresource: "scale",
				LabelSelector: &authzv1.LabelSelectorAttributes{RawSelector: "a=b"},
			}},
		},
		"subjectaccessreview": &authzv1.SubjectAccessReview{
			TypeMeta: tm(authzv1.SchemeGroupVersion, "SubjectAccessReview"),
			Spec: authzv1.SubjectAccessReviewSpec{
				NonResourceAttributes: &authzv1.NonResourceAttributes{Path: "/healthz", Verb: "get"},
				User:                  "bob", Groups: []string{"system:authenticated", "devs"}, UID: "u-2",
				Extra: map[string]authzv1.ExtraValue{"scopes": {"read", "write"}, "empty": {}},
			},
			Status: authzv1.SubjectAccessReviewStatus{Allowed: false, Reason: "no rule"},
		},
		"selfsubjectreview": &authnv1.SelfSubjectReview{
			TypeMeta: tm(authnv1.SchemeGroupVersion, "SelfSubjectReview"),
			Status: authnv1.SelfSubjectReviewStatus{UserInfo: authnv1.UserInfo{
				Username: "alice", Groups: []string{"system:authenticated"},
				Extra: map[string]authnv1.ExtraValue{"team": {"a"}},
			}},
		},
		"tokenrequest": &authnv1.TokenRequest{
			TypeMeta: tm(authnv1.SchemeGroupVersion, "TokenRequest"),
			Spec: authnv1.TokenRequestSpec{Audiences: []string{"https://kubernetes.default.svc"}, ExpirationSeconds: ptr[int64](3600),
				BoundObjectRef: &authnv1.BoundObjectReference{Kind: "Secret", APIVersion: "v1", Name: "creds", UID: "u-3"}},
		},
		"scale": &autoscalingv1.Scale{
			TypeMeta:   tm(autoscalingv1.SchemeGroupVersion, "Scale"),
			ObjectMeta: metav1.ObjectMeta{Name: "widgets", Namespace: "team-a"},
			Spec:       autoscalingv1.ScaleSpec{Replicas: 0},
			Status:     autoscalingv1.ScaleStatus{Replicas: 2, Selector: "app=widget"},
		},
		"deleteoptions": &metav1.DeleteOptions{
			TypeMeta:           metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions"},
			GracePeriodSeconds: ptr[int64](0),
			Preconditions:      &metav1.Preconditions{UID: ptr(types.UID("6c1f7c8e")), ResourceVersion: ptr("42")},
			OrphanDependents:   ptr(false),
			PropagationPolicy:  ptr(metav1.DeletePropagationForeground),
			DryRun:             []string{metav1.DryRunAll},
		},
		"deleteoptions-v1": &metav1.DeleteOptions{
			TypeMeta:          metav1.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"},
			PropagationPolicy: ptr(metav1.DeletePropagationBackground),
		},
		"deleteoptions-rbac": &metav1.DeleteOptions{
			TypeMeta:           metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "DeleteOptions"},
			GracePeriodSeconds: ptr[int64](30),
		},
		"crd": crd(),
	}
}

func schemaJSON(v string) *apiextv1.JSON { return &apiextv1.JSON{Raw: []byte(v)} }

func crd() *apiextv1.CustomResourceDefinition {
	str := apiextv1.JSONSchemaProps{Type: "string"}
	spec := apiextv1.JSONSchemaProps{
		Type:     "object",
		Required: []string{"size"},
		Properties: map[string]apiextv1.JSONSchemaProps{
			"size": {Type: "integer", Format: "int32", Minimum: ptr(0.0), Maximum: ptr(100.0), ExclusiveMaximum: true, Default: schemaJSON(`3`)},
			"mode": {Type: "string", Enum: []apiextv1.JSON{{Raw: []byte(`"fast"`)}, {Raw: []byte(`"slow"`)}}, Default: schemaJSON(`"fast"`),
				Description: "How fast.", Pattern: "^[a-z]+$", MaxLength: ptr[int64](10), MinLength: ptr[int64](0)},
			"port":   {XIntOrString: true, AnyOf: []apiextv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}},
			"labels": {Type: "object", AdditionalProperties: &apiextv1.JSONSchemaPropsOrBool{Allows: true, Schema: &str}, XMapType: ptr("granular")},
			"free":   {Type: "object", AdditionalProperties: &apiextv1.JSONSchemaPropsOrBool{Allows: false}, Nullable: true},
			"blob":   {Type: "object", XPreserveUnknownFields: ptr(true), XEmbeddedResource: true},
			"ports": {Type: "array", XListType: ptr("map"), XListMapKeys: []string{"name"}, MaxItems: ptr[int64](5),
				Items: &apiextv1.JSONSchemaPropsOrArray{Schema: &apiextv1.JSONSchemaProps{
					Type: "object", Required: []string{"name"},
					Properties: map[string]apiextv1.JSONSchemaProps{"name": str, "number": {Type: "integer", Format: "int64", MultipleOf: ptr(2.0)}},
				}}},
			"tuple": {Type: "array", Items: &apiextv1.JSONSchemaPropsOrArray{JSONSchemas: []apiextv1.JSONSchemaProps{str, {Type: "boolean"}}}},
			"ratio": {Type: "number", Example: schemaJSON(`0.5`)},
		},
		XValidations: apiextv1.ValidationRules{
			{Rule: "self.size <= 50 || self.mode == 'slow'", Message: "big sizes must be slow", Reason: ptr(apiextv1.FieldValueInvalid), FieldPath: ".size"},
			{Rule: "self.size >= oldSelf.size", MessageExpression: "'shrink from ' + string(oldSelf.size)", OptionalOldSelf: ptr(true)},
		},
	}
	return &apiextv1.CustomResourceDefinition{
		TypeMeta:   tm(apiextv1.SchemeGroupVersion, "CustomResourceDefinition"),
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList",
				ShortNames: []string{"wd"}, Categories: []string{"all"}},
			Scope: apiextv1.NamespaceScoped,
			Versions: []apiextv1.CustomResourceDefinitionVersion{
				{
					Name: "v1", Served: true, Storage: true,
					Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{
						Type: "object",
						Properties: map[string]apiextv1.JSONSchemaProps{
							"spec":   spec,
							"status": {Type: "object", XPreserveUnknownFields: ptr(true)},
						},
					}},
					Subresources: &apiextv1.CustomResourceSubresources{
						Status: &apiextv1.CustomResourceSubresourceStatus{},
						Scale:  &apiextv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.size", StatusReplicasPath: ".status.size", LabelSelectorPath: ptr(".status.selector")},
					},
					AdditionalPrinterColumns: []apiextv1.CustomResourceColumnDefinition{
						{Name: "Size", Type: "integer", JSONPath: ".spec.size", Priority: 0, Description: "the size"},
						{Name: "Mode", Type: "string", Format: "", JSONPath: ".spec.mode", Priority: 1},
					},
					SelectableFields: []apiextv1.SelectableField{{JSONPath: ".spec.mode"}},
				},
				{Name: "v1beta1", Served: false, Storage: false, Deprecated: true, DeprecationWarning: ptr("use v1"),
					Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}}},
			},
			Conversion: &apiextv1.CustomResourceConversion{Strategy: apiextv1.WebhookConverter, Webhook: &apiextv1.WebhookConversion{
				ClientConfig: &apiextv1.WebhookClientConfig{
					Service:  &apiextv1.ServiceReference{Namespace: "team-a", Name: "convert", Path: ptr("/convert"), Port: ptr[int32](8443)},
					CABundle: []byte("-----BEGIN CERTIFICATE-----\n"),
				},
				ConversionReviewVersions: []string{"v1"},
			}},
			PreserveUnknownFields: false,
		},
		Status: apiextv1.CustomResourceDefinitionStatus{
			Conditions: []apiextv1.CustomResourceDefinitionCondition{{Type: apiextv1.Established, Status: apiextv1.ConditionTrue,
				LastTransitionTime: created, Reason: "InitialNamesAccepted", Message: "the initial names have been accepted"}},
			AcceptedNames:  apiextv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			StoredVersions: []string{"v1"},
		},
	}
}

func main() {
	out := ".."
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	ser := protobuf.NewSerializer(nil, nil)
	all := fixtures()
	for name, obj := range workloadFixtures() {
		all[name] = obj
	}
	for name, obj := range coreNetworkingFixtures() {
		all[name] = obj
	}
	for name, obj := range appsBatchFixtures() {
		all[name] = obj
	}
	for name, obj := range storageCSIFixtures() {
		all[name] = obj
	}
	for name, obj := range all {
		var pb bytes.Buffer
		if err := ser.Encode(obj, &pb); err != nil {
			panic(fmt.Sprintf("%s: %v", name, err))
		}
		js, err := json.MarshalIndent(obj, "", "  ")
		if err != nil {
			panic(err)
		}
		must(os.WriteFile(filepath.Join(out, name+".pb"), pb.Bytes(), 0o644))
		must(os.WriteFile(filepath.Join(out, name+".json"), append(js, '\n'), 0o644))
	}
	writeStructTags(filepath.Join(out, "go-struct-tags.json"))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
