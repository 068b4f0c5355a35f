package main

// Struct-tag roots for the core/v1 storage and service kinds, networking.k8s.io/v1, discovery.k8s.io/v1 and
// storage.k8s.io/v1 kinds a physical cluster serves (PersistentVolumeClaim, PersistentVolume, ReplicationController,
// Endpoints, PodTemplate, EndpointSlice, Ingress, IngressClass, NetworkPolicy, StorageClass).

import (
	corev1 "k8s.io/api/core/v1"
)

func init() {
	structTagRoots = append(structTagRoots, corev1.PersistentVolumeClaim{})
}
