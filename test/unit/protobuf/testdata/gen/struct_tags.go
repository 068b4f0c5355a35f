package main

// Dumps the JSON and protobuf struct tags of every k8s.io Go struct reachable from the kinds atrium serves built
// in, so a test can check the type catalog's protobuf numbers and zero-value rules against the real types.

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type fieldTags struct {
	JSON      string `json:"json"`
	Proto     int    `json:"proto,omitempty"`
	OmitEmpty bool   `json:"omitempty,omitempty"`
	Pointer   bool   `json:"pointer,omitempty"`
	Inline    bool   `json:"inline,omitempty"`
	// Go type of the field, as its OpenAPI-style name for k8s.io structs, else the Go kind.
	Type string `json:"type"`
}

var structTagRoots = []any{
	corev1.Pod{}, corev1.Service{}, corev1.Node{}, corev1.Binding{}, corev1.Namespace{}, corev1.ConfigMap{},
	corev1.Secret{}, corev1.ServiceAccount{}, corev1.Event{}, corev1.PodTemplateSpec{},
	appsv1.Deployment{}, appsv1.ReplicaSet{}, eventsv1.Event{}, coordv1.Lease{},
	rbacv1.Role{}, rbacv1.ClusterRole{}, rbacv1.RoleBinding{}, rbacv1.ClusterRoleBinding{},
	authzv1.SubjectAccessReview{}, authzv1.SelfSubjectAccessReview{}, authzv1.LocalSubjectAccessReview{}, authzv1.SelfSubjectRulesReview{},
	authnv1.TokenReview{}, authnv1.TokenRequest{}, authnv1.SelfSubjectReview{}, autoscalingv1.Scale{},
	apiextv1.CustomResourceDefinition{}, metav1.Status{}, metav1.DeleteOptions{}, metav1.APIResourceList{},
	metav1.APIGroupList{}, metav1.APIVersions{},
}

// openAPIName turns k8s.io/api/core/v1.Pod into io.k8s.api.core.v1.Pod; "" for types outside k8s.io.
func openAPIName(t reflect.Type) string {
	if !strings.HasPrefix(t.PkgPath(), "k8s.io/") || t.Name() == "" {
		return ""
	}
	return "io.k8s." + strings.ReplaceAll(strings.TrimPrefix(t.PkgPath(), "k8s.io/"), "/", ".") + "." + t.Name()
}

func typeLabel(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if name := openAPIName(t); name != "" && t.Kind() == reflect.Struct {
		return name
	}
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
		return "[]" + typeLabel(t.Elem())
	case reflect.Map:
		return "map[" + typeLabel(t.Key()) + "]" + typeLabel(t.Elem())
	}
	return t.Kind().String()
}

func structTags() map[string][]fieldTags {
	out := map[string][]fieldTags{}
	var visit func(t reflect.Type)
	visit = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		name := openAPIName(t)
		if t.Kind() != reflect.Struct || name == "" {
			return
		}
		if _, seen := out[name]; seen {
			return
		}
		fields := []fieldTags{}
		out[name] = fields
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			jsonTag := strings.Split(f.Tag.Get("json"), ",")
			if jsonTag[0] == "-" {
				continue
			}
			tags := fieldTags{JSON: jsonTag[0], Pointer: f.Type.Kind() == reflect.Pointer, Type: typeLabel(f.Type)}
			for _, opt := range jsonTag[1:] {
				tags.OmitEmpty = tags.OmitEmpty || opt == "omitempty"
				tags.Inline = tags.Inline || opt == "inline"
			}
			if proto := strings.Split(f.Tag.Get("protobuf"), ","); len(proto) > 1 {
				tags.Proto, _ = strconv.Atoi(proto[1])
			}
			fields = append(fields, tags)
			visit(f.Type)
		}
		out[name] = fields
	}
	for _, root := range structTagRoots {
		visit(reflect.TypeOf(root))
	}
	return out
}

func writeStructTags(path string) {
	tags := structTags()
	names := make([]string, 0, len(tags))
	for name := range tags {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("{\n")
	for i, name := range names {
		line, err := json.Marshal(tags[name])
		must(err)
		b.WriteString("  " + strconv.Quote(name) + ": " + string(line))
		if i < len(names)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	must(os.WriteFile(path, []byte(b.String()), 0o644))
}
