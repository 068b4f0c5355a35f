/**
 * Controller expectations (client-go's ControllerExpectations): after a controller creates or deletes pods it waits
 * until its informer has seen that many adds/deletes before acting on the same key again, so a lagging cache never
 * makes it create (or delete) twice. Expectations expire after `ttlMs`, in case an event was missed.
 */
interface Expectation {
  adds: number;
  deletes: number;
  setAt: number;
}

export class Expectations {
  private readonly byKey = new Map<string, Expectation>();

  constructor(private readonly ttlMs = 30_000) {}

  /** Records that `adds` creations and `deletes` deletions are in flight for `key`. */
  expect(key: string, adds: number, deletes: number): void {
    this.byKey.set(key, { adds, deletes, setAt: Date.now() });
  }

  /** The informer saw a creation for `key`. */
  observedAdd(key: string): void {
    const e = this.byKey.get(key);
    if (e) e.adds--;
  }

  /** The informer saw a deletion for `key`. */
  observedDelete(key: string): void {
    const e = this.byKey.get(key);
    if (e) e.deletes--;
  }

  /** A creation or deletion failed: it will never be observed. */
  lowerExpectations(key: string, adds: number, deletes: number): void {
    const e = this.byKey.get(key);
    if (e) {
      e.adds -= adds;
      e.deletes -= deletes;
    }
  }

  /** True when nothing is outstanding (or the expectation expired): the cache can be trusted for `key`. */
  satisfied(key: string): boolean {
    const e = this.byKey.get(key);
    if (!e) return true;
    if ((e.adds <= 0 && e.deletes <= 0) || Date.now() - e.setAt > this.ttlMs) {
      this.byKey.delete(key);
      return true;
    }
    return false;
  }

  forget(key: string): void {
    this.byKey.delete(key);
  }
}
