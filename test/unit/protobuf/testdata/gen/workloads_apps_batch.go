package main

// Fixtures for the apps/v1 StatefulSet, DaemonSet and ControllerRevision, batch/v1 Job and CronJob, policy/v1
// PodDisruptionBudget and autoscaling/v1 and v2 HorizontalPodAutoscaler kinds, and their struct-tag roots (for
// catalog-vs-go.test.ts). Objects as a Helm chart would render them, plus a status a controller would write.

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func init() {
	structTagRoots = append(structTagRoots,
		appsv1.StatefulSet{}, appsv1.DaemonSet{}, appsv1.ControllerRevision{},
		batchv1.Job{}, batchv1.CronJob{}, policyv1.PodDisruptionBudget{},
		autoscalingv1.HorizontalPodAutoscaler{}, autoscalingv2.HorizontalPodAutoscaler{},
	)
}

func simplePod(image string, restart corev1.RestartPolicy) corev1.PodSpec {
	return corev1.PodSpec{
		Containers: []corev1.Container{{
			Name: "main", Image: image,
			Ports:     []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
		}},
		RestartPolicy: restart,
	}
}

func appsBatchFixtures() map[string]runtime.Object {
	apps := appsv1.SchemeGroupVersion
	labels := map[string]string{"app.kubernetes.io/name": "db", "app.kubernetes.io/instance": "prod"}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "team-a", Labels: labels, Generation: 1, CreationTimestamp: created}
	}
	return map[string]runtime.Object{
		"statefulset": &appsv1.StatefulSet{
			TypeMeta:   tm(apps, "StatefulSet"),
			ObjectMeta: meta("db"),
			Spec: appsv1.StatefulSetSpec{
				Replicas:    ptr[int32](3),
				Selector:    &metav1.LabelSelector{MatchLabels: labels},
				ServiceName: "db-headless",
				Template:    corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: simplePod("postgres:16", corev1.RestartPolicyAlways)},
				VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
					ObjectMeta: metav1.ObjectMeta{Name: "data"},
					Spec: corev1.PersistentVolumeClaimSpec{
						AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
						StorageClassName: ptr("standard"),
						VolumeMode:       ptr(corev1.PersistentVolumeFilesystem),
					},
					Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
				}},
				PodManagementPolicy: appsv1.ParallelPodManagement,
				UpdateStrategy: appsv1.StatefulSetUpdateStrategy{
					Type:          appsv1.RollingUpdateStatefulSetStrategyType,
					RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr[int32](0)},
				},
				RevisionHistoryLimit: ptr[int32](10),
				MinReadySeconds:      5,
				PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
					WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
					WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
				},
				Ordinals: &appsv1.StatefulSetOrdinals{Start: 0},
			},
			Status: appsv1.StatefulSetStatus{
				ObservedGeneration: 1, Replicas: 3, ReadyReplicas: 2, CurrentReplicas: 3, UpdatedReplicas: 3, AvailableReplicas: 2,
				CurrentRevision: "db-6d4cf56db6", UpdateRevision: "db-6d4cf56db6", CollisionCount: ptr[int32](0),
			},
		},
		"daemonset": &appsv1.DaemonSet{
			TypeMeta:   tm(apps, "DaemonSet"),
			ObjectMeta: meta("agent"),
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: simplePod("fluent-bit:3.0", corev1.RestartPolicyAlways)},
				UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
					Type:          appsv1.RollingUpdateDaemonSetStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr(intstr.FromString("10%")), MaxSurge: ptr(intstr.FromInt32(0))},
				},
				MinReadySeconds:      0,
				RevisionHistoryLimit: ptr[int32](10),
			},
			Status: appsv1.DaemonSetStatus{CurrentNumberScheduled: 2, NumberMisscheduled: 0, DesiredNumberScheduled: 2, NumberReady: 2, ObservedGeneration: 1, UpdatedNumberScheduled: 2, NumberAvailable: 2},
		},
		"controllerrevision": &appsv1.ControllerRevision{
			TypeMeta:   tm(apps, "ControllerRevision"),
			ObjectMeta: metav1.ObjectMeta{Name: "db-6d4cf56db6", Namespace: "team-a", Labels: labels, CreationTimestamp: created},
			Data:       runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"$patch":"replace"}}}`)},
			Revision:   1,
		},
		"job": &batchv1.Job{
			TypeMeta:   tm(batchv1.SchemeGroupVersion, "Job"),
			ObjectMeta: meta("migrate"),
			Spec: batchv1.JobSpec{
				Parallelism: ptr[int32](1), Completions: ptr[int32](1), ActiveDeadlineSeconds: ptr[int64](600), BackoffLimit: ptr[int32](0),
				PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
					{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: ptr("main"), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{1, 42}}},
					{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}},
				}},
				ManualSelector:          ptr(false),
				Template:                corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: simplePod("migrate:1.0", corev1.RestartPolicyNever)},
				TTLSecondsAfterFinished: ptr[int32](3600),
				CompletionMode:          ptr(batchv1.NonIndexedCompletion),
				Suspend:                 ptr(false),
				PodReplacementPolicy:    ptr(batchv1.Failed),
			},
			Status: batchv1.JobStatus{
				Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastProbeTime: created, LastTransitionTime: created}},
				StartTime:  &created, CompletionTime: &created, Succeeded: 1, Ready: ptr[int32](0), Terminating: ptr[int32](0),
				UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
			},
		},
		"cronjob": &batchv1.CronJob{
			TypeMeta:   tm(batchv1.SchemeGroupVersion, "CronJob"),
			ObjectMeta: meta("backup"),
			Spec: batchv1.CronJobSpec{
				Schedule: "30 2 * * *", TimeZone: ptr("Europe/Berlin"), StartingDeadlineSeconds: ptr[int64](300),
				ConcurrencyPolicy: batchv1.ForbidConcurrent, Suspend: ptr(false),
				JobTemplate: batchv1.JobTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       batchv1.JobSpec{BackoffLimit: ptr[int32](2), Template: corev1.PodTemplateSpec{Spec: simplePod("backup:2.1", corev1.RestartPolicyOnFailure)}},
				},
				SuccessfulJobsHistoryLimit: ptr[int32](3), FailedJobsHistoryLimit: ptr[int32](1),
			},
			Status: batchv1.CronJobStatus{
				Active:           []corev1.ObjectReference{{Kind: "Job", Namespace: "team-a", Name: "backup-28612345", UID: "0b5e9b8a-4f0e-4b7a-9a39-0c2f0d1c2b3a", APIVersion: "batch/v1", ResourceVersion: "812"}},
				LastScheduleTime: &created,
			},
		},
		"poddisruptionbudget": &policyv1.PodDisruptionBudget{
			TypeMeta:   tm(policyv1.SchemeGroupVersion, "PodDisruptionBudget"),
			ObjectMeta: meta("db"),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MinAvailable:               ptr(intstr.FromString("50%")),
				Selector:                   &metav1.LabelSelector{MatchLabels: labels},
				UnhealthyPodEvictionPolicy: ptr(policyv1.AlwaysAllow),
			},
			Status: policyv1.PodDisruptionBudgetStatus{
				ObservedGeneration: 1, DisruptedPods: map[string]metav1.Time{"db-1": created},
				DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3,
				Conditions: []metav1.Condition{{Type: "DisruptionAllowed", Status: metav1.ConditionTrue, ObservedGeneration: 1, LastTransitionTime: created, Reason: "SufficientPods", Message: ""}},
			},
		},
		"hpa-v2": &autoscalingv2.HorizontalPodAutoscaler{
			TypeMeta:   tm(autoscalingv2.SchemeGroupVersion, "HorizontalPodAutoscaler"),
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a", CreationTimestamp: created},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
				MinReplicas:    ptr[int32](2), MaxReplicas: 10,
				Metrics: []autoscalingv2.MetricSpec{
					{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr[int32](70)}}},
					{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "requests_per_second"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr(resource.MustParse("100"))}}},
					{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricSource{Name: corev1.ResourceMemory, Container: "main", Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr(resource.MustParse("512Mi"))}}},
					{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
						Metric: autoscalingv2.MetricIdentifier{Name: "queue_depth", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"queue": "jobs"}}},
						Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptr(resource.MustParse("30"))},
					}},
				},
				Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{
					ScaleDown: &autoscalingv2.HPAScalingRules{
						StabilizationWindowSeconds: ptr[int32](300), SelectPolicy: ptr(autoscalingv2.MinChangePolicySelect),
						Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 10, PeriodSeconds: 60}},
					},
				},
			},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{
				ObservedGeneration: ptr[int64](1), LastScaleTime: &created, CurrentReplicas: 3, DesiredReplicas: 3,
				CurrentMetrics: []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr[int32](45), AverageValue: ptr(resource.MustParse("45m"))}}}},
				Conditions:     []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, LastTransitionTime: created, Reason: "ReadyForNewScale", Message: "recommended size matches current size"}},
			},
		},
		"hpa-v1": &autoscalingv1.HorizontalPodAutoscaler{
			TypeMeta:   tm(autoscalingv1.SchemeGroupVersion, "HorizontalPodAutoscaler"),
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a", CreationTimestamp: created},
			Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
				ScaleTargetRef:                 autoscalingv1.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
				MinReplicas:                    ptr[int32](1),
				MaxReplicas:                    5,
				TargetCPUUtilizationPercentage: ptr[int32](60),
			},
			Status: autoscalingv1.HorizontalPodAutoscalerStatus{CurrentReplicas: 1, DesiredReplicas: 1, CurrentCPUUtilizationPercentage: ptr[int32](12)},
		},
	}
}
