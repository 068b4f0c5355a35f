/**
 * kcp's apis controllers (pkg/reconciler/apis), run in-process over the server's storage like the CRD and workspace
 * controllers, so a binding's resources are served in the same tick it turns Bound:
 *
 *   apiexport               identity: the secret (`kcp-system/<export>`, created with a random key when spec.identity
 *                           names none) and status.identityHash (SHA-256 of the key); IdentityValid; the
 *                           APIExportEndpointSlice of the same name, unless `apiexports.apis.kcp.io/skip-endpointslice`
 *   apiexportendpointslice  status.endpoints: the export's virtual workspace URL (`/services/apiexport/<cluster>/<name>`)
 *   apibinding              phase Binding → Bound: the export resolved by path and name, its schemas checked for naming
 *                           conflicts with the workspace's CRDs and other bindings, status.boundResources with the
 *                           export's identity, the claims recorded (exportPermissionClaims, appliedPermissionClaims);
 *                           conditions and reasons as kcp's. A binding being deleted first deletes every object of
 *                           its bound resources in its workspace, then drops apis.kcp.io/apibinding-finalizer.
 *
 * The state is fed on every replica (BoundAPIs); reconciling runs only between activate() and deactivate() (the
 * replica that runs controllers, on etcd the Lease holder).
 */
import { randomBytes } from 'node:crypto';
import { type KubeObject, jsonEqual, nowRFC3339 } from '../apimachinery/object.js';
import { setKcpCondition } from '../apimachinery/conditions.js';
import { StatusError } from '../apimachinery/status.js';
import { logger } from '../logging/logger.js';
import type { GenericStore, WatchEventType } from '../registry/generic/store.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { RequestContext } from '../registry/rest.js';
import type { WatchHandle } from '../storage/interface.js';
import type { BoundAPIs } from './bound-apis.js';
import {
  APIBINDING_FINALIZER,
  APIS_GROUP,
  type APIBinding,
  type APIExport,
  type APIResourceSchema,
  type AcceptablePermissionClaim,
  type BoundAPIResource,
  IDENTITY_NAMESPACE,
  type KcpCondition,
  SKIP_ENDPOINTSLICE_ANNOTATION,
  identityHashOf,
  sameClaim,
} from './types.js';

const CLUSTER_ANNOTATION = 'kcp.io/cluster';
const PATH_ANNOTATION = 'kcp.io/path';
const retryDelayMs = 500;
const user = { username: 'system:kcp:apis-controller', groups: ['system:masters'] };

function sys(cluster: string): RequestContext {
  return { cluster, user };
}

function isNotFound(err: unknown): boolean {
  return err instanceof StatusError && err.code === 404;
}

type Kind = 'export' | 'slice' | 'binding';

