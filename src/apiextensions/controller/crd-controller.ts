/**
 * The CRD controllers of apiextensions-apiserver, run in-process over the server's own storage: naming
 * (acceptedNames + NamesAccepted), establishing (Established) and the finalizer that deletes every instance of a
 * CRD being deleted. They share one storage watch on all CRDs of all logical clusters, which also feeds the
 * CustomResourceSource synchronously, so discovery changes in the same tick a CRD becomes Established.
 * The source is fed on every replica; the reconciling (status and finalizer writes) only while `gate` is open, i.e.
 * on the replica holding the controller Lease when several share one etcd.
 */
import { type KubeObject, jsonEqual, nowRFC3339 } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { GenericStore } from '../../registry/generic/store.js';
import { clusterOfKey, resourceRoot } from '../../registry/generic/keys.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import type { RequestContext } from '../../registry/rest.js';
import type { WatchHandle } from '../../storage/interface.js';
import { ControllerGate } from '../../controllers/controller-gate.js';
import { logger } from '../../logging/logger.js';
import { CRD_GROUP, CUSTOM_RESOURCE_CLEANUP_FINALIZER, type CustomResourceDefinition, findCondition, isConditionTrue, setCondition } from '../crd/types.js';
import { storageAddressingDefinition } from '../serving/custom-resource.js';
import type { CustomResourceSource } from '../serving/custom-resource-source.js';
import { calculateNames } from './naming.js';

const controllerUser = { username: 'system:apiextensions-controller', groups: ['system:masters'] };
const retryDelayMs = 500;

