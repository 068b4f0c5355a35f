package main

// Workload fixtures: the apps/v1 and core/v1 types a physical cluster serves. They exercise the Go structs that
// JSON inlines but protobuf nests (Volume's VolumeSource, Probe's ProbeHandler, LocalObjectReference in the
// config map / secret selectors), int-or-string ports, quantities and resource maps.

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func podSpec() corev1.PodSpec {
	return corev1.PodSpec{
		Volumes: []corev1.Volume{
			{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log", Type: ptr(corev1.HostPathDirectory)}}},
			{Name: "settings", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "settings"},
				Items:                []corev1.KeyToPath{{Key: "app.yaml", Path: "app.yaml", Mode: ptr[int32](0o444)}},
				DefaultMode:          ptr[int32](0o644),
			}}},
			{Name: "creds", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "creds", Optional: ptr(false)}}},
			{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: ptr(resource.MustParse("64Mi"))}}},
			{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
		InitContainers: []corev1.Container{{Name: "init", Image: "busybox:1.36", Command: []string{"sh", "-c", "true"}}},
		Containers: []corev1.Container{
			{
				Name:    "web",
				Image:   "nginx:1.27",
				Args:    []string{"--port", "8080"},
				Ports:   []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}, {ContainerPort: 9090, HostPort: 19090, Protocol: corev1.ProtocolUDP}},
				EnvFrom: []corev1.EnvFromSource{{Prefix: "CFG_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}, Optional: ptr(true)}}},
				Env: []corev1.EnvVar{
					{Name: "MODE", Value: "production"},
					{Name: "EMPTY"},
					{Name: "PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Key: "password"}}},
					{Name: "LEVEL", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}, Key: "level", Optional: ptr(false)}}},
					{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
					{Name: "MEM_LIMIT", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}}},
				},
				Resources: corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				},
				VolumeMounts: []corev1.VolumeMount{
					{Name: "host", MountPath: "/host/log", ReadOnly: true},
					{Name: "settings", MountPath: "/etc/app", SubPath: "app.yaml"},
					{Name: "creds", MountPath: "/etc/creds"},
					{Name: "scratch", MountPath: "/tmp"},
				},
				LivenessProbe: &corev1.Probe{
					ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
						Path: "/healthz", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP,
						HTTPHeaders: []corev1.HTTPHeader{{Name: "X-Probe", Value: "liveness"}},
					}},
					InitialDelaySeconds: 5, PeriodSeconds: 10, FailureThreshold: 3, TimeoutSeconds: 1, SuccessThreshold: 1,
				},
				ReadinessProbe: &corev1.Probe{
					ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)}},
					PeriodSeconds: 5,
				},
				StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/started"}}}, FailureThreshold: 30},
				Lifecycle: &corev1.Lifecycle{
					PreStop:   &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"nginx", "-s", "quit"}}},
					PostStart: &corev1.LifecycleHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}},
				},
				TerminationMessagePath:   "/dev/termination-log",
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy:          corev1.PullIfNotPresent,
				SecurityContext: &corev1.SecurityContext{
					RunAsNonRoot: ptr(true), RunAsUser: ptr[int64](1000), AllowPrivilegeEscalation: ptr(false),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			},
			{
				Name:           "sidecar",
				Image:          "busybox:1.36",
				Command:        []string{"sleep", "infinity"},
				LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(9090)}}, InitialDelaySeconds: 2},
			},
		},
		RestartPolicy:                 corev1.RestartPolicyAlways,
		TerminationGracePeriodSeconds: ptr[int64](30),
		DNSPolicy:                     corev1.DNSClusterFirst,
		NodeSelector:                  map[string]string{"kubernetes.io/os": "linux"},
		ServiceAccountName:            "web",
		AutomountServiceAccountToken:  ptr(false),
		SecurityContext:               &corev1.PodSecurityContext{FSGroup: ptr[int64](2000)},
		ImagePullSecrets:              []corev1.LocalObjectReference{{Name: "registry"}},
		SchedulerName:                 corev1.DefaultSchedulerName,
		Tolerations: []corev1.Toleration{
			{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr[int64](300)},
		},
		EnableServiceLinks: ptr(true),
	}
}

