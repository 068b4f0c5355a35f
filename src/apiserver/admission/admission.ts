import type { KubeObject } from '../../apimachinery/object.js';
import type { RequestContext, ResourceDefinition } from '../../registry/rest.js';

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  ctx: RequestContext;
  def: ResourceDefinition;
  namespace: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  subresource?: string;
  /**
   * The kind of `object` when it is not the resource's (or its subresource's) own: a connect subresource's options
   * (pods/exec is reviewed as v1 PodExecOptions, upstream's scope.Kind for a rest.Connecter).
   */
  kind?: { group: string; version: string; kind: string };
  /** A dry run: plugins must not persist side effects (the quota plugin does not charge usage). */
  dryRun?: boolean;
  /**
   * The request's options as a Kubernetes object (meta.k8s.io/v1 CreateOptions, UpdateOptions, DeleteOptions, or a
   * subresource's connect options), as admission webhooks see them in AdmissionRequest.options.
   */
  options?: Record<string, unknown>;
  /** Warnings for the response (`Warning` headers): admission webhooks add theirs here. */
  warnings?: string[];
  /** Audit annotations plugins add (admission webhooks' `auditAnnotations`, prefixed with the webhook's name). */
  auditAnnotations?: Record<string, string>;
}

/**
 * An admission plugin (k8s.io/apiserver pkg/admission): `admit` is its mutating phase, run before the object is
 * validated, and may change the object; `validate` is its validating phase, run once the resource's strategy has
 * defaulted and validated the object, just before it is stored, and may only refuse. Either refuses by throwing a
 * StatusError. Upstream's order applies within each phase: every plugin's `admit` in plugin order (NamespaceLifecycle,
 * LimitRanger, the features', MutatingAdmissionWebhook, ResourceQuota), then every plugin's `validate` in plugin order
 * (ValidatingAdmissionPolicy just before ValidatingAdmissionWebhook).
 */
export interface AdmissionPlugin {
  readonly name: string;
  /**
   * Whether the plugin reviews CONNECT requests (upstream's Handles(admission.Connect)): the webhooks and the
   * admission policies do; the others see only CREATE, UPDATE and DELETE.
   */
  readonly handlesConnect?: boolean;
  admit?(attrs: AdmissionAttributes): Promise<void> | void;
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
}

/** Runs plugins in order; the first refusal wins. */
export class Admission {
  private readonly mutating: AdmissionPlugin[];
  private readonly validating: AdmissionPlugin[];
  constructor(plugins: AdmissionPlugin[]) {
    this.mutating = plugins.filter((p) => p.admit);
    this.validating = plugins.filter((p) => p.validate);
  }

  /** The mutating phase. */
  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.mutating) await p.admit!(attrs);
  }

  /** Whether any plugin has a validating phase (the handlers skip building the hook otherwise). */
  get validates(): boolean {
    return this.validating.length > 0;
  }

  /**
   * Admission of a CONNECT request (handlers/rest.go ConnectResource): the mutating then the validating phase of the
   * plugins that handle CONNECT, on the options object, before the connection is made.
   */
  async connect(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.mutating) if (p.handlesConnect) await p.admit!(attrs);
    for (const p of this.validating) if (p.handlesConnect) await p.validate!(attrs);
  }

  /** The validating phase, on the object as it will be stored (and the stored one for updates and deletes). */
  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.validating) await p.validate!(attrs);
  }
}
