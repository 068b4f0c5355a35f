/**
 * Webster / Sainte-Laguë apportionment: seats go one at a time to the party with the highest priority
 * `votes / (2·seats + 1)`. Because the result for N+1 seats is the result for N plus one more pick, the method is
 * house-monotone: adding seats never takes a seat away from anyone. Replica splitting relies on that property so a
 * scale-up never shrinks a cluster.
 */

/** One party of an apportionment. `seats` is updated in place; `cap` bounds it (Infinity for no bound). */
export interface Party {
  readonly name: string;
  readonly votes: number;
  seats: number;
  readonly cap: number;
  /** Tie-break before the name (lower first) when both parties of a tie have one. */
  readonly rank?: number;
}

/**
 * Total order of the next pick: higher priority first; on equal priority fewer seats first (spreads small totals, as
 * Karmada does for availability), then the lower rank when the parties have ranks, then the smaller name (plain
 * code-unit order) so results never depend on input order.
 */
function before(a: Party, b: Party): boolean {
  const pa = a.votes / (2 * a.seats + 1);
  const pb = b.votes / (2 * b.seats + 1);
  if (pa !== pb) return pa > pb;
  if (a.seats !== b.seats) return a.seats < b.seats;
  if (a.rank !== undefined && b.rank !== undefined && a.rank !== b.rank) return a.rank < b.rank;
  return a.name < b.name;
}

/**
 * Hands out `newSeats` seats over `parties` (mutating their `seats`) with Webster's method, starting from the seats
 * they already hold and never exceeding a party's `cap`. Parties with zero votes only receive seats once every party
 * with votes is capped. Returns how many seats could not be placed because every party reached its cap.
 *
 * Cost is O(k log k) for k parties regardless of `newSeats`: the bulk of the seats is handed out in one pass by
 * giving each party every pick whose priority lies strictly above a threshold (those picks come first in the
 * sequential order whatever the tie-breaks), and only the last ~k seats go through the priority queue. The result is
 * identical to picking one seat at a time.
 */
export function apportionWebster(newSeats: number, parties: Party[]): number {
  let remaining = Math.max(0, Math.floor(newSeats));
  remaining -= jumpStart(remaining, parties);
  const heap = parties.filter((p) => p.seats < p.cap);
  heapify(heap);
  while (remaining > 0 && heap.length > 0) {
    const top = heap[0]!;
    top.seats++;
    remaining--;
    if (top.seats >= top.cap) {
      const last = heap.pop()!;
      if (heap.length > 0) {
        heap[0] = last;
        siftDown(heap, 0);
      }
    } else {
      siftDown(heap, 0);
    }
  }
  return remaining;
}

/**
 * Gives every open party (votes > 0, below its cap) all its picks with priority strictly above a threshold t, choosing
 * t by bisection as low as it can go while those picks number at most the seats left (stopping once within k of it,
 * k being the number of open parties; the queue places the rest). Every pick above t precedes every pick at or below
 * it in the one-at-a-time order, whatever the tie-breaks, so the result is unchanged. Returns the seats granted.
 */
function jumpStart(remaining: number, parties: Party[]): number {
  const open = parties.filter((p) => p.votes > 0 && p.seats < p.cap);
  if (remaining <= open.length) return 0;
  const room = open.reduce((sum, p) => sum + (p.cap - p.seats), 0);
  if (room <= remaining) {
    // Every open party fills up before any closed or vote-less party could be picked.
    for (const p of open) p.seats = p.cap;
    return room;
  }
  const picksAt = (t: number): number => {
    let n = 0;
    for (const p of open) {
      n += picksAbove(p, t);
      if (n > remaining) return n;
    }
    return n;
  };
  let hi = Math.max(...open.map((p) => p.votes / (2 * p.seats + 1)));
  let lo = hi;
  do lo /= 2;
  while (lo > 0 && picksAt(lo) <= remaining);
  let granted = 0;
  for (let i = 0; i < 100 && granted < remaining - open.length; i++) {
    const mid = (lo + hi) / 2;
    if (mid <= lo || mid >= hi) break;
    const n = picksAt(mid);
    if (n <= remaining) {
      hi = mid;
      granted = n;
    } else {
      lo = mid;
    }
  }
  if (granted === 0) return 0;
  let total = 0;
  for (const p of open) {
    const n = picksAbove(p, hi);
    p.seats += n;
    total += n;
  }
  return total;
}

/** How many more seats `p` gets while its priority stays strictly above `threshold` (bounded by its cap). */
function picksAbove(p: Party, threshold: number): number {
  const priority = (seats: number) => p.votes / (2 * seats + 1);
  const room = p.cap - p.seats;
  const estimate = Math.ceil((p.votes / threshold - 1) / 2) - p.seats;
  if (!Number.isFinite(estimate)) return room;
  let count = Math.min(room, Math.max(0, estimate));
  // Re-check with the exact expression the queue compares, so rounding cannot disagree with it.
  while (count > 0 && !(priority(p.seats + count - 1) > threshold)) count--;
  while (count < room && priority(p.seats + count) > threshold) count++;
  return count;
}

function heapify(heap: Party[]): void {
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i);
}

function siftDown(heap: Party[], index: number): void {
  const n = heap.length;
  let i = index;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let best = i;
    if (l < n && before(heap[l]!, heap[best]!)) best = l;
    if (r < n && before(heap[r]!, heap[best]!)) best = r;
    if (best === i) return;
    [heap[i], heap[best]] = [heap[best]!, heap[i]!];
    i = best;
  }
}
