/** The Node objects and Leases the simulated kubelets publish. */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../apimachinery/object.js';

export const kubeletVersion = 'v1.32.0';

export interface SimulatedNode {
  name: string;
  /** 1-based position, used for the node's addresses and pod CIDR. */
  index: number;
  /** status.capacity (= allocatable), e.g. {cpu: '4', memory: '16Gi', pods: '110'}. */
  capacity: Record<string, string>;
}

/** The node's InternalIP. */
export function nodeInternalIP(node: SimulatedNode): string {
  return `172.18.${Math.floor(node.index / 250)}.${(node.index % 250) + 2}`;
}

/**
 * The second octet of a cluster's pod network (10.<octet>.0.0/16), from a hash of its name: the pods of a fleet's
 * clusters get different IPs (a workspace lists them side by side, in its Endpoints for one), as clusters meant to be
 * joined are given disjoint pod CIDRs. Distinct names may still share one (1 in 208); 10.96–10.111, the Service
 * network, is never used.
 */
export function podNetworkOctet(clusterName: string): number {
  const n = 16 + (createHash('sha256').update(`pods/${clusterName}`).digest().readUInt32BE(0) % 208);
  // Never inside the Service network, 10.96.0.0/12 (10.96–10.111): a pod IP is never a ClusterIP.
  return n < 96 ? n : n + 16;
}

/** The node's pod CIDR: 10.<cluster's octet>.<index>.0/24. */
export function nodePodCIDR(node: SimulatedNode, clusterName: string): string {
  return `10.${podNetworkOctet(clusterName)}.${node.index}.0/24`;
}

/** Node conditions of a healthy kubelet with the given heartbeat time; transitions keep `since`. */
export function healthyNodeConditions(heartbeat: string, since: string): KubeObject[] {
  const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, lastHeartbeatTime: heartbeat, lastTransitionTime: since, reason, message });
  return [
    cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
  ];
}

/** The Node a kubelet registers: labels, pod CIDR, capacity, addresses, node info and Ready conditions. */
export function nodeObject(node: SimulatedNode, clusterName: string, now: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': node.name,
        'kubernetes.io/os': 'linux',
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { podCIDR: nodePodCIDR(node, clusterName), podCIDRs: [nodePodCIDR(node, clusterName)], providerID: `atrium://${clusterName}/${node.name}` },
    status: {
      capacity: { ...node.capacity },
      allocatable: { ...node.capacity },
      conditions: healthyNodeConditions(now, now),
      addresses: [
        { type: 'InternalIP', address: nodeInternalIP(node) },
        { type: 'Hostname', address: node.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: '',
        systemUUID: '',
        bootID: '',
        kernelVersion: '6.8.0-atrium',
        osImage: 'atrium simulated node',
        containerRuntimeVersion: 'atrium://0.1.0',
        kubeletVersion,
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

/** The node's heartbeat Lease in kube-node-lease. */
export function nodeLease(node: SimulatedNode, renewTime: string): KubeObject {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: node.name, namespace: 'kube-node-lease' },
    spec: { holderIdentity: node.name, leaseDurationSeconds: 40, renewTime },
  };
}
