package main

// Struct-tag roots for certificates.k8s.io/v1 (CertificateSigningRequest), served in every workspace and cluster.

import (
	certificatesv1 "k8s.io/api/certificates/v1"
)

func init() {
	structTagRoots = append(structTagRoots, certificatesv1.CertificateSigningRequest{})
}
