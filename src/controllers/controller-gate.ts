/**
 * Whether this replica's in-process controllers may act now. On embedded storage there is one replica and the gate
 * stays open; on etcd it follows the controller Lease (leader-election.ts), so that of several replicas exactly one
 * writes on the controllers' behalf: two replicas scheduling the same Workspace would each create a LogicalCluster.
 * Controllers that also keep serving state (the CRD controller feeds discovery, tenancy the workspace index) keep
 * observing while closed and only stop reconciling; when the gate opens they queue everything they know again.
 */
export class ControllerGate {
  private readonly listeners = new Set<(open: boolean) => void>();

  constructor(private open = true) {}

  isOpen(): boolean {
    return this.open;
  }

  set(open: boolean): void {
    if (open === this.open) return;
    this.open = open;
    for (const l of this.listeners) l(open);
  }

  /** Calls `listener` on every change from now on. */
  onChange(listener: (open: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