export class CRDController {
  private readonly crdStore: GenericStore;
  private watch?: WatchHandle;
  private readonly queue = new Set<string>();
  private running = false;
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopGate?: () => void;
  /** Resolves when the queue drains (tests and shutdown wait on it). */
  private idle: Promise<void> = Promise.resolve();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly source: CustomResourceSource,
    private readonly gate = new ControllerGate(),
  ) {
    const store = registry.lookup('root', CRD_GROUP, 'v1', 'customresourcedefinitions');
    if (!store) throw new Error('customresourcedefinitions must be registered before the CRD controller starts');
    this.crdStore = store;
  }

  /** Loads every stored CRD, then follows changes from that revision on. */
  async start(): Promise<void> {
    const prefix = resourceRoot(CRD_GROUP, 'customresourcedefinitions');
    const page = await this.registry.storage.list(prefix, {});
    for (const kv of page.items) this.onStored(kv.key, this.crdStore.decode(kv) as CustomResourceDefinition);
    this.watch = this.registry.watchCache.watch(prefix, page.revision, {
      onEvent: (ev) => {
        try {
          if (ev.type === 'delete') this.onDeleted(ev.key);
          else this.onStored(ev.key, this.crdStore.decode({ key: ev.key, value: ev.value, modRevision: ev.revision }) as CustomResourceDefinition);
        } catch (err) {
          logger.error('crd controller: bad event', { key: ev.key, error: (err as Error).message });
        }
      },
      onError: (err) => {
        if (!this.stopped) logger.error('crd controller: watch failed', { error: err.message });
      },
    });
    // Opening: every CRD may have changed while another replica (or nobody) reconciled; closing: queued work is
    // dropped (a reconcile already running finishes).
    this.stopGate = this.gate.onChange((open) => {
      if (!open) return this.queue.clear();
      for (const [cluster, crd] of this.source.all()) this.enqueue(cluster, crd.metadata?.name ?? '');
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopGate?.();
    this.watch?.stop();
    for (const t of this.timers) clearTimeout(t);
    await this.idle;
  }

  /** Waits until every queued reconciliation has run (for tests). */
  async settled(): Promise<void> {
    while (this.running || this.queue.size) await this.idle;
  }

  private onStored(key: string, crd: CustomResourceDefinition): void {
    const cluster = clusterOfKey(key);
    const name = crd.metadata?.name ?? '';
    this.source.observe(cluster, name, crd);
    this.enqueue(cluster, name);
    // A name change may unblock CRDs of the same group that were waiting on a conflict.
    for (const other of this.source.list(cluster)) {
      if (other.spec?.group === crd.spec?.group && !isConditionTrue(other, 'NamesAccepted')) this.enqueue(cluster, other.metadata?.name ?? '');
    }
  }

  private onDeleted(key: string): void {
    const cluster = clusterOfKey(key);
    const name = key.slice(key.lastIndexOf('/') + 1);
    const gone = this.source.get(cluster, name);
    this.source.observe(cluster, name, null);
    for (const other of this.source.list(cluster)) {
      if (other.spec?.group === gone?.spec?.group && !isConditionTrue(other, 'NamesAccepted')) this.enqueue(cluster, other.metadata?.name ?? '');
    }
  }

  private enqueue(cluster: string, name: string): void {
    if (this.stopped || !this.gate.isOpen()) return;
    this.queue.add(`${cluster}/${name}`);
    if (!this.running) this.idle = this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.size && !this.stopped && this.gate.isOpen()) {
        const key = this.queue.values().next().value as string;
        this.queue.delete(key);
        const slash = key.indexOf('/');
        const cluster = key.slice(0, slash);
        const name = key.slice(slash + 1);
        try {
          const again = await this.reconcile(cluster, name);
          if (again) this.retryLater(cluster, name);
        } catch (err) {
          if (!this.stopped) logger.error('crd controller: reconcile failed', { cluster, name, error: (err as Error).message });
          this.retryLater(cluster, name);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private retryLater(cluster: string, name: string): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.enqueue(cluster, name);
    }, retryDelayMs);
    this.timers.add(t);
  }

  private ctx(cluster: string): RequestContext {
    return { cluster, user: controllerUser };
  }

  /** One pass over a CRD; true asks for another pass later (instances still being deleted). */
  private async reconcile(cluster: string, name: string): Promise<boolean> {
    const crd = this.source.get(cluster, name);
    if (!crd) return false;
    if (crd.metadata?.deletionTimestamp) return this.finalize(cluster, crd);
    const others = this.source.list(cluster);
    const naming = calculateNames(crd, others);
    const now = nowRFC3339();
    const desired = structuredClone(crd);
    desired.status ??= {};
    desired.status.acceptedNames = naming.acceptedNames;
    setCondition(desired, naming.namesAccepted, now);
    // Like upstream's naming controller, Established never becomes True here: a CRD whose names were just accepted
    // is `Installing` first, and the establishing step below (upstream's EstablishingController) flips it.
    const established = findCondition(desired, 'Established');
    if (!established) {
      setCondition(desired, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
    }
    if (naming.namesAccepted.status === 'True' && !isConditionTrue(desired, 'Established')) {
      setCondition(desired, { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' }, now);
    }
    if (!jsonEqual(desired.status, crd.status)) {
      await this.writeStatus(cluster, name, (current) => {
        current.status ??= {};
        current.status.acceptedNames = desired.status!.acceptedNames;
        for (const c of desired.status!.conditions ?? []) setCondition(current, c, now);
      });
    }
    if (naming.namesAccepted.status === 'True' && !isConditionTrue(desired, 'Established')) {
      await this.writeStatus(cluster, name, (current) => {
        // Only a CRD still accepted and not yet established is established (it may have changed meanwhile).
        if (!isConditionTrue(current, 'NamesAccepted') || isConditionTrue(current, 'Established')) return;
        setCondition(current, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, nowRFC3339());
      });
    }
    return false;
  }

  /** Deletes every instance, then drops the cleanup finalizer so the CRD itself goes. */
  private async finalize(cluster: string, crd: CustomResourceDefinition): Promise<boolean> {
    const name = crd.metadata?.name ?? '';
    if (!(crd.metadata?.finalizers ?? []).includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) return false;
    const def = storageAddressingDefinition(crd, this.source.schemas, this.source.converterFor);
    if (def) {
      const store = this.registry.storeFor(def);
      try {
        const ctx = this.ctx(cluster);
        await store.deleteCollection(ctx, '', { selection: {} }, { dryRun: false });
        const left = await store.list(ctx, '', { selection: {}, limit: 1 });
        if (left.items.length) return true;
      } finally {
        this.registry.forget(def);
      }
    }
    await this.writeStatus(cluster, name, (current) => {
      setCondition(current, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }, nowRFC3339());
    });
    await this.crdStore.guaranteedUpdate(
      this.ctx(cluster),
      '',
      name,
      (current) => {
        const meta = current!.metadata!;
        meta.finalizers = (meta.finalizers ?? []).filter((f) => f !== CUSTOM_RESOURCE_CLEANUP_FINALIZER);
        return current!;
      },
      { dryRun: false },
    );
    return false;
  }

  private async writeStatus(cluster: string, name: string, mutate: (crd: CustomResourceDefinition) => void): Promise<void> {
    try {
      await this.crdStore.guaranteedUpdate(
        this.ctx(cluster),
        '',
        name,
        (current) => {
          const next = current as CustomResourceDefinition;
          mutate(next);
          return next as KubeObject;
        },
        { dryRun: false },
        'status',
      );
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }
}
