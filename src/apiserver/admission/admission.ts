import type { KubeObject } from '../../apimachinery/object.js';
import type { RequestContext, ResourceDefinition } from '../../registry/rest.js';

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  ctx: RequestContext;
  def: ResourceDefinition;
  namespace: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  subresource?: string;
  /** A dry run: plugins must not persist side effects (the quota plugin does not charge usage). */
  dryRun?: boolean;
}

/** An admission plugin: may mutate the object or refuse the request by throwing a StatusError. */
export interface AdmissionPlugin {
  readonly name: string;
  admit(attrs: AdmissionAttributes): Promise<void> | void;
}

/** Runs plugins in order; the first refusal wins. */
export class Admission {
  constructor(private readonly plugins: AdmissionPlugin[]) {}
  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) await p.admit(attrs);
  }
}
