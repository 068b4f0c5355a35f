/** What every kind list of the differential suite is made of (./kinds.ts, ./workload-kinds.ts). */

/** The namespace the namespaced cases write into. */
export const NS = 'diff';

export interface KindUnderTest {
  kind: string;
  apiVersion: string;
  resource: string;
  namespaced: boolean;
  /** Catalog definition name. */
  type: string;
  /** A valid object named `name`; the generator varies its fields. */
  valid(name: string): Record<string, any>;
}
