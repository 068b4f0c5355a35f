package main

// Struct-tag roots for scheduling.k8s.io/v1 (PriorityClass), served by physical clusters and compute workspaces.

import (
	schedulingv1 "k8s.io/api/scheduling/v1"
)

func init() {
	structTagRoots = append(structTagRoots, schedulingv1.PriorityClass{})
}
