/**
 * A fixed-capacity ring of recent watch events of one resource, oldest first. It remembers the
 * revision below which it can no longer answer: every event of the resource with a revision above
 * `coveredFrom` is in the ring.
 */
import type { StorageWatchEvent } from '../interface.js';

export class EventRing {
  private readonly slots: Array<StorageWatchEvent | undefined>;
  private start = 0;
  private length = 0;

  /**
   * @param capacity the most events kept (at least 1).
   * @param coveredFrom the revision the ring starts at: events above it will all be pushed.
   */
  constructor(
    readonly capacity: number,
    private covered: number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`ring capacity must be a positive integer, got ${capacity}`);
    this.slots = new Array(capacity);
  }

  /** Every event with a revision above this one is in the ring. */
  get coveredFrom(): number {
    return this.covered;
  }

  get size(): number {
    return this.length;
  }

  /** Appends an event (revisions must increase); when full, the oldest is evicted and coverage moves up. */
  push(event: StorageWatchEvent): void {
    if (this.length === this.capacity) {
      this.covered = this.slots[this.start]!.revision;
      this.slots[this.start] = undefined;
      this.start = (this.start + 1) % this.capacity;
      this.length--;
    }
    this.slots[(this.start + this.length) % this.capacity] = event;
    this.length++;
  }

  /**
   * The events with revision > after, oldest first; undefined when some of them were already evicted
   * (after < coveredFrom). An `after` at or beyond the newest event gives an empty list.
   */
  since(after: number): StorageWatchEvent[] | undefined {
    if (after < this.covered) return undefined;
    // Binary search for the first event above `after`.
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).revision <= after) lo = mid + 1;
      else hi = mid;
    }
    const out: StorageWatchEvent[] = [];
    for (let i = lo; i < this.length; i++) out.push(this.at(i));
    return out;
  }

  private at(index: number): StorageWatchEvent {
    return this.slots[(this.start + index) % this.capacity]!;
  }
}