export class APIsController {
  private readonly exports: GenericStore;
  private readonly bindings: GenericStore;
  private readonly schemas: GenericStore;
  private readonly slices: GenericStore;
  private readonly watches: WatchHandle[] = [];
  private readonly queue = new Set<string>();
  private running = false;
  private stopped = false;
  private idlePromise: Promise<void> = Promise.resolve();
  private readonly timers = new Set<NodeJS.Timeout>();
  private active = false;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly bound: BoundAPIs,
    /** The logical cluster of a workspace path (or cluster name); undefined when there is none. */
    private readonly resolvePath: (path: string) => string | undefined,
  ) {
    const lookup = (version: string, resource: string) => {
      const s = registry.lookup('root', APIS_GROUP, version, resource);
      if (!s) throw new Error(`${resource}.${APIS_GROUP} must be registered before the apis controller starts`);
      return s;
    };
    this.exports = lookup('v1alpha2', 'apiexports');
    this.bindings = lookup('v1alpha2', 'apibindings');
    this.schemas = lookup('v1alpha1', 'apiresourceschemas');
    this.slices = lookup('v1alpha1', 'apiexportendpointslices');
    bound.onChange = (kind, cluster, name) => this.changed(kind, cluster, name);
  }

  /** Loads everything stored, then follows changes (wildcard watches from the listed revisions). */
  async start(): Promise<void> {
    const follow = async (store: GenericStore, observe: (cluster: string, name: string, o: KubeObject | null) => void) => {
      const list = await store.list(sys('root'), '', { selection: {} }, true);
      for (const o of list.items) observe(o.metadata?.annotations?.[CLUSTER_ANNOTATION] ?? '', o.metadata?.name ?? '', o);
      this.watches.push(
        await store.watch(sys('root'), '', { selection: {}, resourceVersion: list.resourceVersion, allowBookmarks: false }, {
          event: (type: WatchEventType, o: KubeObject) => {
            if (type === 'BOOKMARK') return true;
            observe(o.metadata?.annotations?.[CLUSTER_ANNOTATION] ?? '', o.metadata?.name ?? '', type === 'DELETED' ? null : o);
            return true;
          },
          error: (err: StatusError) => {
            if (!this.stopped) logger.error('apis controller: watch ended', { resource: store.def.resource, error: err.message });
          },
        }, true),
      );
    };
    const strip = <T extends KubeObject>(o: KubeObject | null): T | null => {
      if (!o) return null;
      const c = structuredClone(o);
      const { [CLUSTER_ANNOTATION]: _c, ...rest } = c.metadata?.annotations ?? {};
      void _c;
      if (c.metadata) c.metadata.annotations = rest;
      return c as T;
    };
    // Schemas first: bindings loaded after them are served at once.
    await follow(this.schemas, (c, n, o) => this.bound.observeSchema(c, n, strip<APIResourceSchema>(o)));
    await follow(this.exports, (c, n, o) => this.bound.observeExport(c, n, strip<APIExport>(o)));
    await follow(this.bindings, (c, n, o) => this.bound.observeBinding(c, n, strip<APIBinding>(o)));
    await follow(this.slices, (c, n, o) => {
      if (o) this.enqueue('slice', c, n);
    });
  }

  /** Starts reconciling (the replica runs controllers, workspaces resolve): everything is looked at once. */
  activate(): void {
    this.active = true;
    this.resyncAll();
  }

  /** Stops reconciling; queued work is dropped (a reconcile already running finishes). */
  async deactivate(): Promise<void> {
    this.active = false;
    this.queue.clear();
    await this.idlePromise;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const w of this.watches.splice(0)) w.stop();
    for (const t of this.timers) clearTimeout(t);
    await this.idlePromise;
  }

  /** Resolves once nothing is queued or running (tests wait on it). */
  async idle(): Promise<void> {
    while (this.running || this.queue.size) await this.idlePromise;
  }

  private resyncAll(): void {
    for (const [c, m] of this.bound.exports) for (const n of m.keys()) this.enqueue('export', c, n);
    for (const [c, m] of this.bound.bindings) for (const n of m.keys()) this.enqueue('binding', c, n);
  }

  private changed(kind: 'export' | 'schema' | 'binding', cluster: string, name: string): void {
    if (kind === 'binding') return this.enqueue('binding', cluster, name);
    if (kind === 'export') {
      this.enqueue('export', cluster, name);
      // Bindings to it (also those still waiting for it to exist) look again.
      for (const [c, m] of this.bound.bindings) {
        for (const [n, b] of m) if (b.spec?.reference?.export?.name === name) this.enqueue('binding', c, n);
      }
      return;
    }
    // A schema arriving may complete an export's bindings.
    for (const [c, m] of this.bound.bindings) for (const [n, b] of m) if (b.status?.phase !== 'Bound') this.enqueue('binding', c, n);
  }

  private enqueue(kind: Kind, cluster: string, name: string): void {
    if (this.stopped || !this.active || !cluster || !name) return;
    this.queue.add(`${kind}|${cluster}|${name}`);
    if (!this.running) this.idlePromise = this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.size && !this.stopped && this.active) {
        const key = this.queue.values().next().value as string;
        this.queue.delete(key);
        const [kind, cluster, name] = key.split('|') as [Kind, string, string];
        try {
          const again = await this.reconcile(kind, cluster, name);
          if (again) this.retryLater(kind, cluster, name);
        } catch (err) {
          if (!this.stopped) logger.error('apis controller: reconcile failed', { kind, cluster, name, error: (err as Error).message });
          this.retryLater(kind, cluster, name);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private retryLater(kind: Kind, cluster: string, name: string): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.enqueue(kind, cluster, name);
    }, retryDelayMs);
    this.timers.add(t);
  }

  private reconcile(kind: Kind, cluster: string, name: string): Promise<boolean> {
    switch (kind) {
      case 'export':
        return this.reconcileExport(cluster, name);
      case 'slice':
        return this.reconcileSlice(cluster, name);
      case 'binding':
        return this.reconcileBinding(cluster, name);
    }
  }

  /** The workspace path of a logical cluster (its LogicalCluster's kcp.io/path), the name itself when unknown. */
  private async pathOf(cluster: string): Promise<string> {
    const lcs = this.registry.lookup(cluster, 'core.kcp.io', 'v1alpha1', 'logicalclusters');
    const lc = await lcs?.get(sys(cluster), '', 'cluster').catch(() => undefined);
    return lc?.metadata?.annotations?.[PATH_ANNOTATION] || cluster;
  }

  /** The shard's base URL, from root's LogicalCluster (`<base>/clusters/root`). */
  private async baseURL(): Promise<string> {
    const lcs = this.registry.lookup('root', 'core.kcp.io', 'v1alpha1', 'logicalclusters');
    const lc = await lcs?.get(sys('root'), '', 'cluster').catch(() => undefined);
    const url = (lc?.status as { URL?: string } | undefined)?.URL ?? '';
    return url.replace(/\/clusters\/root$/, '');
  }

  // ---- APIExport -------------------------------------------------------------------------------------------------

  private async reconcileExport(cluster: string, name: string): Promise<boolean> {
    const ex = this.bound.exports.get(cluster)?.get(name);
    if (!ex || ex.metadata?.deletionTimestamp) return false;
    const ref = ex.spec?.identity?.secretRef;
    const ns = ref?.namespace || IDENTITY_NAMESPACE;
    const secretName = ref?.name || name;
    let hash = '';
    let failure: KcpCondition | undefined;
    try {
      hash = await this.ensureIdentity(cluster, ns, secretName, !ref?.name);
    } catch (err) {
      failure = { type: 'IdentityValid', status: 'False', severity: 'Error', reason: 'IdentityVerificationFailed', message: (err as Error).message };
    }
    if (!ref?.name && hash) {
      // kcp records the generated secret in spec.identity.
      await this.exports.guaranteedUpdate(sys(cluster), '', name, (cur) => {
        const spec = ((cur!.spec ??= {}) as NonNullable<APIExport['spec']>);
        spec.identity = { ...(spec.identity ?? {}), secretRef: { namespace: ns, name: secretName } };
        return cur!;
      }, { dryRun: false }).catch((err) => {
        if (!isNotFound(err)) throw err;
      });
    }
    await this.writeStatus(this.exports, cluster, name, (cur) => {
      const status = ((cur.status ??= {}) as NonNullable<APIExport['status']>);
      if (hash) status.identityHash = hash;
      const cond: KcpCondition = failure ?? { type: 'IdentityValid', status: 'True' };
      status.conditions = setKcpCondition(status.conditions ?? [], cond, nowRFC3339());
    });
    if (ex.metadata?.annotations?.[SKIP_ENDPOINTSLICE_ANNOTATION] !== 'true') {
      const slice: KubeObject = {
        apiVersion: 'apis.kcp.io/v1alpha1',
        kind: 'APIExportEndpointSlice',
        metadata: {
          name,
          ownerReferences: [{ apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIExport', name, uid: ex.metadata?.uid ?? '' }],
        },
        spec: { export: { path: await this.pathOf(cluster), name } },
      };
      try {
        await this.slices.create(sys(cluster), '', slice, { dryRun: false });
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 409)) throw err;
      }
    }
    return !!failure;
  }

  /** The identity hash of the export's secret; creates the secret (and its namespace) when `generate`. */
  private async ensureIdentity(cluster: string, namespace: string, name: string, generate: boolean): Promise<string> {
    const secrets = this.registry.lookup(cluster, '', 'v1', 'secrets')!;
    let secret = await secrets.get(sys(cluster), namespace, name).catch((err) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    if (!secret) {
      if (!generate) throw new Error(`secret ${namespace}/${name} not found`);
      const namespaces = this.registry.lookup(cluster, '', 'v1', 'namespaces')!;
      await namespaces.create(sys(cluster), '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }, { dryRun: false }).catch((err) => {
        if (!(err instanceof StatusError && err.code === 409)) throw err;
      });
      const key = randomBytes(32).toString('base64');
      secret = await secrets
        .create(sys(cluster), namespace, { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, data: { key: Buffer.from(key).toString('base64') } }, { dryRun: false })
        .catch(async (err) => {
          if (err instanceof StatusError && err.code === 409) return secrets.get(sys(cluster), namespace, name);
          throw err;
        });
    }
    const data = (secret.data ?? {}) as Record<string, string>;
    if (!data.key) throw new Error(`secret ${namespace}/${name} has no "key"`);
    return identityHashOf(Buffer.from(data.key, 'base64'));
  }

  // ---- APIExportEndpointSlice ------------------------------------------------------------------------------------

  private async reconcileSlice(cluster: string, name: string): Promise<boolean> {
    const slice = await this.slices.get(sys(cluster), '', name).catch(() => undefined);
    if (!slice) return false;
    const ref = (slice.spec as { export?: { path?: string; name?: string } } | undefined)?.export ?? {};
    const exportCluster = ref.path ? this.resolvePath(ref.path) : cluster;
    const ex = exportCluster ? this.bound.exports.get(exportCluster)?.get(ref.name ?? '') : undefined;
    const base = await this.baseURL();
    await this.writeStatus(this.slices, cluster, name, (cur) => {
      const status = (cur.status ??= {}) as { conditions?: KcpCondition[]; endpoints?: { url: string }[] };
      const now = nowRFC3339();
      if (!ex) {
        status.conditions = setKcpCondition(status.conditions ?? [], { type: 'APIExportValid', status: 'False', severity: 'Error', reason: 'APIExportNotFound', message: `APIExport ${ref.path || cluster}:${ref.name ?? ''} not found` }, now);
        delete status.endpoints;
        return;
      }
      status.conditions = setKcpCondition(status.conditions ?? [], { type: 'APIExportValid', status: 'True' }, now);
      status.conditions = setKcpCondition(status.conditions, { type: 'EndpointURLsReady', status: 'True' }, now);
      status.endpoints = [{ url: `${base}/services/apiexport/${exportCluster}/${ref.name}` }];
    });
    return false;
  }

  // ---- APIBinding ------------------------------------------------------------------------------------------------

  private async reconcileBinding(cluster: string, name: string): Promise<boolean> {
    const b = this.bound.bindings.get(cluster)?.get(name);
    if (!b) return false;
    if (b.metadata?.deletionTimestamp) return this.finalizeBinding(cluster, b);
    const now = nowRFC3339();
    const next = structuredClone(b);
    const status = (next.status ??= {});
    let conds = status.conditions ?? [];
    const mark = (c: KcpCondition) => (conds = setKcpCondition(conds, c, now));
    const isFalse = (type: string) => conds.find((c) => c.type === type)?.status === 'False';
    if (!status.phase) {
      status.phase = 'Binding';
      mark({ type: 'InitialBindingCompleted', status: 'False', severity: 'Info', reason: 'WaitingForEstablished', message: 'Waiting for API(s) to be established' });
    }
    await this.bindPass(cluster, next, mark, isFalse);
    status.conditions = conds;
    this.summarize(next, now);
    if (!jsonEqual(next.status ?? null, b.status ?? null)) {
      await this.writeStatus(this.bindings, cluster, name, (cur) => {
        cur.status = next.status;
      });
    }
    return false;
  }

  private async bindPass(cluster: string, b: APIBinding, mark: (c: KcpCondition) => void, isFalse: (type: string) => boolean): Promise<void> {
    const status = b.status!;
    const ref = b.spec?.reference?.export;
    if (!ref?.name) {
      mark({ type: 'APIExportValid', status: 'False', severity: 'Error', reason: 'APIExportInvalidReference', message: 'Missing APIExport reference' });
      return;
    }
    const exportPath = ref.path || cluster;
    const exportCluster = this.resolvePath(exportPath);
    const ex = exportCluster ? this.bound.exports.get(exportCluster)?.get(ref.name) : undefined;
    if (!ex || !exportCluster) {
      mark({ type: 'APIExportValid', status: 'False', severity: 'Error', reason: 'APIExportNotFound', message: `APIExport ${exportPath}|${ref.name} not found` });
      return;
    }
    status.exportPermissionClaims = ex.spec?.permissionClaims ?? [];
    if (!status.exportPermissionClaims.length) delete status.exportPermissionClaims;
    const identityHash = ex.status?.identityHash ?? '';
    if (!identityHash) {
      mark({ type: 'APIExportValid', status: 'False', severity: 'Warning', reason: 'MissingIdentityHash', message: `APIExport ${exportPath}|${ref.name} is missing status.identityHash` });
      return;
    }
    status.apiExportClusterName = exportCluster;
    this.applyClaims(b, mark);

    const conflicts: string[] = [];
    const bound: BoundAPIResource[] = [];
    const others = [...(this.bound.bindings.get(cluster)?.values() ?? [])].filter((o) => o.metadata?.name !== b.metadata?.name);
    const crds = await this.crdsIn(cluster);
    for (const r of ex.spec?.resources ?? []) {
      const schema = this.bound.schemas.get(exportCluster)?.get(r.schema);
      if (!schema) {
        mark({ type: 'APIExportValid', status: 'False', severity: 'Error', reason: 'InternalError', message: `Invalid APIExport. Please contact the APIExport owner to resolve: APIResourceSchema ${r.schema} not found` });
        return;
      }
      const conflict = this.conflictOf(schema, others, crds);
      if (conflict) {
        conflicts.push(conflict);
        continue;
      }
      const prev = status.boundResources?.find((x) => x.group === (schema.spec?.group ?? '') && x.resource === (schema.spec?.names.plural ?? ''));
      const storageVersion = schema.spec?.versions.find((v) => v.storage)?.name;
      const versions = new Set([...(prev?.storageVersions ?? []), ...(storageVersion ? [storageVersion] : [])]);
      bound.push({
        group: schema.spec?.group ?? '',
        resource: schema.spec?.names.plural ?? '',
        schema: { name: r.schema, UID: schema.metadata?.uid ?? '', identityHash },
        storageVersions: [...versions],
      });
    }
    mark({ type: 'APIExportValid', status: 'True' });
    if (conflicts.length) {
      const message = `Unable to bind APIs: ${conflicts.join('; ')}`;
      mark({ type: 'BindingUpToDate', status: 'False', severity: 'Error', reason: 'NamingConflicts', message });
      if (isFalse('InitialBindingCompleted')) mark({ type: 'InitialBindingCompleted', status: 'False', severity: 'Error', reason: 'NamingConflicts', message });
      // What bound before stays bound (kcp never unbinds a resource over a conflict found later).
      return;
    }
    status.boundResources = bound;
    mark({ type: 'InitialBindingCompleted', status: 'True' });
    mark({ type: 'BindingUpToDate', status: 'True' });
    status.phase = 'Bound';
  }

  /** The accepted claims the export still claims, with their selectors; PermissionClaimsValid and PermissionClaimsApplied. */
  private applyClaims(b: APIBinding, mark: (c: KcpCondition) => void): void {
    const status = b.status!;
    const exportClaims = status.exportPermissionClaims ?? [];
    const specClaims = b.spec?.permissionClaims ?? [];
    const unknown = specClaims.filter((c) => !exportClaims.some((e) => sameClaim(e, c)));
    if (unknown.length) {
      mark({
        type: 'PermissionClaimsValid',
        status: 'False',
        severity: 'Error',
        reason: 'InvalidPermissionClaims',
        message: `Invalid APIBinding. Please contact the APIExport owner to resolve: claims not declared by the APIExport: ${unknown.map((c) => (c.group ? `${c.resource}.${c.group}` : c.resource)).join(', ')}`,
      });
    } else mark({ type: 'PermissionClaimsValid', status: 'True' });
    const applied: AcceptablePermissionClaim[] = [];
    for (const c of specClaims) {
      if (c.state !== 'Accepted') continue;
      const e = exportClaims.find((x) => sameClaim(x, c));
      if (!e) continue;
      const { state: _s, ...scoped } = c;
      void _s;
      applied.push({ ...scoped, verbs: e.verbs ?? c.verbs });
    }
    if (applied.length) status.appliedPermissionClaims = applied;
    else delete status.appliedPermissionClaims;
    mark({ type: 'PermissionClaimsApplied', status: 'True' });
  }

  private async crdsIn(cluster: string): Promise<KubeObject[]> {
    const crds = this.registry.lookup(cluster, 'apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    if (!crds) return [];
    return (await crds.list(sys(cluster), '', { selection: {} })).items;
  }

  /** kcp's conflictChecker: a CRD or another binding's resource of the group already using one of the schema's names. */
  private conflictOf(schema: APIResourceSchema, others: APIBinding[], crds: KubeObject[]): string | undefined {
    const names = schema.spec?.names ?? {};
    const check = (group: string, accepted: { plural?: string; singular?: string; shortNames?: string[]; kind?: string; listKind?: string }): string | undefined => {
      if (group !== schema.spec?.group) return undefined;
      const taken = new Set([accepted.plural, accepted.singular, ...(accepted.shortNames ?? [])].filter(Boolean));
      if (names.plural && taken.has(names.plural)) return `spec.names.plural=${names.plural} is forbidden`;
      if (names.singular && taken.has(names.singular)) return `spec.names.singular=${names.singular} is forbidden`;
      if ((names.shortNames ?? []).some((s) => taken.has(s))) return `spec.names.shortNames=[${(names.shortNames ?? []).join(' ')}] is forbidden`;
      const kinds = new Set([accepted.kind, accepted.listKind].filter(Boolean));
      if (names.kind && kinds.has(names.kind)) return `spec.names.kind=${names.kind} is forbidden`;
      if (names.listKind && kinds.has(names.listKind)) return `spec.names.listKind=${names.listKind} is forbidden`;
      return undefined;
    };
    for (const o of others) {
      for (const br of o.status?.boundResources ?? []) {
        const s = this.bound.schemas.get(o.status?.apiExportClusterName ?? '')?.get(br.schema.name);
        const detail = s?.spec ? check(s.spec.group, s.spec.names) : undefined;
        if (!detail) continue;
        const ref = o.spec?.reference?.export;
        const boundTo = ref?.path ? `APIExport ${ref.path}:${ref.name}` : `local APIExport "${ref?.name ?? ''}"`;
        return `naming conflict with APIBinding "${o.metadata?.name ?? ''}" bound to ${boundTo}: ${detail}`;
      }
    }
    for (const crd of crds) {
      const spec = crd.spec as { group?: string; names?: Record<string, unknown> } | undefined;
      const accepted = ((crd.status as { acceptedNames?: Record<string, unknown> } | undefined)?.acceptedNames ?? spec?.names ?? {}) as Parameters<typeof check>[1];
      const detail = check(spec?.group ?? '', accepted);
      if (detail) return `naming conflict with CustomResourceDefinition "${crd.metadata?.name ?? ''}": ${detail}`;
    }
    return undefined;
  }

  /** kcp's summary: Ready is True when every other condition is; else it carries the first False one's reason. */
  private summarize(b: APIBinding, now: string): void {
    const conds = (b.status!.conditions ?? []).filter((c) => c.type !== 'Ready');
    const bad = conds.find((c) => c.status === 'False');
    b.status!.conditions = setKcpCondition(
      b.status!.conditions ?? [],
      bad ? { type: 'Ready', status: 'False', severity: bad.severity, reason: bad.reason, message: bad.message } : { type: 'Ready', status: 'True' },
      now,
    );
  }

  /** Deletes every object of the binding's resources in its workspace, then lets the binding go. */
  private async finalizeBinding(cluster: string, b: APIBinding): Promise<boolean> {
    if (!(b.metadata?.finalizers ?? []).includes(APIBINDING_FINALIZER)) return false;
    const name = b.metadata?.name ?? '';
    for (const def of this.bound.definitionsOf(b).filter((d, i, all) => all.findIndex((x) => x.group === d.group && x.resource === d.resource) === i)) {
      const store = this.registry.storeFor(def);
      await store.deleteCollection(sys(cluster), '', { selection: {} }, { dryRun: false });
      const left = await store.list(sys(cluster), '', { selection: {}, limit: 1 });
      if (left.items.length) {
        await this.writeStatus(this.bindings, cluster, name, (cur) => {
          const st = (cur.status ??= {}) as NonNullable<APIBinding['status']>;
          st.conditions = setKcpCondition(st.conditions ?? [], { type: 'BindingResourceDeleteSuccess', status: 'False', severity: 'Info', reason: 'ResourceDeletionPending', message: `Some resources are remaining: ${def.resource}.${def.group} has ${left.items.length}+ resource instances` }, nowRFC3339());
        });
        return true;
      }
    }
    await this.bindings.guaranteedUpdate(sys(cluster), '', name, (cur) => {
      cur!.metadata!.finalizers = (cur!.metadata!.finalizers ?? []).filter((f) => f !== APIBINDING_FINALIZER);
      return cur!;
    }, { dryRun: false }).catch((err) => {
      if (!isNotFound(err)) throw err;
    });
    return false;
  }

  private async writeStatus(store: GenericStore, cluster: string, name: string, mutate: (o: KubeObject & { status?: any }) => void): Promise<void> {
    try {
      await store.guaranteedUpdate(sys(cluster), '', name, (cur) => {
        mutate(cur!);
        return cur!;
      }, { dryRun: false }, 'status');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
