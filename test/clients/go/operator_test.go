package clients

// A small application operator written the way operators are written with controller-runtime: a typed custom
// resource (example.atrium.dev/v1 WebApp, CRD in testdata/webapps.example.atrium.dev.yaml), a manager from a plain
// rest.Config, and a reconciler that owns bare Pods, a Service and a migration Job and reports their state in the
// WebApp's status. Nothing in it knows about atrium, workspaces or clusters: it is handed a kubeconfig (whose server
// may be a workspace, https://host/clusters/root:shop) and does what it would do against any Kubernetes cluster.
//
// It is run by test/e2e/operator-placement.test.ts, which starts atrium with simulated clusters bound to a workspace,
// installs the CRD there and runs this test binary as a long-lived process:
//
//	clients.test -test.run '^TestOperatorWebApp$'   with ATRIUM_KUBECONFIG (into the workspace) and ATRIUM_OPERATOR=run
//
// The operator runs until it receives SIGTERM or SIGINT or its stdin is closed (so it never outlives the test that
// started it), then stops the manager and passes. Without ATRIUM_OPERATOR=run (a plain `go test ./...` of the client
// suite against a server whose workspace has no compute, so no Pods or Jobs) the test skips, saying who runs it.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// operatorEnv must be "run" for TestOperatorWebApp to run the operator.
const operatorEnv = "ATRIUM_OPERATOR"

// webAppGroupVersion is the API of the WebApp custom resource.
var webAppGroupVersion = schema.GroupVersion{Group: "example.atrium.dev", Version: "v1"}

// WebAppSpec is what the user asks for: replicas bare Pods running image behind a Service and, when migrate is set,
// a Job that migrates the database first.
type WebAppSpec struct {
	Replicas int32  `json:"replicas"`
	Image    string `json:"image"`
	Migrate  bool   `json:"migrate,omitempty"`
}

