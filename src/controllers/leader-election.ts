/**
 * Lease-based leader election (the protocol of client-go's leaderelection with a LeaseLock), so that of
 * several atrium replicas on one etcd exactly one runs the controllers at a time and another takes over
 * when it dies.
 *
 * The lock is a coordination.k8s.io/v1 Lease. A candidate may take it when it has no holder, or when the
 * holder has not renewed it for leaseDurationSeconds as measured on the candidate's own clock: the
 * candidate remembers when it last saw the lease's record change, so clock skew between replicas does
 * not matter. Every write is an update with the resourceVersion that was read, so two candidates can never
 * both win. The leader renews every retryPeriod; if it cannot renew within renewDeadline it stops leading
 * (stops the controllers) before the lease can expire for others, then campaigns again.
 */
import { StatusError } from '../apimachinery/status.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { RestClient } from '../client/rest-client.js';
import { logger } from '../logging/logger.js';

export const LEASES = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' } as const;

export interface LeaderElectionConfig {
  client: RestClient;
  /** Lease namespace (kube-system) and name. */
  namespace: string;
  name: string;
  /** This candidate's identity, unique per process (hostname + random suffix, as client-go's users do). */
  identity: string;
  /** How long a lease is valid without renewal (default 15 s). */
  leaseDurationSeconds?: number;
  /** How long the leader keeps trying to renew before giving up leadership (default 10 s). */
  renewDeadlineMs?: number;
  /** Time between acquire and renew attempts (default 2 s). */
  retryPeriodMs?: number;
  /**
   * Called when this candidate becomes leader; not awaited by the renew loop. `signal` is aborted the moment this
   * candidate stops leading, possibly while this is still starting: work must not act once it is aborted. A rejection
   * is logged and leadership is released.
   */
  onStartedLeading(signal: AbortSignal): Promise<void>;
  /** Called when this candidate stops leading (lost the lease, or stop()). */
  onStoppedLeading(): Promise<void>;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

type Lease = KubeObject & { spec?: LeaseSpec };

export class LeaderElector {
  private leading = false;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** The leader's work being started (resolved once started, or once its failure is handled). */
  private starting: Promise<void> = Promise.resolve();
  private startFailed = false;
  /** Aborted when the current leadership term ends. */
  private term: AbortController | undefined;
  /** The lease spec last read, and when (local clock) it last changed. */
  private observed: { record: string; at: number } | undefined;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;

  constructor(private readonly config: LeaderElectionConfig) {
    this.leaseDurationMs = (config.leaseDurationSeconds ?? 15) * 1000;
    this.renewDeadlineMs = config.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = config.retryPeriodMs ?? 2_000;
    if (this.renewDeadlineMs >= this.leaseDurationMs) throw new Error('leader election: renewDeadline must be shorter than the lease duration');
  }

  /** Whether this candidate currently holds the lease and runs the leader's work. */
  isLeader(): boolean {
    return this.leading;
  }

  /**
   * Makes one acquisition attempt (so a free lease is taken before this resolves and the caller's
   * controllers are running), then keeps campaigning and renewing in the background until stop().
   */
  async start(): Promise<void> {
    if (this.loop) return;
    const acquired = await this.tryAcquireOrRenew().catch((err: unknown) => {
      logger.warn('leader election: first attempt failed, will retry', { lease: this.config.name, error: String(err) });
      return false;
    });
    if (acquired) this.becomeLeader();
    // Renewing runs from here on, also while the work is still starting.
    this.loop = this.run();
    await this.starting;
  }

  /** Stops campaigning; when leading, stops the leader's work and releases the lease so another takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    if (this.leading) {
      await this.stepDown();
      await this.release().catch((err: unknown) => logger.warn('leader election: releasing the lease failed', { error: String(err) }));
    }
  }

  private async run(): Promise<void> {
    let lastRenew = Date.now();
    while (!this.stopped) {
      if (!this.startFailed) await this.sleep(this.retryPeriodMs * (this.leading ? 1 : 1 + Math.random() * 0.2));
      if (this.stopped) break;
      if (this.startFailed) {
        // Handled here, between renewals, so that a renewal can never re-acquire in the middle of the release.
        this.startFailed = false;
        await this.stepDown();
        await this.release().catch(() => undefined);
        // Back off for a lease duration before campaigning again: the other candidates, which see the lease
        // released, get their turn instead of racing a candidate whose work just failed to start.
        await this.sleep(this.leaseDurationMs * (1 + Math.random() * 0.2));
        continue;
      }
      const ok = await this.tryAcquireOrRenew().catch((err: unknown) => {
        logger.debug('leader election: attempt failed', { lease: this.config.name, error: String(err) });
        return false;
      });
      if (this.stopped) break;
      if (ok) {
        lastRenew = Date.now();
        if (!this.leading) this.becomeLeader();
      } else if (this.leading && Date.now() - lastRenew > this.renewDeadlineMs) {
        logger.warn('leader election: failed to renew the lease in time, stopping the controllers', { lease: this.config.name, identity: this.config.identity });
        await this.stepDown();
      }
    }
  }

  /**
   * Starts the leader's work without waiting for it: the loop goes on renewing meanwhile (as client-go runs
   * OnStartedLeading in its own goroutine), so work that takes long to start (informers syncing) cannot let the lease
   * lapse under it. A failure to start is left to the loop, which steps down and releases the lease.
   */
  private becomeLeader(): void {
    this.leading = true;
    const term = new AbortController();
    this.term = term;
    logger.info('leader election: became leader', { lease: `${this.config.namespace}/${this.config.name}`, identity: this.config.identity });
    this.starting = this.config.onStartedLeading(term.signal).catch((err: unknown) => {
      if (term.signal.aborted) return; // stopped leading meanwhile: the failure is the abort's, nothing to release
      logger.error('leader election: starting the leader work failed; releasing the lease', { error: String(err) });
      this.startFailed = true;
      this.wake?.();
    });
  }

