/**
 * The log of one simulated container instance: timestamped lines in a bounded ring (the oldest go first, as a
 * rotated container log loses its head), and followers that see new lines as they are appended and are told when
 * the instance ends (it exited, restarted or its pod was deleted), which ends `kubectl logs -f`.
 */

export interface LogEntry {
  /** Milliseconds since the epoch, with sub-millisecond precision. */
  time: number;
  /** The line without its newline. */
  text: string;
}

export interface LogFollower {
  line(entry: LogEntry): void;
  end(): void;
}

/** Lines kept per container instance. */
export const defaultLogLines = 1000;

let lastTime = 0;
/** A strictly increasing wall-clock time with microseconds, so `--timestamps` orders lines as they were written. */
function preciseNow(): number {
  const t = performance.timeOrigin + performance.now();
  lastTime = t > lastTime ? t : lastTime + 0.001;
  return lastTime;
}

/** RFC3339Nano as Go formats it (time.RFC3339Nano: trailing zeros of the fraction dropped), in UTC. */
export function formatRFC3339Nano(ms: number): string {
  const whole = Math.floor(ms / 1000) * 1000;
  const nanos = Math.round((ms - whole) * 1e6);
  const base = new Date(whole).toISOString().slice(0, 19);
  const frac = nanos > 0 ? `.${String(Math.min(nanos, 999_999_999)).padStart(9, '0').replace(/0+$/, '')}` : '';
  return `${base}${frac}Z`;
}

export class ContainerLog {
  private entries: LogEntry[] = [];
  private readonly followers = new Set<LogFollower>();
  private finished = false;

  constructor(private readonly maxLines = defaultLogLines) {}

  get ended(): boolean {
    return this.finished;
  }

  append(text: string): void {
    if (this.finished) return;
    const entry = { time: preciseNow(), text };
    this.entries.push(entry);
    if (this.entries.length > this.maxLines) this.entries.splice(0, this.entries.length - this.maxLines);
    for (const f of this.followers) f.line(entry);
  }

  /** No more lines: followers end. */
  end(): void {
    if (this.finished) return;
    this.finished = true;
    for (const f of this.followers) f.end();
    this.followers.clear();
  }

  lines(): readonly LogEntry[] {
    return this.entries;
  }

  /** Follows new lines; returns the unsubscribe function. An ended log ends the follower at once. */
  follow(follower: LogFollower): () => void {
    if (this.finished) {
      follower.end();
      return () => {};
    }
    this.followers.add(follower);
    return () => this.followers.delete(follower);
  }
}
