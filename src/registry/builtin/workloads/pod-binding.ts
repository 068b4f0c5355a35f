/**
 * pods/binding (core/v1 Binding), what a scheduler posts to bind a pod to a node, as kube-apiserver 1.32's
 * BindingREST does:
 *
 * - the Binding's name must be the URL's; `target.kind` must be Node or empty and `target.name` set — refused as
 *   upstream refuses it, with a 500 carrying the field errors' text (ValidatePodBinding's aggregate is not a Status);
 * - in one write, the pod's spec.nodeName becomes the target, the Binding's annotations are added to the pod's, and
 *   the pod gets PodScheduled=True (podutil.UpdatePodCondition); a pod already bound, being deleted, or with
 *   scheduling gates left is a 409 on `pods/binding`; the Binding's uid and resourceVersion are preconditions on the
 *   pod (a 409 on `pods`);
 * - like upstream's, that write is the storage's own: neither the pod's strategy nor its field manager sees it (the
 *   Binding's own create goes through admission), and the answer is a Success Status.
 *
 * The write goes through the `binding` subresource strategy, which only this create uses: the handler serves nothing
 * but POST on a subresource answered by code. kube-apiserver serves the same BindingREST as the namespaced `bindings`
 * resource too (POST /api/v1/namespaces/<ns>/bindings, the pod named by the Binding's own name): bindingsResource.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import { type KubeObject, isPlainObject } from '../../../apimachinery/object.js';
import { errors } from '../../../apimachinery/status.js';
import type { GenericStore } from '../../generic/store.js';
import type { ComputedCreate, ResourceDefinition, SubresourceStrategy } from '../../rest.js';
import { defineBuiltin } from '../define.js';
import { updatePodCondition } from './pod-condition.js';

/** The discovery entry of pods/binding, as kube-apiserver lists it. */
export const bindingSubresource = { name: 'binding', kind: 'Binding', verbs: ['create'] };

/** Copies what a binding changes (node, annotations, conditions) onto the stored pod, nothing else. */
const bindingStrategy: SubresourceStrategy = {
  apply(incoming, current) {
    (current.spec as Record<string, unknown>).nodeName = (incoming.spec as Record<string, unknown>).nodeName;
    const annotations = incoming.metadata?.annotations;
    if (annotations && Object.keys(annotations).length > 0) current.metadata!.annotations = annotations;
    current.status = incoming.status;
    return current;
  },
  validate: () => [],
  keepsManagedFields: true,
};

/** `def` with pods/binding when it is core/v1 Pods; any other definition unchanged. */
export function withPodBinding(def: ResourceDefinition, pods: (cluster: string) => GenericStore | undefined): ResourceDefinition {
  if (def.group !== '' || def.resource !== 'pods' || def.computedCreates?.binding) return def;
  return {
    ...def,
    subresources: [...def.subresources.filter((s) => s.name !== 'binding'), bindingSubresource],
    subresourceStrategies: { ...def.subresourceStrategies, binding: bindingStrategy },
    computedCreates: { ...(def.computedCreates ?? {}), binding: podBindingCreate(pods) },
  };
}

/**
 * core/v1 `bindings` (create only): a Binding posted to the namespace binds the pod of its own name, as the collection
 * POST's handler takes the name from the object when the URL has none.
 */
export function bindingsResource(pods: (cluster: string) => GenericStore | undefined): ResourceDefinition {
  const def = defineBuiltin({ group: '', version: 'v1', resource: 'bindings', kind: 'Binding', namespaced: true, verbs: ['create'], definitionName: 'io.k8s.api.core.v1.Binding' });
  return { ...def, computedCreates: { '': podBindingCreate(pods) }, unstored: true };
}

