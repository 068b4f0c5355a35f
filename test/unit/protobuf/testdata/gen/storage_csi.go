package main

// Fixtures and struct-tag roots for the CSI kinds of storage.k8s.io/v1 a physical cluster serves (CSIDriver,
// CSINode, CSIStorageCapacity, VolumeAttachment), shaped as CSI driver deployments write them. They exercise pointer
// booleans kept at false, a merge-by-name list of structs, a quantity pointer and a label selector at the top level,
// and a status with a zero `attached` and a VolumeError whose time is set.

import (
	"time"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func init() {
	structTagRoots = append(structTagRoots, storagev1.CSIDriver{}, storagev1.CSINode{}, storagev1.CSIStorageCapacity{}, storagev1.VolumeAttachment{})
}

func storageCSIFixtures() map[string]runtime.Object {
	gv := storagev1.SchemeGroupVersion
	file := storagev1.FileFSGroupPolicy
	failed := metav1.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	return map[string]runtime.Object{
		"csidriver": &storagev1.CSIDriver{
			TypeMeta:   tm(gv, "CSIDriver"),
			ObjectMeta: metav1.ObjectMeta{Name: "hostpath.csi.k8s.io", Labels: map[string]string{"app.kubernetes.io/name": "csi-hostpath"}},
			Spec: storagev1.CSIDriverSpec{
				AttachRequired:       ptr(false),
				PodInfoOnMount:       ptr(true),
				VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent, storagev1.VolumeLifecycleEphemeral},
				StorageCapacity:      ptr(true),
				FSGroupPolicy:        &file,
				TokenRequests:        []storagev1.TokenRequest{{Audience: "vault"}, {Audience: "", ExpirationSeconds: ptr[int64](3600)}},
				RequiresRepublish:    ptr(false),
				SELinuxMount:         ptr(false),
			},
		},
		"csinode": &storagev1.CSINode{
			TypeMeta:   tm(gv, "CSINode"),
			ObjectMeta: metav1.ObjectMeta{Name: "worker-1"},
			Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
				{Name: "hostpath.csi.k8s.io", NodeID: "worker-1", TopologyKeys: []string{"topology.hostpath.csi/node"}, Allocatable: &storagev1.VolumeNodeResources{Count: ptr[int32](0)}},
				{Name: "ebs.csi.aws.com", NodeID: "i-0123456789abcdef0", TopologyKeys: nil},
			}},
		},
		"csistoragecapacity": &storagev1.CSIStorageCapacity{
			TypeMeta:          tm(gv, "CSIStorageCapacity"),
			ObjectMeta:        metav1.ObjectMeta{Name: "csisc-abcde", Namespace: "kube-system"},
			NodeTopology:      &metav1.LabelSelector{MatchLabels: map[string]string{"topology.hostpath.csi/node": "worker-1"}},
			StorageClassName:  "csi-hostpath-fast",
			Capacity:          ptr(resource.MustParse("100Gi")),
			MaximumVolumeSize: ptr(resource.MustParse("10Gi")),
		},
		"volumeattachment": &storagev1.VolumeAttachment{
			TypeMeta:   tm(gv, "VolumeAttachment"),
			ObjectMeta: metav1.ObjectMeta{Name: "csi-0123456789abcdef"},
			Spec: storagev1.VolumeAttachmentSpec{
				Attacher: "ebs.csi.aws.com",
				Source:   storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr("pvc-0123")},
				NodeName: "worker-1",
			},
			Status: storagev1.VolumeAttachmentStatus{
				Attached:    false,
				AttachError: &storagev1.VolumeError{Time: failed, Message: "rpc error: code = DeadlineExceeded"},
			},
		},
	}
}
