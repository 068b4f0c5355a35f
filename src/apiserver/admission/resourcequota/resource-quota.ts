/**
 * The ResourceQuota admission plugin (k8s.io/apiserver pkg/admission/plugin/resourcequota): a create (or an update
 * that changes usage: services, persistentvolumeclaims) in a namespace with quotas is checked against each quota it
 * falls under and, when admitted, charged to their status.used before it is stored, so quotas hold even between two
 * runs of the quota controller. Any resource counts as `count/<resource>.<group>`; see apimachinery/quota/evaluators.
 *
 * Concurrency: the checks of one namespace run one at a time in this process (upstream queues work per namespace),
 * and every charge is a status write with the quota's resourceVersion as precondition, so a write from another
 * replica or the controller in between makes the check start over on fresh quotas (three attempts, as upstream).
 * Two concurrent creates can therefore never both take the last unit of a quota.
 *
 * Which namespaces have quotas comes from a watch on every quota of every logical cluster, so a namespace without
 * any costs no storage read; the quotas themselves are read fresh from storage for each check.
 */
import type { KubeObject } from '../../../apimachinery/object.js';
import { errors, isStatusError } from '../../../apimachinery/status.js';
import { evaluatorFor } from '../../../apimachinery/quota/evaluators.js';
import type { RequestContext } from '../../../registry/rest.js';
import type { ResourceRegistry } from '../../../registry/resource-registry.js';
import type { WatchHandle } from '../../../storage/interface.js';
import { logger } from '../../../logging/logger.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionObjectName } from '../admission.js';
import { checkRequest } from './check-request.js';

const systemContext = (cluster: string): RequestContext => ({ cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } });
const ATTEMPTS = 3;

export class ResourceQuotaAdmission implements AdmissionPlugin {
  readonly name = 'ResourceQuota';
  /** `<cluster>/<namespace>` → names of its quotas, from the watch; unset until the watch runs. */
  private known?: Map<string, Set<string>>;
  private watch?: WatchHandle;
  private stopped = false;
  /** The tail of each namespace's chain of checks. */
  private readonly inFlight = new Map<string, Promise<unknown>>();

  /**
   * `exempt` names requests never checked nor charged: records a feature keeps of objects that exist elsewhere (the
   * multi-cluster mirrors of pods running on a cluster). A deliberate difference from upstream, which exempts nothing:
   * refusing such a record would hide what runs, not stop it. The quota controller still counts them in status.used.
   */
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly exempt: (a: AdmissionAttributes) => boolean = () => false,
  ) {}

  async start(): Promise<void> {
    const store = this.registry.lookup('root', '', 'v1', 'resourcequotas');
    if (!store) return;
    const known = new Map<string, Set<string>>();
    const sink = {
      event: (type: string, obj: KubeObject) => {
        this.observe(known, type, obj);
        return true;
      },
      error: (err: Error) => {
        logger.warn('resource quota cache watch ended; restarting', { error: err.message });
        this.known = undefined;
        if (!this.stopped) setTimeout(() => void this.start().catch(() => undefined), 1000).unref();
      },
    };
    this.watch = await store.watch(systemContext('root'), '', { selection: {}, allowBookmarks: false }, sink, true);
    this.known = known;
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
  }

  private observe(known: Map<string, Set<string>>, type: string, obj: KubeObject): void {
    const cluster = obj.metadata?.annotations?.['kcp.io/cluster'];
    const { namespace, name } = obj.metadata ?? {};
    if (!cluster || !namespace || !name) return;
    const key = `${cluster}/${namespace}`;
    if (type === 'DELETED') {
      known.get(key)?.delete(name);
      if (known.get(key)?.size === 0) known.delete(key);
    } else if (type === 'ADDED' || type === 'MODIFIED') {
      if (!known.has(key)) known.set(key, new Set());
      known.get(key)!.add(name);
    }
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if (!a.def.namespaced || !a.namespace || !a.object) return;
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
    if (this.exempt(a)) return;
    const evaluator = evaluatorFor(a.def.group, a.def.resource);
    if (!evaluator.handles(a.operation, a.subresource ?? '')) return;
    const key = `${a.ctx.cluster}/${a.namespace}`;
    if (this.known && !this.known.has(key)) return;
    const previous = this.inFlight.get(key) ?? Promise.resolve();
    const mine = previous.catch(() => undefined).then(() => this.check(a));
    this.inFlight.set(key, mine);
    try {
      await mine;
    } finally {
      if (this.inFlight.get(key) === mine) this.inFlight.delete(key);
    }
  }

  private async check(a: AdmissionAttributes): Promise<void> {
    const quotas = this.registry.lookup(a.ctx.cluster, '', 'v1', 'resourcequotas');
    if (!quotas) return;
    const evaluator = evaluatorFor(a.def.group, a.def.resource);
    const gr = { group: a.def.group, resource: a.def.resource };
    const ctx = systemContext(a.ctx.cluster);
    const oldObject = a.operation === 'UPDATE' ? (a.oldObject ?? (await this.current(a))) : undefined;
    let lastConflict: unknown;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const { items } = await quotas.list(ctx, a.namespace, { selection: {} });
      if (items.length === 0) return;
      const decision = checkRequest(items, evaluator, { operation: a.operation as 'CREATE' | 'UPDATE', object: a.object!, oldObject });
      if ('refused' in decision) throw errors.forbidden(gr, admissionObjectName(a), decision.refused);
      if (a.dryRun || decision.charged.length === 0) return;
      try {
        // Each write carries the resourceVersion the check read: a concurrent change is a 409, and the check reruns.
        for (const quota of decision.charged) await quotas.update(ctx, a.namespace, quota.metadata!.name!, quota, { dryRun: false }, 'status');
        return;
      } catch (err) {
        if (!isStatusError(err) || err.code !== 409) throw err;
        lastConflict = err;
      }
    }
    throw lastConflict;
  }

  /** The stored object an update replaces, when the handler did not hand it in (PUT). */
  private async current(a: AdmissionAttributes): Promise<KubeObject | undefined> {
    const store = this.registry.lookup(a.ctx.cluster, a.def.group, a.def.version, a.def.resource);
    try {
      return await store?.get(systemContext(a.ctx.cluster), a.namespace, a.name);
    } catch {
      return undefined;
    }
  }
}
