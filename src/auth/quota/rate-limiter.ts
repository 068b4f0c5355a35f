/**
 * A request rate limit per user (`--max-requests-per-second-per-user`): a token bucket per user that refills at the
 * limit and holds at most one second's worth, so short bursts pass and sustained floods get 429 with Retry-After.
 * `system:masters` (controllers, the admin) is never limited. A ServiceAccount is a user of its own workspace: every
 * workspace's `system:serviceaccount:default:default` has a bucket of its own, so one tenant's flood never throttles
 * another's accounts of the same name.
 */
import { errors } from '../../apimachinery/status.js';
import { CLUSTER_NAME_EXTRA, type UserInfo } from '../../apimachinery/user.js';

/** The bucket a user draws from: its name, qualified by its token's workspace for a ServiceAccount. */
function bucketKey(user: UserInfo): string {
  const clusters = user.extra?.[CLUSTER_NAME_EXTRA];
  return clusters?.length ? `${clusters.join(',')}|${user.username}` : user.username;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

const MAX_TRACKED_USERS = 10_000;

export class PerUserRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burst: number;

  /** `ratePerSecond` > 0; `now` is injectable for tests. */
  constructor(
    private readonly ratePerSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.burst = Math.max(1, ratePerSecond);
  }

  /** Takes one token for the user or throws 429 TooManyRequests with the seconds until a token is back. */
  admit(user: UserInfo): void {
    if (user.groups.includes('system:masters')) return;
    const t = this.now();
    const key = bucketKey(user);
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= MAX_TRACKED_USERS) this.forgetIdle(t);
      b = { tokens: this.burst, updatedMs: t };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.updatedMs) / 1000) * this.ratePerSecond);
    b.updatedMs = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return;
    }
    const retryAfter = Math.max(1, Math.ceil((1 - b.tokens) / this.ratePerSecond));
    throw errors.tooManyRequests('Too many requests, please try again later.', retryAfter);
  }

  /** Drops users whose buckets have refilled completely: they carry no state worth keeping. */
  private forgetIdle(t: number): void {
    for (const [name, b] of this.buckets) {
      if (b.tokens + ((t - b.updatedMs) / 1000) * this.ratePerSecond >= this.burst) this.buckets.delete(name);
    }
  }
}
