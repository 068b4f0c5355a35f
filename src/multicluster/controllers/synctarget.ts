/**
 * The SyncTarget controller, in atrium:
 *
 * - labels every SyncTarget with its key (`internal.workload.kcp.io/key`), which syncers read;
 * - push mode (spec.kubeconfig set): runs the syncer in-process, restarting it when the kubeconfig changes;
 * - status: `syncedResources` from the target's APIResourceImports (Pending / Accepted / Incompatible + reason),
 *   conditions `SyncerReady`, `HeartbeatHealthy` (False once no heartbeat came for `heartbeatThresholdMs`) and
 *   `Ready` (all of them True);
 * - deletion: holds the SyncTarget finalizer until the syncer drained (CLEANUP_DONE_ANNOTATION), or no syncer ever
 *   connected, then stops a push syncer and releases the finalizer.
 */
import { findCondition, setKcpCondition } from '../../apimachinery/conditions.js';
import { deepCopy, nowRFC3339 } from '../../apimachinery/object.js';
import { parseKubeconfig } from '../../client/kubeconfig/kubeconfig.js';
import type { Informer } from '../../client/informer.js';
import { RestClient } from '../../client/rest-client.js';
import { clusterOf, keyOf, parseObjectKey } from '../../client/store.js';
import { commit } from '../../controllers/runtime/committer.js';
import { Controller } from '../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller } from '../../controllers/runtime/context.js';
import { logger } from '../../logging/logger.js';
import { syncTargetKey } from '../api/keys.js';
import { apiResourceImportsGVR, parseGroupResource, resourcesOf, SYNC_TARGET_FINALIZER, SYNC_TARGET_KEY_LABEL, syncTargetsGVR, type APIResourceImport, type Condition, type SyncedResource, type SyncTarget } from '../api/types.js';
import { CLEANUP_DONE_ANNOTATION, Syncer } from '../syncer/syncer.js';
import { contentHash } from '../syncer/transform.js';
import { HEARTBEAT_STALE_REASON, secondStampEnd } from '../decisions/failover.js';

export interface SyncTargetControllerOptions {
  /** HeartbeatHealthy turns False after this long without a heartbeat (default 60 s, kcp's default). */
  heartbeatThresholdMs?: number;
  /** Options for push-mode syncers (intervals; tests shorten them). */
  pushSyncer?: { heartbeatIntervalMs?: number; importPollIntervalMs?: number };
}

interface PushSyncer {
  hash: string;
  syncer?: Syncer;
  error?: { reason: string; message: string };
}

/** The syncedResources entry of one resource, from the target's import for it. */
export function syncedResourceState(resource: string, imp: APIResourceImport | undefined): SyncedResource {
  const gr = parseGroupResource(resource);
  if (!imp) return { ...gr, versions: [], state: 'Pending', message: 'the syncer has not reported this resource (not served by the cluster, or no syncer connected yet)' };
  const versions = [imp.spec.groupVersion.version];
  const compatible = findCondition(imp.status?.conditions, 'Compatible');
  if (compatible?.status === 'False') return { ...gr, versions, state: 'Incompatible', message: compatible.message };
  if (compatible?.status === 'True' && findCondition(imp.status?.conditions, 'Available')?.status === 'True') return { ...gr, versions, state: 'Accepted' };
  return { ...gr, versions, state: 'Pending', message: 'waiting for negotiation' };
}

/**
 * The heartbeat condition for a last beat at `last` (RFC 3339) at time `now`, and when to look again (ms). A beat
 * stamped in whole seconds happened somewhere within that second: it is late only once even that second's end is
 * older than the threshold (read as the second's start, a 3 s threshold turned a target NotReady after 2 s).
 */
