/**
 * Type negotiation, in atrium, per (workspace, group, resource): gathers the APIResourceImports every SyncTarget's
 * syncer reported and decides what the workspace serves.
 *
 * - Enforced: the workspace serves the resource by other means, and every import is checked against that schema
 *   (checkAccepts): the Kubernetes workload types a workspace with compute serves built in
 *   (workspaceWorkloadResources: Deployments, Pods, ...; their schema comes from the type catalog, and no CRD is ever
 *   published for them, not even when a negotiated CRD of the same name is left from an older version), the other
 *   built-ins (ConfigMap, Service, ...) and CRDs a user created.
 * - Negotiated: any other type a cluster brings (an operator's CRD): imports are folded, oldest SyncTarget first,
 *   into their lowest common denominator; an import that cannot be folded is Incompatible (with the exact field
 *   path). The result is published as a CRD annotated NEGOTIATED_ANNOTATION, with the short names and categories the
 *   cluster's discovery gives, updated as clusters come, go or change.
 *
 * Each import gets conditions `Compatible` (False carries `<path>: <reason>`) and `Available` (the type is served).
 * A negotiated CRD is never deleted automatically: deleting it would delete every object of the type.
 */
import { isConditionTrue, setStatusCondition } from '../../apimachinery/conditions.js';
import { deepCopy, jsonEqual, nowRFC3339, type KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { Informer } from '../../client/informer.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { clusterOf, formatObjectKey } from '../../client/store.js';
import { commit, stripClusterAnnotation } from '../../controllers/runtime/committer.js';
import { Controller } from '../../controllers/runtime/controller.js';
import type { ControllerInstaller } from '../../controllers/runtime/context.js';
import { apiResourceImportsGVR, crdsGVR, NEGOTIATED_ANNOTATION, syncTargetsGVR, type APIResourceImport, type Condition, type SyncTarget } from '../api/types.js';
import { workspaceWorkloadResource } from '../api/workload-resources.js';
import { builtinStructuralSchema } from '../schema/builtin-schema.js';
import { checkAccepts, formatIncompatibility, lowestCommonDenominator } from '../schema/compat.js';
import { definitionNameFor, structuralSchemaFromOpenAPI } from '../schema/from-openapi.js';
import { contentHash } from '../syncer/transform.js';

/** On a negotiated CRD: hash of the spec negotiation last wrote. */
const NEGOTIATED_HASH_ANNOTATION = 'apiresource.kcp.io/negotiated-spec-hash';

type Schema = Record<string, unknown>;

/** Queue key: `<cluster>|<group>/<resource>`. */
function negotiationKey(cluster: string, group: string, resource: string): string {
  return `${cluster}|${group}/${resource}`;
}

function parseNegotiationKey(key: string): { cluster: string; group: string; resource: string } {
  const bar = key.indexOf('|');
  const rest = key.slice(bar + 1);
  const slash = rest.indexOf('/');
  return { cluster: key.slice(0, bar), group: rest.slice(0, slash), resource: rest.slice(slash + 1) };
}

export interface NegotiationDecision {
  /** The schema to publish (negotiated) or the enforced one. */
  schema?: Schema;
  version?: string;
  /** Per import name: undefined = compatible, else the reason. */
  verdicts: Map<string, string | undefined>;
}

/**
 * The pure decision: given imports in preference order (oldest SyncTarget first) and an optional enforced schema,
 * which imports are compatible and what schema results. Imports of another version than the first one's are
 * incompatible (one served version per resource).
 */
export function negotiate(imports: APIResourceImport[], enforced?: { version: string; schema: Schema }): NegotiationDecision {
  const verdicts = new Map<string, string | undefined>();
  if (enforced) {
    for (const imp of imports) {
      if (imp.spec.groupVersion.version !== enforced.version) {
        verdicts.set(imp.metadata!.name!, `the cluster serves version ${imp.spec.groupVersion.version}, the workspace serves ${enforced.version}`);
        continue;
      }
      const issues = checkAccepts(enforced.schema, imp.spec.openAPIV3Schema);
      verdicts.set(imp.metadata!.name!, issues.length ? issues.map(formatIncompatibility).join('; ') : undefined);
    }
    return { schema: enforced.schema, version: enforced.version, verdicts };
  }
  let schema: Schema | undefined;
  let version: string | undefined;
  for (const imp of imports) {
    const name = imp.metadata!.name!;
    if (!schema) {
      schema = deepCopy(imp.spec.openAPIV3Schema);
      version = imp.spec.groupVersion.version;
      verdicts.set(name, undefined);
      continue;
    }
    if (imp.spec.groupVersion.version !== version) {
      verdicts.set(name, `the cluster serves version ${imp.spec.groupVersion.version}, the negotiated version is ${version}`);
      continue;
    }
    const r = lowestCommonDenominator(schema, imp.spec.openAPIV3Schema);
    if (r.incompatibilities.length) {
      verdicts.set(name, r.incompatibilities.map(formatIncompatibility).join('; '));
      continue;
    }
    schema = r.schema;
    verdicts.set(name, undefined);
  }
  return { schema, version, verdicts };
}

/** The CRD that publishes a negotiated schema. */
export function negotiatedCRD(imp: APIResourceImport, schema: Schema, subresources: string[]): KubeObject {
  const s = imp.spec;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${s.plural}.${s.groupVersion.group}`, annotations: { [NEGOTIATED_ANNOTATION]: 'true' } },
    spec: {
      group: s.groupVersion.group,
      scope: s.scope,
      names: {
        plural: s.plural,
        singular: s.singular ?? s.kind.toLowerCase(),
        kind: s.kind,
        listKind: s.listKind ?? `${s.kind}List`,
        ...(s.shortNames?.length ? { shortNames: s.shortNames } : {}),
        ...(s.categories?.length ? { categories: s.categories } : {}),
      },
      versions: [
        {
          name: s.groupVersion.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          ...(subresources.includes('status') ? { subresources: { status: {} } } : {}),
        },
      ],
    },
  };
}

export const negotiationControllerInstaller: ControllerInstaller = {
  name: 'apiresource-negotiation',
  install(ctx) {
    const imports = ctx.informers.informerFor<APIResourceImport>(apiResourceImportsGVR, { cluster: '*' });
    const crds = ctx.informers.informerFor(crdsGVR, { cluster: '*' });
    const targets = ctx.informers.informerFor<SyncTarget>(syncTargetsGVR, { cluster: '*' });
    const nativeSchemas = new Map<string, { version: string; schema: Schema } | null>();
    const decisions = new Map<string, { signature: string; decision: NegotiationDecision }>();
    const controller = new Controller({
      name: 'apiresource-negotiation',
      workers: 2,
      reconcile: (key) => reconcile(ctx.client, key, imports, crds, targets, nativeSchemas, decisions),
    });
    const enqueueImport = (o: APIResourceImport) => {
      if (o.spec?.groupVersion) controller.enqueue(negotiationKey(clusterOf(o), o.spec.groupVersion.group, o.spec.plural));
    };
    imports.addEventHandler({ add: enqueueImport, update: (_o, n) => enqueueImport(n), delete: enqueueImport });
    const enqueueCRD = (o: KubeObject) => {
      const spec = o.spec as { group?: string; names?: { plural?: string } } | undefined;
      if (spec?.group && spec.names?.plural) controller.enqueue(negotiationKey(clusterOf(o), spec.group, spec.names.plural));
    };
    crds.addEventHandler({ add: enqueueCRD, update: (_o, n) => enqueueCRD(n), delete: enqueueCRD });
    const enqueueTarget = (o: KubeObject) => {
      for (const imp of imports.lister.list()) if (clusterOf(imp) === clusterOf(o) && imp.spec?.location === o.metadata?.name) enqueueImport(imp);
    };
    targets.addEventHandler({ add: enqueueTarget, delete: enqueueTarget });
    return { name: 'apiresource-negotiation', start: () => controller.start(), stop: () => controller.stop() };
  },
};

async function reconcile(
  client: RestClient,
  key: string,
  imports: Informer<APIResourceImport>,
  crds: Informer,
  targets: Informer<SyncTarget>,
  nativeSchemas: Map<string, { version: string; schema: Schema } | null>,
  decisions: Map<string, { signature: string; decision: NegotiationDecision }> = new Map(),
): Promise<{ requeueAfterMs: number } | void> {
  const { cluster, group, resource } = parseNegotiationKey(key);
  const targetOf = (imp: APIResourceImport) => targets.lister.get(formatObjectKey({ cluster, namespace: '', name: imp.spec.location }));
  const mine = imports.lister
    .list()
    .filter((i) => clusterOf(i) === cluster && i.spec?.groupVersion?.group === group && i.spec.plural === resource && targetOf(i) && !targetOf(i)!.metadata?.deletionTimestamp)
    .sort((a, b) => {
      const ta = targetOf(a)!.metadata!;
      const tb = targetOf(b)!.metadata!;
      return String(ta.creationTimestamp).localeCompare(String(tb.creationTimestamp)) || String(ta.name).localeCompare(String(tb.name));
    });
  if (mine.length === 0) {
    decisions.delete(key);
    return;
  }
  const crd = crds.lister.get(formatObjectKey({ cluster, namespace: '', name: `${resource}.${group}` }));
  const negotiatedHere = crd?.metadata?.annotations?.[NEGOTIATED_ANNOTATION] === 'true';
  // A workload type served natively: its built-in schema is enforced, whatever CRD of that name an older version
  // negotiated (left in place, hidden by the native type, never updated again).
  const native = workspaceWorkloadResource(group, resource);
  let enforced: { version: string; schema: Schema } | undefined;
  if (native) enforced = { version: native.version, schema: builtinStructuralSchema(native.definitionName) };
  else if (crd && !negotiatedHere) enforced = crdSchema(crd);
  else if (!crd) enforced = (await nativeSchema(client, cluster, group, resource, mine[0]!, nativeSchemas)) ?? undefined;
  // Re-deciding compares every import's schema with the result so far: cache the decision for the inputs it came
  // from, since most passes follow status writes.
  const enforcingCRD = !native && crd && !negotiatedHere ? crd : undefined;
  const signature = decisionSignature(mine, enforcingCRD, !!enforced);
  let decision = decisions.get(key)?.signature === signature ? decisions.get(key)!.decision : undefined;
  if (!decision) {
    decision = negotiate(mine, enforced);
    decisions.set(key, { signature, decision });
  }
  let available = !!enforced;
  if (!enforced && decision.schema) {
    const accepted = mine.filter((i) => decision.verdicts.get(i.metadata!.name!) === undefined);
    const subresources = ['status', 'scale'].filter((s) => accepted.every((i) => i.spec.subResources?.includes(s)));
    const desired = negotiatedCRD(accepted[0]!, decision.schema, subresources);
    if (!crd) {
      desired.metadata!.annotations![NEGOTIATED_HASH_ANNOTATION] = contentHash(desired.spec);
      try {
        await client.create(crdsGVR, desired, { cluster });
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 409)) throw err;
      }
      return { requeueAfterMs: 200 };
    }
    // The server defaults CRD fields (conversion, ...): compare what we wrote, by hash, not the stored spec.
    const hash = contentHash(desired.spec);
    if (crd.metadata?.annotations?.[NEGOTIATED_HASH_ANNOTATION] !== hash) {
      const next = deepCopy(crd);
      next.spec = { ...(crd.spec as object), ...(desired.spec as object) };
      next.metadata!.annotations = { ...(next.metadata!.annotations ?? {}), [NEGOTIATED_HASH_ANNOTATION]: hash };
      await commit(client, crdsGVR, crd, next, { cluster });
      return { requeueAfterMs: 200 };
    }
    available = isConditionTrue((crd.status as { conditions?: Condition[] } | undefined)?.conditions, 'Established');
  }
  const now = nowRFC3339();
  for (const imp of mine) {
    const verdict = decision.verdicts.get(imp.metadata!.name!);
    // Only the status is copied and compared: an import carries a whole schema, and copying 100 of them on every
    // pass was most of what registering 100 clusters cost atrium.
    const status = deepCopy(imp.status ?? {}) as Record<string, unknown>;
    const conditions = (status.conditions ??= []) as Condition[];
    setStatusCondition(conditions, verdict === undefined ? { type: 'Compatible', status: 'True', reason: 'Compatible' } : { type: 'Compatible', status: 'False', reason: 'IncompatibleSchema', message: verdict }, now);
    setStatusCondition(conditions, available ? { type: 'Available', status: 'True', reason: enforced ? 'Enforced' : 'Published' } : { type: 'Available', status: 'False', reason: 'Establishing' }, now);
    if (jsonEqual(status, imp.status)) continue;
    await client.updateStatus(apiResourceImportsGVR, stripClusterAnnotation({ ...imp, status }), { cluster });
  }
  if (!available) return { requeueAfterMs: 200 };
}

/**
 * What a negotiation decision depends on, as a string to compare: each import (in order) and the enforcing user CRD,
 * or whether a native schema was enforced. An object counts by uid and spec generation (resourceVersion when it has
 * no generation): status writes leave it unchanged, while an import or CRD deleted and created again under the same
 * name restarts at generation 1 and must not inherit the old object's decision, hence the uid.
 */
export function decisionSignature(imports: readonly APIResourceImport[], enforcingCRD: KubeObject | undefined, nativeEnforced: boolean): string {
  const version = (o: KubeObject) => `${o.metadata?.uid ?? ''}@${o.metadata?.generation ?? o.metadata?.resourceVersion}`;
  const origin = enforcingCRD ? `crd/${version(enforcingCRD)}` : nativeEnforced ? 'native' : '';
  return imports.map((i) => `${i.metadata!.name}/${version(i)}`).join(',') + `|${origin}`;
}

/** The schema of a user CRD's version (storage version), for enforcement. */
function crdSchema(crd: KubeObject): { version: string; schema: Schema } | undefined {
  const versions = ((crd.spec as { versions?: { name: string; storage?: boolean; schema?: { openAPIV3Schema?: Schema } }[] })?.versions ?? []);
  const v = versions.find((x) => x.storage) ?? versions[0];
  return v?.schema?.openAPIV3Schema ? { version: v.name, schema: v.schema.openAPIV3Schema } : undefined;
}

/**
 * The schema of a type atrium serves itself (ConfigMap, Service, ...) in `cluster`, from its OpenAPI v3 document;
 * null when it does not serve it. Built-ins are the same everywhere, so results are cached by group/resource.
 */
async function nativeSchema(
  client: RestClient,
  cluster: string,
  group: string,
  resource: string,
  sample: APIResourceImport,
  cache: Map<string, { version: string; schema: Schema } | null>,
): Promise<{ version: string; schema: Schema } | null> {
  const cacheKey = `${group}/${resource}`;
  if (cache.has(cacheKey)) return cache.get(cacheKey)!;
  const gv: GroupVersionResource = { group, version: sample.spec.groupVersion.version, resource };
  const discoveryPath = `/clusters/${cluster}` + (group ? `/apis/${group}/${gv.version}` : `/api/${gv.version}`);
  let served: { name: string; kind: string } | undefined;
  try {
    const list = (await client.call('GET', discoveryPath)) as { resources?: { name: string; kind: string }[] };
    served = list.resources?.find((r) => r.name === resource);
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404)) throw err;
  }
  if (!served) return null; // not served at all: negotiate (a CRD may appear later, so nothing is cached)
  // Served, but perhaps by a CRD our cache has not seen yet: only a live read tells built-ins apart.
  try {
    await client.get(crdsGVR, `${resource}.${group}`, { cluster });
    return null;
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404)) throw err;
  }
  const doc = (await client.call('GET', `/clusters/${cluster}/openapi/v3/` + (group ? `apis/${group}/${gv.version}` : `api/${gv.version}`))) as { components?: { schemas?: Record<string, unknown> } };
  const schemas = doc.components?.schemas ?? {};
  const def = definitionNameFor(schemas, { group, version: gv.version, kind: served.kind });
  const result = def ? { version: gv.version, schema: structuralSchemaFromOpenAPI(schemas, def) } : null;
  cache.set(cacheKey, result);
  return result;
}