function podBindingCreate(podsOf: (cluster: string) => GenericStore | undefined): ComputedCreate {
  const create: ComputedCreate = async (ctx, urlReq) => {
    const binding = urlReq.object as KubeObject & { target?: { kind?: unknown; name?: unknown } };
    const meta = isPlainObject(binding.metadata) ? binding.metadata : {};
    // POST .../bindings names no pod in its URL: the Binding's own name does (the create handler takes an unnamed
    // URL's name from the object). Not being a subresource, it also has its uid wiped as any create's.
    const legacy = urlReq.subresource === '';
    const req = legacy ? { ...urlReq, name: typeof meta.name === 'string' ? meta.name : '' } : urlReq;
    if ((meta.name ?? '') !== req.name) throw errors.badRequest('name in URL does not match name in Binding object');
    const target = isPlainObject(binding.target) ? binding.target : {};
    const kind = typeof target.kind === 'string' ? target.kind : '';
    const node = typeof target.name === 'string' ? target.name : '';
    const problems: fe.FieldError[] = [];
    if (kind !== '' && kind !== 'Node') problems.push(fe.notSupported('target.kind', kind, ['Node', '<empty>']));
    if (node === '') problems.push(fe.required('target.name'));
    // errs.ToAggregate(): not a Status, so the handler answers 500 with its text (one error alone, or `[a, b]`).
    if (problems.length > 0) throw errors.unknown(problems.length === 1 ? fe.errorString(problems[0]!) : `[${problems.map(fe.errorString).join(', ')}]`);
    if (req.validate) await req.validate(binding);
    // The pod's storage key needs a name (NamespaceKeyFunc).
    if (req.name === '') throw errors.badRequest('Name parameter required.');
    const pods = podsOf(ctx.cluster);
    if (!pods) throw errors.notFound({ group: '', resource: 'pods' }, req.name);
    const uid = !legacy && typeof meta.uid === 'string' && meta.uid !== '' ? meta.uid : undefined;
    const resourceVersion = typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' ? meta.resourceVersion : undefined;
    const annotations = isPlainObject(meta.annotations) ? (meta.annotations as Record<string, string>) : {};
    const refused = (why: string) => errors.conflict({ group: '', resource: 'pods/binding' }, req.name, why);
    await pods.guaranteedUpdate(
      ctx,
      req.namespace,
      req.name,
      (current) => {
        const pod = current!;
        if (uid !== undefined && uid !== pod.metadata?.uid) throw preconditionFailed(req.namespace, req.name, `UID in precondition: ${uid}, UID in object meta: ${pod.metadata?.uid ?? ''}`);
        if (resourceVersion !== undefined && resourceVersion !== pod.metadata?.resourceVersion) {
          throw preconditionFailed(req.namespace, req.name, `ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${pod.metadata?.resourceVersion ?? ''}`);
        }
        const spec = (isPlainObject(pod.spec) ? pod.spec : (pod.spec = {})) as { nodeName?: string; schedulingGates?: unknown[] };
        if (pod.metadata?.deletionTimestamp) throw refused(`pod ${req.name} is being deleted, cannot be assigned to a host`);
        if (spec.nodeName) throw refused(`pod ${req.name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
        if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) throw refused(`pod ${req.name} has non-empty .spec.schedulingGates`);
        spec.nodeName = node;
        pod.metadata = { ...(pod.metadata ?? {}), annotations: { ...(pod.metadata?.annotations ?? {}), ...annotations } };
        pod.status = { ...((pod.status ?? {}) as Record<string, unknown>), conditions: updatePodCondition((pod.status as { conditions?: Record<string, unknown>[] } | undefined)?.conditions, { type: 'PodScheduled', status: 'True' }) };
        return pod;
      },
      { dryRun: req.dryRun === true },
      'binding',
    );
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } as KubeObject;
  };
  create.admitted = true;
  return create;
}

/**
 * A failed precondition as upstream's storage reports it through InterpretUpdateError (a Conflict on pods quoting the
 * storage error; the key is kube-apiserver's etcd key of the pod, whatever this server's storage calls it).
 */
function preconditionFailed(namespace: string, name: string, detail: string) {
  return errors.conflict({ group: '', resource: 'pods' }, name, `StorageError: invalid object, Code: 4, Key: /registry/pods/${namespace}/${name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ${detail}`);
}
