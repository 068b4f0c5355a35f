import { errors } from '../../apimachinery/status.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { GenericStore } from '../../registry/generic/store.js';
import { immortalNamespaces } from '../../registry/builtin/core.js';
import type { WatchHandle } from '../../storage/interface.js';
import { logger } from '../../logging/logger.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionObjectName } from './admission.js';

const systemContext = { cluster: 'root', user: { username: 'system:apiserver', groups: ['system:masters'] } };

/**
 * NamespaceLifecycle (kube-apiserver plugin/pkg/admission/namespace/lifecycle): namespaced objects may only be created in
 * a namespace that exists and is not terminating, and the system namespaces may not be deleted.
 *
 * Like upstream it answers from a cache of every namespace in every logical cluster, fed by one watch, so a create
 * costs no storage read; a namespace the cache does not know (yet: it may have been created a moment ago through
 * another replica) or believes terminating is looked up live before the request is refused.
 */
export class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = 'NamespaceLifecycle';
  /** `<cluster>/<name>` → whether the namespace is terminating. */
  private readonly known = new Map<string, boolean>();
  private watch?: WatchHandle;
  private stopped = false;

  constructor(private readonly namespaces: GenericStore) {}

  /** Lists every namespace and watches for changes; until it runs, every check is a live lookup. */
  async start(): Promise<void> {
    const sink = {
      event: (type: string, obj: KubeObject) => {
        this.observe(type, obj);
        return true;
      },
      error: (err: Error) => {
        // The watch ended (e.g. compaction or storage loss): forget what we knew and start over.
        logger.warn('namespace cache watch ended; restarting', { error: err.message });
        this.known.clear();
        if (!this.stopped) setTimeout(() => void this.start().catch(() => undefined), 1000).unref();
      },
    };
    this.watch = await this.namespaces.watch(systemContext, '', { selection: {}, allowBookmarks: false }, sink, true);
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
  }

  private observe(type: string, obj: KubeObject): void {
    const cluster = obj.metadata?.annotations?.['kcp.io/cluster'];
    const name = obj.metadata?.name;
    if (!cluster || !name) return;
    const key = `${cluster}/${name}`;
    if (type === 'DELETED') this.known.delete(key);
    else if (type === 'ADDED' || type === 'MODIFIED') this.known.set(key, terminating(obj));
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    const gr = { group: a.def.group, resource: a.def.resource };
    if (a.def.group === '' && a.def.resource === 'namespaces') {
      if (a.operation === 'DELETE' && immortalNamespaces.includes(a.name)) {
        throw errors.forbidden(gr, a.name, 'this namespace may not be deleted');
      }
      return;
    }
    if (!a.def.namespaced || a.operation !== 'CREATE') return;
    if (this.known.get(`${a.ctx.cluster}/${a.namespace}`) === false) return;
    let ns;
    try {
      ns = await this.namespaces.get(a.ctx, '', a.namespace);
    } catch (err) {
      if ((err as { code?: number }).code === 404) throw errors.notFound({ group: '', resource: 'namespaces' }, a.namespace);
      throw err;
    }
    if (terminating(ns)) {
      throw errors.forbidden(gr, admissionObjectName(a), `unable to create new content in namespace ${a.namespace} because it is being terminated`, [
        { reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' },
      ]);
    }
  }
}

function terminating(ns: KubeObject): boolean {
  const phase = (ns.status as { phase?: string } | undefined)?.phase;
  return phase === 'Terminating' || !!ns.metadata?.deletionTimestamp;
}
