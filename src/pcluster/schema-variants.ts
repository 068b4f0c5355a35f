/**
 * Deliberately different API schemas for a simulated cluster (`atrium pcluster --deployment-schema <variant>`), so
 * type negotiation can be exercised against a cluster whose Deployment type disagrees with the others'. Only the
 * published OpenAPI changes (what a syncer reads); the served objects and their validation stay as they are.
 */
import { builtinCatalog } from '../apimachinery/schema/builtin/index.js';
import { schemasFromCatalog } from '../apiserver/openapi/schema-from-catalog.js';
import { deployments } from '../registry/builtin/workloads/resources.js';
import type { ResourceDefinition } from '../registry/rest.js';

/** Known variants: `replicas-as-string` publishes DeploymentSpec.replicas as a string. */
export const deploymentSchemaVariants = ['replicas-as-string'] as const;
export type DeploymentSchemaVariant = (typeof deploymentSchemaVariants)[number];

const SPEC = 'io.k8s.api.apps.v1.DeploymentSpec';

/** The deployments resource publishing `variant`'s schema instead of the standard one. */
export function deploymentsWithSchemaVariant(variant: DeploymentSchemaVariant): ResourceDefinition {
  const alter = (version: 'v2' | 'v3') => {
    const spec = structuredClone(schemasFromCatalog(builtinCatalog, version)[SPEC]!) as { properties: Record<string, unknown> };
    if (variant === 'replicas-as-string') spec.properties.replicas = { type: 'string', description: 'How many pods to run (this cluster publishes it as a string).' };
    return { [SPEC]: spec };
  };
  return Object.assign(Object.create(Object.getPrototypeOf(deployments)) as object, deployments, {
    openAPISchemas: { v2: alter('v2'), v3: alter('v3') },
    schemaVersion: variant,
  }) as ResourceDefinition;
}