export function heartbeatCondition(last: string | undefined, nowMs: number, thresholdMs: number): { cond: Omit<Condition, 'lastTransitionTime'>; recheckMs?: number } {
  if (!last) return { cond: { type: 'HeartbeatHealthy', status: 'False', reason: HEARTBEAT_STALE_REASON, message: 'No heartbeat yet seen' } };
  const age = nowMs - secondStampEnd(Date.parse(last));
  if (age > thresholdMs) return { cond: { type: 'HeartbeatHealthy', status: 'False', reason: HEARTBEAT_STALE_REASON, message: `No heartbeat since ${last}` } };
  return { cond: { type: 'HeartbeatHealthy', status: 'True' }, recheckMs: Math.max(50, thresholdMs - age + 10) };
}

export function syncTargetControllerInstaller(opts: SyncTargetControllerOptions = {}): ControllerInstaller {
  return {
    name: 'synctarget',
    install(ctx) {
      const targets = ctx.informers.informerFor<SyncTarget>(syncTargetsGVR, { cluster: '*' });
      const imports = ctx.informers.informerFor<APIResourceImport>(apiResourceImportsGVR, { cluster: '*' });
      const pushed = new Map<string, PushSyncer>();
      const controller = new Controller({ name: 'synctarget', workers: 2, reconcile: (key) => reconcile(ctx, opts, key, targets, imports, pushed) });
      targets.addEventHandler({ add: (o) => controller.enqueue(keyOf(o)), update: (_o, n) => controller.enqueue(keyOf(n)), delete: (o) => controller.enqueue(keyOf(o)) });
      const byImport = (o: APIResourceImport) => o.spec?.location && controller.enqueue(`${clusterOf(o)}|/${o.spec.location}`);
      imports.addEventHandler({ add: byImport, update: (_o, n) => byImport(n), delete: byImport });
      return {
        name: 'synctarget',
        start: () => controller.start(),
        async stop() {
          await controller.stop();
          await Promise.all([...pushed.values()].map((p) => p.syncer?.stop()));
        },
      };
    },
  };
}

async function reconcile(
  ctx: ControllerContext,
  opts: SyncTargetControllerOptions,
  key: string,
  targets: Informer<SyncTarget>,
  imports: Informer<APIResourceImport>,
  pushed: Map<string, PushSyncer>,
): Promise<{ requeueAfterMs: number } | void> {
  const { cluster, name } = parseObjectKey(key);
  const st = targets.lister.get(key);
  if (!st) {
    await stopPush(pushed, key);
    return;
  }
  const scope = { cluster };
  const stKey = syncTargetKey(cluster, name);
  if (st.metadata?.labels?.[SYNC_TARGET_KEY_LABEL] !== stKey) {
    const next = deepCopy(st);
    next.metadata!.labels = { ...(next.metadata!.labels ?? {}), [SYNC_TARGET_KEY_LABEL]: stKey };
    await commit(ctx.client, syncTargetsGVR, st, next, scope);
    return;
  }
  const push = st.spec?.kubeconfig ? await ensurePush(ctx, opts, pushed, key, cluster, st) : (await stopPush(pushed, key), undefined);

  if (st.metadata?.deletionTimestamp) {
    const drained = !!st.metadata.annotations?.[CLEANUP_DONE_ANNOTATION];
    const neverConnected = !st.status?.lastSyncerHeartbeatTime && !push?.syncer;
    if (!drained && !neverConnected) return { requeueAfterMs: 500 };
    await stopPush(pushed, key);
    if (st.metadata.finalizers?.includes(SYNC_TARGET_FINALIZER)) {
      const next = deepCopy(st);
      next.metadata!.finalizers = next.metadata!.finalizers!.filter((f) => f !== SYNC_TARGET_FINALIZER);
      await commit(ctx.client, syncTargetsGVR, st, next, scope);
    }
    return;
  }

  const mine = imports.lister.list().filter((i) => clusterOf(i) === cluster && i.spec?.location === name);
  const next = deepCopy(st);
  const status = (next.status ??= {});
  status.syncedResources = resourcesOf(st).map((r) => {
    const gr = parseGroupResource(r);
    return syncedResourceState(r, mine.find((i) => i.spec.groupVersion.group === gr.group && i.spec.plural === gr.resource));
  });
  const now = nowRFC3339();
  const set = (cond: Omit<Condition, 'lastTransitionTime'>) => (status.conditions = setKcpCondition(status.conditions ?? [], cond, now));
  if (push?.error) set({ type: 'SyncerReady', status: 'False', reason: push.error.reason, message: push.error.message });
  else if (push?.syncer || status.lastSyncerHeartbeatTime) set({ type: 'SyncerReady', status: 'True', reason: push ? 'SyncerRunning' : 'SyncerConnected' });
  else set({ type: 'SyncerReady', status: 'False', reason: 'SyncerNotConnected', message: 'No syncer has connected yet: run the syncer (kubectl atrium workload sync) or set spec.kubeconfig' });
  const hb = heartbeatCondition(status.lastSyncerHeartbeatTime, Date.now(), opts.heartbeatThresholdMs ?? 60_000);
  set(hb.cond);
  const notReady = ['SyncerReady', 'HeartbeatHealthy'].map((t) => findCondition(status.conditions, t)!).find((c) => c.status !== 'True');
  set(notReady ? { type: 'Ready', status: 'False', reason: notReady.reason, message: notReady.message } : { type: 'Ready', status: 'True' });
  const wasReady = findCondition(st.status?.conditions, 'Ready');
  const ready = findCondition(status.conditions, 'Ready')!;
  if (wasReady?.status !== ready.status) logger.info('synctarget: Ready changed', { workspace: cluster, syncTarget: name, ready: ready.status, reason: ready.reason, message: ready.message });
  await commit(ctx.client, syncTargetsGVR, st, next, scope);
  return hb.recheckMs !== undefined ? { requeueAfterMs: hb.recheckMs } : { requeueAfterMs: Math.min(opts.heartbeatThresholdMs ?? 60_000, 5000) };
}

