package main

// Struct-tag roots for admissionregistration.k8s.io/v1 (webhook configurations, admission policies and their
// bindings) and the core/v1 ResourceQuota and LimitRange kinds.

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
)

func init() {
	structTagRoots = append(structTagRoots,
		admissionregistrationv1.ValidatingWebhookConfiguration{}, admissionregistrationv1.MutatingWebhookConfiguration{},
		admissionregistrationv1.ValidatingAdmissionPolicy{}, admissionregistrationv1.ValidatingAdmissionPolicyBinding{},
		corev1.ResourceQuota{}, corev1.LimitRange{},
	)
}
