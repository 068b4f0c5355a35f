/**
 * Table printers for negotiated CRDs. A CRD that publishes a type negotiated from physical clusters (annotation
 * `apiresource.kcp.io/negotiated: "true"`, written by the multicluster negotiation controller) stands in for a
 * built-in kind such as apps/v1 Deployment. additionalPrinterColumns cannot compute what kubectl shows for those kinds
 * (READY is "ready/desired"), so a component that knows the kind registers its printer here by group and kind, and
 * the CRD serving code uses it instead of the CRD's columns. Plain CRDs are never affected.
 */
import type { TablePrinter } from '../../apimachinery/table/builtin-printers.js';
import type { CustomResourceDefinition } from '../crd/types.js';

/** The annotation the negotiation controller puts on the CRDs it writes. */
export const NEGOTIATED_CRD_ANNOTATION = 'apiresource.kcp.io/negotiated';

const printers = new Map<string, TablePrinter>();
const keyOf = (group: string, kind: string): string => `${kind}.${group}`;

/**
 * Registers the printer for negotiated CRDs of `group` (empty for core) and `kind`; a later registration for the same
 * pair replaces the earlier one. Affects CRDs (re)built after the call: register at startup, before serving.
 */
export function registerNegotiatedPrinter(group: string, kind: string, printer: TablePrinter): void {
  printers.set(keyOf(group, kind), printer);
}

/** Removes a registration (tests); returns whether there was one. */
export function unregisterNegotiatedPrinter(group: string, kind: string): boolean {
  return printers.delete(keyOf(group, kind));
}

/**
 * The registered printer for `crd` when it is marked negotiated and a printer is registered for its group and
 * `kind` (the accepted kind); undefined otherwise, so the caller falls back to the CRD's printer columns.
 */
export function negotiatedPrinterFor(crd: CustomResourceDefinition, kind: string): TablePrinter | undefined {
  if (crd.metadata?.annotations?.[NEGOTIATED_CRD_ANNOTATION] !== 'true') return undefined;
  return printers.get(keyOf(crd.spec.group, kind));
}