  private async stepDown(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    // At once, before anything is awaited: work still starting must stop acting now, not once its start returns.
    this.term?.abort();
    // Work still starting is let finish first, so that what it started is stopped too.
    await this.starting;
    await this.config.onStoppedLeading().catch((err: unknown) => logger.error('leader election: stopping the leader work failed', { error: String(err) }));
  }

  /** One attempt: true when this candidate holds the lease afterwards. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name, identity } = this.config;
    const now = microTime(new Date());
    let current: Lease;
    try {
      current = await client.get<Lease>(LEASES, name, { namespace });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
      const created: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: { holderIdentity: identity, leaseDurationSeconds: this.leaseDurationMs / 1000, acquireTime: now, renewTime: now, leaseTransitions: 0 },
      };
      try {
        await client.create(LEASES, created, { namespace });
      } catch (createErr) {
        if (createErr instanceof StatusError && createErr.code === 409) return false;
        throw createErr;
      }
      this.observe(created.spec!);
      return true;
    }
    const spec = current.spec ?? {};
    this.observe(spec);
    const holder = spec.holderIdentity ?? '';
    const heldByOther = holder !== '' && holder !== identity;
    const durationMs = (spec.leaseDurationSeconds ?? this.leaseDurationMs / 1000) * 1000;
    if (heldByOther && this.observed!.at + durationMs > Date.now()) return false;
    const next: LeaseSpec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds: this.leaseDurationMs / 1000,
      renewTime: now,
      acquireTime: holder === identity ? (spec.acquireTime ?? now) : now,
      leaseTransitions: holder === identity ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
    };
    try {
      // The update carries current.metadata.resourceVersion: it fails with 409 if anyone wrote in between.
      await client.update(LEASES, { ...current, spec: next }, { namespace });
    } catch (err) {
      if (err instanceof StatusError && err.code === 409) return false;
      throw err;
    }
    this.observe(next);
    return true;
  }

  /** Gives the lease up (holder cleared, 1 s duration) so another candidate need not wait for expiry. */
  private async release(): Promise<void> {
    const { client, namespace, name, identity } = this.config;
    const current = await client.get<Lease>(LEASES, name, { namespace });
    if (current.spec?.holderIdentity !== identity) return;
    const now = microTime(new Date());
    await client.update(LEASES, { ...current, spec: { ...current.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now } }, { namespace });
  }

  private observe(spec: LeaseSpec): void {
    const record = JSON.stringify([spec.holderIdentity ?? '', spec.renewTime ?? '', spec.acquireTime ?? '', spec.leaseTransitions ?? 0]);
    if (this.observed?.record !== record) this.observed = { record, at: Date.now() };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** metav1.MicroTime's wire format: RFC 3339 in UTC with exactly six fractional digits. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export interface LeaderElectedOptions {
  client: RestClient;
  identity: string;
  /** Lease namespace and name (default kube-system/atrium-controller-manager). */
  namespace?: string;
  name?: string;
  leaseDurationSeconds?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/**
 * Runs work (e.g. startControllers) only while this process holds the lease: starts it on becoming
 * leader, stops it on losing the lease, starts it again on winning again. stop() stops the work when
 * running and releases the lease. `signal` is aborted as soon as the term ends, also while the work starts.
 */
export async function startLeaderElected(
  options: LeaderElectedOptions,
  work: (signal: AbortSignal) => Promise<{ stop(): Promise<void> }>,
): Promise<{ elector: LeaderElector; stop(): Promise<void> }> {
  let running: { stop(): Promise<void> } | undefined;
  const elector = new LeaderElector({
    client: options.client,
    namespace: options.namespace ?? 'kube-system',
    name: options.name ?? 'atrium-controller-manager',
    identity: options.identity,
    leaseDurationSeconds: options.leaseDurationSeconds,
    renewDeadlineMs: options.renewDeadlineMs,
    retryPeriodMs: options.retryPeriodMs,
    onStartedLeading: async (signal) => {
      running = await work(signal);
    },
    onStoppedLeading: async () => {
      const r = running;
      running = undefined;
      await r?.stop();
    },
  });
  await elector.start();
  return { elector, stop: () => elector.stop() };
}