// WebAppStatus is what the operator reports: how many of the Pods are Ready, whether the migration Job succeeded, and
// a Ready condition summing both up.
type WebAppStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	ReadyPods          int32              `json:"readyPods"`
	JobSucceeded       bool               `json:"jobSucceeded"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// WebApp is example.atrium.dev/v1 WebApp, namespaced, with a status subresource.
type WebApp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WebAppSpec   `json:"spec,omitempty"`
	Status            WebAppStatus `json:"status,omitempty"`
}

// WebAppList is a list of WebApps.
type WebAppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WebApp `json:"items"`
}

// DeepCopyInto, DeepCopy and DeepCopyObject are what controller-gen would generate.
func (in *WebApp) DeepCopyInto(out *WebApp) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = in.Spec
	out.Status = in.Status
	if in.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(in.Status.Conditions))
		for i := range in.Status.Conditions {
			in.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

func (in *WebApp) DeepCopy() *WebApp {
	if in == nil {
		return nil
	}
	out := new(WebApp)
	in.DeepCopyInto(out)
	return out
}

func (in *WebApp) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *WebAppList) DeepCopyInto(out *WebAppList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]WebApp, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

func (in *WebAppList) DeepCopy() *WebAppList {
	if in == nil {
		return nil
	}
	out := new(WebAppList)
	in.DeepCopyInto(out)
	return out
}

func (in *WebAppList) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// operatorScheme knows the built-in types and WebApp.
func operatorScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	scheme.AddKnownTypes(webAppGroupVersion, &WebApp{}, &WebAppList{})
	metav1.AddToGroupVersion(scheme, webAppGroupVersion)
	return scheme, nil
}

// The labels, names and condition the operator uses.
const (
	webAppLabel        = "app"
	webAppIndexLabel   = "example.atrium.dev/index"
	webAppFieldManager = "webapp-operator"
	webAppReady        = "Ready"
)

func webAppPodName(app *WebApp, i int32) string { return fmt.Sprintf("%s-%d", app.Name, i) }
func webAppJobName(app *WebApp) string          { return app.Name + "-migrate" }

// webAppReconciler keeps, for each WebApp, spec.replicas bare Pods <name>-<i>, a Service <name> selecting them and,
// when spec.migrate, a Job <name>-migrate, all owned by the WebApp (controller references, so the garbage collector
// removes them with it), and writes the WebApp's status through the status subresource.
type webAppReconciler struct {
	client.Client
	scheme *runtime.Scheme
}

func (r *webAppReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	app := &WebApp{}
	if err := r.Get(ctx, req.NamespacedName, app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // the garbage collector removes what it owns
	}

	// Pods <name>-0 ... <name>-(replicas-1); extra ones (after a scale-down) are deleted.
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(app.Namespace), client.MatchingLabels{webAppLabel: app.Name}); err != nil {
		return ctrl.Result{}, err
	}
	existing := map[string]*corev1.Pod{}
	for i := range pods.Items {
		if metav1.IsControlledBy(&pods.Items[i], app) {
			existing[pods.Items[i].Name] = &pods.Items[i]
		}
	}
	var readyPods int32
	for i := int32(0); i < app.Spec.Replicas; i++ {
		name := webAppPodName(app, i)
		if pod, ok := existing[name]; ok {
			delete(existing, name)
			if podReady(pod) {
				readyPods++
			}
			continue
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: app.Namespace,
				Labels: map[string]string{webAppLabel: app.Name, webAppIndexLabel: strconv.Itoa(int(i))},
			},
			Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyAlways,
				Containers: []corev1.Container{{
					Name: "web", Image: app.Spec.Image,
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
				}},
			},
		}
		if err := controllerutil.SetControllerReference(app, pod, r.scheme); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, pod, client.FieldOwner(webAppFieldManager)); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, fmt.Errorf("creating Pod %s: %w", name, err)
		}
		log.Info("created Pod", "pod", name)
	}
	for name, pod := range existing {
		if err := r.Delete(ctx, pod); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("deleting Pod %s: %w", name, err)
		}
		log.Info("deleted Pod", "pod", name)
	}

	// The Service selecting the Pods.
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		if svc.Labels == nil {
			svc.Labels = map[string]string{}
		}
		svc.Labels[webAppLabel] = app.Name
		svc.Spec.Selector = map[string]string{webAppLabel: app.Name}
		svc.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}}
		return controllerutil.SetControllerReference(app, svc, r.scheme)
	})
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("creating or updating Service %s: %w", app.Name, err)
	}
	if op != controllerutil.OperationResultNone {
		log.Info("Service "+string(op), "service", app.Name)
	}

	// The migration Job, when asked for.
	jobSucceeded := false
	job := &batchv1.Job{}
	jobKey := client.ObjectKey{Namespace: app.Namespace, Name: webAppJobName(app)}
	err = r.Get(ctx, jobKey, job)
	switch {
	case err == nil && !app.Spec.Migrate && metav1.IsControlledBy(job, app):
		if err := r.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("deleting Job %s: %w", jobKey.Name, err)
		}
	case err == nil:
		jobSucceeded = jobComplete(job)
	case apierrors.IsNotFound(err) && app.Spec.Migrate:
		job = &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: jobKey.Name, Namespace: app.Namespace, Labels: map[string]string{webAppLabel: app.Name}},
			Spec: batchv1.JobSpec{
				BackoffLimit: ptr.To[int32](2),
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{webAppLabel + "-job": jobKey.Name}},
					Spec: corev1.PodSpec{
						RestartPolicy: corev1.RestartPolicyNever,
						Containers:    []corev1.Container{{Name: "migrate", Image: app.Spec.Image, Command: []string{"/app/migrate", "--to=latest"}}},
					},
				},
			},
		}
		if err := controllerutil.SetControllerReference(app, job, r.scheme); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, job, client.FieldOwner(webAppFieldManager)); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, fmt.Errorf("creating Job %s: %w", jobKey.Name, err)
		}
		log.Info("created Job", "job", jobKey.Name)
	case !apierrors.IsNotFound(err):
		return ctrl.Result{}, err
	}

	// Status, from the Pods and the Job as the workspace shows them.
	status := WebAppStatus{ObservedGeneration: app.Generation, ReadyPods: readyPods, JobSucceeded: jobSucceeded}
	status.Conditions = append([]metav1.Condition(nil), app.Status.Conditions...)
	ready := metav1.Condition{Type: webAppReady, ObservedGeneration: app.Generation}
	switch {
	case readyPods < app.Spec.Replicas:
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, "PodsNotReady", fmt.Sprintf("%d of %d pods are ready", readyPods, app.Spec.Replicas)
	case app.Spec.Migrate && !jobSucceeded:
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, "MigrationPending", fmt.Sprintf("job %s has not succeeded yet", jobKey.Name)
	default:
		ready.Status, ready.Reason, ready.Message = metav1.ConditionTrue, "AllReady", fmt.Sprintf("%d pods ready", readyPods)
		if app.Spec.Migrate {
			ready.Message += ", migration done"
		}
	}
	meta.SetStatusCondition(&status.Conditions, ready)
	if equality.Semantic.DeepEqual(status, app.Status) {
		return ctrl.Result{}, nil
	}
	app.Status = status
	if err := r.Status().Update(ctx, app, client.FieldOwner(webAppFieldManager)); err != nil {
		return ctrl.Result{}, fmt.Errorf("updating status: %w", err)
	}
	log.Info("status", "readyPods", status.ReadyPods, "jobSucceeded", status.JobSucceeded, "ready", ready.Status, "reason", ready.Reason)
	return ctrl.Result{}, nil
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func jobComplete(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// newWebAppManager builds the manager with the WebApp controller: For WebApps, Owns Pods, Services and Jobs.
func newWebAppManager(cfg *rest.Config, logger logr.Logger) (ctrl.Manager, error) {
	scheme, err := operatorScheme()
	if err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Logger:                 logger,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
	})
	if err != nil {
		return nil, fmt.Errorf("NewManager: %w", err)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		For(&WebApp{}).
		Owns(&corev1.Pod{}).
		Owns(&corev1.Service{}).
		Owns(&batchv1.Job{}).
		Complete(&webAppReconciler{Client: mgr.GetClient(), scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("building the WebApp controller: %w", err)
	}
	return mgr, nil
}

// TestOperatorWebApp runs the WebApp operator until it is told to stop (see the file comment).
func TestOperatorWebApp(t *testing.T) {
	if os.Getenv(operatorEnv) != "run" {
		t.Skipf("the WebApp operator runs as a process of test/e2e/operator-placement.test.ts (%s=run, %s into a workspace with compute)", operatorEnv, kubeconfigEnv)
	}
	logger := funcr.New(func(prefix, args string) {
		fmt.Fprintln(os.Stderr, strings.TrimSpace(prefix+" "+args))
	}, funcr.Options{Verbosity: 0})
	ctrl.SetLogger(logger)
	cfg := restConfig(t)
	cfg.UserAgent = "webapp-operator"
	mgr, err := newWebAppManager(cfg, logger)
	if err != nil {
		t.Fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		// The parent holds our stdin open; when it goes (exits, is killed) the operator goes too.
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	go func() {
		// Ready once the informers of all four watched kinds have listed (GetInformer blocks until its informer synced).
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return
		}
		for _, obj := range []client.Object{&WebApp{}, &corev1.Pod{}, &corev1.Service{}, &batchv1.Job{}} {
			if _, err := mgr.GetCache().GetInformer(ctx, obj); err != nil {
				fmt.Fprintf(os.Stderr, "webapp-operator: informer for %T: %v\n", obj, err)
				return
			}
		}
		fmt.Println("webapp-operator: caches synced, reconciling WebApps in", cfg.Host)
	}()
	if err := <-done; err != nil {
		t.Fatalf("manager: %v", err)
	}
	fmt.Println("webapp-operator: stopped")
}
