/** Deployment conditions (deploymentutil.SetDeploymentCondition and the reasons the deployment controller uses). */
import { findCondition } from '../../../apimachinery/conditions.js';
import type { JsonObject } from '../../../apimachinery/object.js';

export interface DeploymentCondition extends JsonObject {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export const reasons = {
  newReplicaSetCreated: 'NewReplicaSetCreated',
  foundNewReplicaSet: 'FoundNewReplicaSet',
  replicaSetUpdated: 'ReplicaSetUpdated',
  newReplicaSetAvailable: 'NewReplicaSetAvailable',
  progressDeadlineExceeded: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

/**
 * deploymentutil.SetDeploymentCondition, whose rule differs from meta.SetStatusCondition (apimachinery/conditions.ts):
 * unchanged when status and reason are the same (a new message alone is not written); otherwise the old entry is
 * removed and the new one appended with lastUpdateTime now, keeping lastTransitionTime when only the reason changed.
 */
export function setCondition(
  conditions: readonly DeploymentCondition[],
  next: { type: string; status: DeploymentCondition['status']; reason: string; message: string },
  now: string,
): DeploymentCondition[] {
  const current = findCondition(conditions, next.type);
  if (current && current.status === next.status && current.reason === next.reason) return [...conditions];
  const transition = current && current.status === next.status ? (current.lastTransitionTime ?? now) : now;
  return [...conditions.filter((c) => c.type !== next.type), { type: next.type, status: next.status, lastUpdateTime: now, lastTransitionTime: transition, reason: next.reason, message: next.message }];
}
