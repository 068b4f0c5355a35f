package main

// Fixtures for the core/v1 storage and service kinds, discovery.k8s.io/v1, networking.k8s.io/v1 and storage.k8s.io/v1
// kinds a physical cluster serves, shaped as Helm charts render them. They exercise the embeds PersistentVolumeSpec
// (PersistentVolumeSource, field 2) and IngressRule (IngressRuleValue, field 2), quantities, int-or-string ports,
// pointer strings and booleans kept at their zero value, and atomic lists of structs.

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func coreNetworkingFixtures() map[string]runtime.Object {
	core := corev1.SchemeGroupVersion
	labels := map[string]string{"app.kubernetes.io/name": "web", "app.kubernetes.io/instance": "shop"}
	filesystem := corev1.PersistentVolumeFilesystem
	tcp, udp := corev1.ProtocolTCP, corev1.ProtocolUDP
	prefix, exact := networkingv1.PathTypePrefix, networkingv1.PathTypeExact
	deleteReclaim := corev1.PersistentVolumeReclaimDelete
	waitForConsumer := storagev1.VolumeBindingWaitForFirstConsumer
	return map[string]runtime.Object{
		"persistentvolumeclaim": &corev1.PersistentVolumeClaim{
			TypeMeta:   tm(core, "PersistentVolumeClaim"),
			ObjectMeta: metav1.ObjectMeta{Name: "shop-data", Namespace: "default", Labels: labels},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("8Gi")}},
				StorageClassName: ptr(""),
				VolumeMode:       &filesystem,
				Selector:         &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "fast"}},
			},
		},
		"persistentvolume": &corev1.PersistentVolume{
			TypeMeta:   tm(core, "PersistentVolume"),
			ObjectMeta: metav1.ObjectMeta{Name: "pv-csi-0001", Labels: map[string]string{"tier": "fast"}},
			Spec: corev1.PersistentVolumeSpec{
				Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
				PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
					Driver: "ebs.csi.aws.com", VolumeHandle: "vol-0abc", FSType: "ext4", ReadOnly: false,
					VolumeAttributes:     map[string]string{"storage.kubernetes.io/csiProvisionerIdentity": "1700000000-ebs"},
					NodePublishSecretRef: &corev1.SecretReference{Name: "ebs-secret", Namespace: "kube-system"},
				}},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadOnlyMany},
				ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "default", Name: "shop-data", APIVersion: "v1"},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				StorageClassName:              "fast",
				MountOptions:                  []string{"noatime"},
				VolumeMode:                    &filesystem,
				NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"eu-west-1a"}}},
				}}}},
			},
		},
		"replicationcontroller": &corev1.ReplicationController{
			TypeMeta:   tm(core, "ReplicationController"),
			ObjectMeta: metav1.ObjectMeta{Name: "legacy-web", Namespace: "default", Labels: labels},
			Spec: corev1.ReplicationControllerSpec{
				Replicas: ptr[int32](0),
				Selector: labels,
				Template: &corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80}}}}},
				},
			},
		},
		"endpoints": &corev1.Endpoints{
			TypeMeta:   tm(core, "Endpoints"),
			ObjectMeta: metav1.ObjectMeta{Name: "external-db", Namespace: "default"},
			Subsets: []corev1.EndpointSubset{{
				Addresses:         []corev1.EndpointAddress{{IP: "10.0.0.10", Hostname: "db-0", NodeName: ptr("node-1")}, {IP: "10.0.0.11"}},
				NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.0.0.12", TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "db-2"}}},
				Ports:             []corev1.EndpointPort{{Name: "postgres", Port: 5432, Protocol: tcp, AppProtocol: ptr("postgresql")}},
			}},
		},
		"podtemplate": &corev1.PodTemplate{
			TypeMeta:   tm(core, "PodTemplate"),
			ObjectMeta: metav1.ObjectMeta{Name: "worker", Namespace: "default"},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"role": "worker"}},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "work", Image: "busybox:1.36", Command: []string{"sh", "-c", "echo hi"}}}},
			},
		},
		"endpointslice": &discoveryv1.EndpointSlice{
			TypeMeta: tm(discoveryv1.SchemeGroupVersion, "EndpointSlice"),
			ObjectMeta: metav1.ObjectMeta{Name: "web-abc12", Namespace: "default", Labels: map[string]string{
				discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: "controller.example.com",
			}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints: []discoveryv1.Endpoint{
				{
					Addresses:  []string{"10.244.1.5"},
					Conditions: discoveryv1.EndpointConditions{Ready: ptr(true), Serving: ptr(true), Terminating: ptr(false)},
					NodeName:   ptr("node-1"), Zone: ptr("eu-west-1a"),
					TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-0", UID: "3b1c"},
					Hints:     &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "eu-west-1a"}}},
				},
				{Addresses: []string{"10.244.2.7"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(false)}, Hostname: ptr("web-1")},
			},
			Ports: []discoveryv1.EndpointPort{{Name: ptr("http"), Protocol: &tcp, Port: ptr[int32](8080), AppProtocol: ptr("http")}, {Name: ptr(""), Protocol: &udp, Port: ptr[int32](0)}},
		},
		"ingress": &networkingv1.Ingress{
			TypeMeta: tm(networkingv1.SchemeGroupVersion, "Ingress"),
			ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "default", Labels: labels, Annotations: map[string]string{
				"nginx.ingress.kubernetes.io/rewrite-target": "/",
			}},
			Spec: networkingv1.IngressSpec{
				IngressClassName: ptr("nginx"),
				DefaultBackend:   &networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{APIGroup: ptr("k8s.example.com"), Kind: "StorageBucket", Name: "static"}},
				TLS:              []networkingv1.IngressTLS{{Hosts: []string{"shop.example.com"}, SecretName: "shop-tls"}},
				Rules: []networkingv1.IngressRule{
					{Host: "shop.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
						{Path: "/", PathType: &prefix, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Name: "http"}}}},
						{Path: "/api", PathType: &exact, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "api", Port: networkingv1.ServiceBackendPort{Number: 8080}}}},
					}}}},
					{Host: "*.shop.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
						{Path: "/", PathType: &prefix, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}},
					}}}},
				},
			},
		},
		"ingressclass": &networkingv1.IngressClass{
			TypeMeta: tm(networkingv1.SchemeGroupVersion, "IngressClass"),
			ObjectMeta: metav1.ObjectMeta{Name: "nginx", Annotations: map[string]string{
				networkingv1.AnnotationIsDefaultIngressClass: "true",
			}},
			Spec: networkingv1.IngressClassSpec{
				Controller: "k8s.io/ingress-nginx",
				Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr("k8s.example.com"), Kind: "IngressParameters", Name: "external-lb", Scope: ptr(networkingv1.IngressClassParametersReferenceScopeNamespace), Namespace: ptr("ingress-nginx")},
			},
		},
		"networkpolicy": &networkingv1.NetworkPolicy{
			TypeMeta:   tm(networkingv1.SchemeGroupVersion, "NetworkPolicy"),
			ObjectMeta: metav1.ObjectMeta{Name: "web-allow", Namespace: "default", Labels: labels},
			Spec: networkingv1.NetworkPolicySpec{
				PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "web"}},
				Ingress: []networkingv1.NetworkPolicyIngressRule{{
					Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: ptr(intstr.FromInt32(8080))}, {Port: ptr(intstr.FromString("metrics"))}},
					From: []networkingv1.NetworkPolicyPeer{
						{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "ingress-nginx"}}, PodSelector: &metav1.LabelSelector{}},
						{IPBlock: &networkingv1.IPBlock{CIDR: "172.17.0.0/16", Except: []string{"172.17.1.0/24"}}},
					},
				}},
				Egress: []networkingv1.NetworkPolicyEgressRule{{
					Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: ptr(intstr.FromInt32(53))}, {Protocol: &tcp, Port: ptr(intstr.FromInt32(32000)), EndPort: ptr[int32](32768)}},
				}},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
			},
		},
		"storageclass": &storagev1.StorageClass{
			TypeMeta: tm(storagev1.SchemeGroupVersion, "StorageClass"),
			ObjectMeta: metav1.ObjectMeta{Name: "fast", Annotations: map[string]string{
				"storageclass.kubernetes.io/is-default-class": "true",
			}},
			Provisioner:          "ebs.csi.aws.com",
			Parameters:           map[string]string{"type": "gp3", "fsType": "ext4"},
			ReclaimPolicy:        &deleteReclaim,
			MountOptions:         []string{"debug"},
			AllowVolumeExpansion: ptr(false),
			VolumeBindingMode:    &waitForConsumer,
			AllowedTopologies: []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
				{Key: "topology.ebs.csi.aws.com/zone", Values: []string{"eu-west-1a", "eu-west-1b"}},
			}}},
		},
	}
}