func workloadFixtures() map[string]runtime.Object {
	core := corev1.SchemeGroupVersion
	apps := appsv1.SchemeGroupVersion
	labels := map[string]string{"app": "web"}
	return map[string]runtime.Object{
		"deployment": &appsv1.Deployment{
			TypeMeta:   tm(apps, "Deployment"),
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a", Labels: labels, Generation: 2, CreationTimestamp: created},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr[int32](3),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"kubectl.kubernetes.io/restartedAt": "2024-05-17T09:30:12Z"}},
					Spec:       podSpec(),
				},
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxUnavailable: ptr(intstr.FromInt32(0)), MaxSurge: ptr(intstr.FromString("25%")),
				}},
				RevisionHistoryLimit:    ptr[int32](10),
				ProgressDeadlineSeconds: ptr[int32](600),
			},
			Status: appsv1.DeploymentStatus{
				ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2, UnavailableReplicas: 1,
				Conditions: []appsv1.DeploymentCondition{{
					Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, LastUpdateTime: later, LastTransitionTime: created,
					Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability.",
				}},
			},
		},
		// What `kubectl create deployment web --image=nginx` sends.
		"deployment-minimal": &appsv1.Deployment{
			TypeMeta:   tm(apps, "Deployment"),
			ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr[int32](1),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
				},
			},
		},
		"replicaset": &appsv1.ReplicaSet{
			TypeMeta:   tm(apps, "ReplicaSet"),
			ObjectMeta: metav1.ObjectMeta{Name: "web-5d4f8c", Namespace: "team-a", Labels: map[string]string{"app": "web", "pod-template-hash": "5d4f8c"}},
			Spec: appsv1.ReplicaSetSpec{
				Replicas: ptr[int32](0), MinReadySeconds: 5,
				Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}}}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}}},
			},
			Status: appsv1.ReplicaSetStatus{Replicas: 0, ObservedGeneration: 4},
		},
		"pod": &corev1.Pod{
			TypeMeta:   tm(core, "Pod"),
			ObjectMeta: metav1.ObjectMeta{Name: "web-5d4f8c-x2x7q", Namespace: "team-a", Labels: labels, GenerateName: "web-5d4f8c-"},
			Spec: func() corev1.PodSpec {
				spec := podSpec()
				spec.NodeName = "node-1"
				spec.Volumes = append(spec.Volumes,
					corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data", ReadOnly: true}}},
					corev1.Volume{Name: "bundle", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
						Sources: []corev1.VolumeProjection{
							{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Items: []corev1.KeyToPath{{Key: "password", Path: "pw"}}}},
							{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}},
							{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr[int64](3607), Path: "token"}},
						},
						DefaultMode: ptr[int32](420),
					}}},
				)
				spec.EphemeralContainers = []corev1.EphemeralContainer{{
					EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger", Image: "busybox:1.36", Stdin: true, TTY: true,
						Env: []corev1.EnvVar{{Name: "TARGET", Value: "web"}}},
					TargetContainerName: "web",
				}}
				return spec
			}(),
			Status: corev1.PodStatus{
				Phase: corev1.PodRunning, HostIP: "10.0.0.11", PodIP: "10.244.1.7", PodIPs: []corev1.PodIP{{IP: "10.244.1.7"}},
				StartTime: &created, QOSClass: corev1.PodQOSBurstable,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: later}},
				ContainerStatuses: []corev1.ContainerStatus{{
					Name: "web", Ready: true, RestartCount: 0, Image: "nginx:1.27", ImageID: "docker.io/library/nginx@sha256:0123", ContainerID: "containerd://abc",
					Started: ptr(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: created}},
				}},
			},
		},
		"service": &corev1.Service{
			TypeMeta:   tm(core, "Service"),
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a"},
			Spec: corev1.ServiceSpec{
				Type:     corev1.ServiceTypeNodePort,
				Selector: labels,
				Ports: []corev1.ServicePort{
					{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromString("http"), NodePort: 30080},
					{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 9090, TargetPort: intstr.FromInt32(9090), AppProtocol: ptr("http")},
				},
				ClusterIP: "10.96.12.34", ClusterIPs: []string{"10.96.12.34"},
				SessionAffinity:       corev1.ServiceAffinityNone,
				ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyCluster,
				IPFamilies:            []corev1.IPFamily{corev1.IPv4Protocol},
				IPFamilyPolicy:        ptr(corev1.IPFamilyPolicySingleStack),
				InternalTrafficPolicy: ptr(corev1.ServiceInternalTrafficPolicyCluster),
			},
		},
		"node": &corev1.Node{
			TypeMeta:   tm(core, "Node"),
			ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"kubernetes.io/hostname": "node-1"}},
			Spec: corev1.NodeSpec{PodCIDR: "10.244.1.0/24", PodCIDRs: []string{"10.244.1.0/24"},
				Taints: []corev1.Taint{{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule, TimeAdded: &later}}},
			Status: corev1.NodeStatus{
				Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110")},
				Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3800m"), corev1.ResourceMemory: resource.MustParse("15Gi"), corev1.ResourcePods: resource.MustParse("110")},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: later, LastTransitionTime: created,
					Reason: "KubeletReady", Message: "kubelet is posting ready status"}},
				Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.11"}, {Type: corev1.NodeHostName, Address: "node-1"}},
				DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
				NodeInfo: corev1.NodeSystemInfo{MachineID: "m", SystemUUID: "s", BootID: "b", KernelVersion: "6.1.0", OSImage: "Debian", ContainerRuntimeVersion: "containerd://1.7.0",
					KubeletVersion: "v1.32.0", KubeProxyVersion: "v1.32.0", OperatingSystem: "linux", Architecture: "amd64"},
				Images: []corev1.ContainerImage{{Names: []string{"docker.io/library/nginx:1.27"}, SizeBytes: 67000000}},
			},
		},
	}
}