/** Starts (or keeps) the in-process syncer of a push-mode SyncTarget; restarts it when the kubeconfig changed. */
async function ensurePush(ctx: ControllerContext, opts: SyncTargetControllerOptions, pushed: Map<string, PushSyncer>, key: string, cluster: string, st: SyncTarget): Promise<PushSyncer> {
  const hash = contentHash(st.spec!.kubeconfig);
  const existing = pushed.get(key);
  if (existing && existing.hash === hash) return existing;
  await stopPush(pushed, key);
  const entry: PushSyncer = { hash };
  pushed.set(key, entry);
  let downstream: RestClient;
  try {
    const kc = parseKubeconfig(st.spec!.kubeconfig!, process.cwd());
    const creds = await kc.currentCredentials();
    const server = new URL(kc.currentServer());
    downstream = new RestClient({ url: `${server.protocol}//${server.host}`, ca: await kc.currentCaPem(), cert: creds.certPem, key: creds.keyPem, token: creds.token, userAgent: 'atrium-syncer/v0.0.0' });
  } catch (err) {
    entry.error = { reason: 'InvalidKubeConfig', message: (err as Error).message };
    return entry;
  }
  const syncer = new Syncer({
    upstream: ctx.client,
    // The controllers' informers over the same client: the push syncers of a workspace (and the splitter) share one
    // watch per resource.
    upstreamInformers: ctx.informers,
    upstreamCluster: cluster,
    downstream,
    syncTargetName: st.metadata!.name!,
    heartbeatIntervalMs: opts.pushSyncer?.heartbeatIntervalMs,
    importPollIntervalMs: opts.pushSyncer?.importPollIntervalMs,
  });
  entry.syncer = syncer;
  syncer.start().catch((err) => {
    entry.error = { reason: 'ErrorStartingSyncer', message: (err as Error).message };
    logger.warn('push syncer failed to start', { syncTarget: key, error: (err as Error).message });
  });
  return entry;
}

async function stopPush(pushed: Map<string, PushSyncer>, key: string): Promise<void> {
  const p = pushed.get(key);
  if (!p) return;
  pushed.delete(key);
  await p.syncer?.stop();
  p.syncer?.opts.downstream.close();
}

