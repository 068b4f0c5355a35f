package main

// Struct-tag roots for the core/v1 storage and service kinds, networking.k8s.io/v1, discovery.k8s.io/v1 and
// storage.k8s.io/v1 kinds a physical cluster serves (PersistentVolumeClaim, PersistentVolume, ReplicationController,
// Endpoints, PodTemplate, EndpointSlice, Ingress, IngressClass, NetworkPolicy, StorageClass).

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	storagev1 "k8s.io/api/storage/v1"
)

func init() {
	structTagRoots = append(structTagRoots,
		corev1.PersistentVolumeClaim{}, corev1.PersistentVolume{}, corev1.ReplicationController{}, corev1.Endpoints{},
		corev1.PodTemplate{}, discoveryv1.EndpointSlice{}, networkingv1.Ingress{}, networkingv1.IngressClass{},
		networkingv1.NetworkPolicy{}, storagev1.StorageClass{},
	)
}
