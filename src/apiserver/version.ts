/**
 * What /version reports. We speak the Kubernetes 1.32 API, so clients (kubectl skew warnings, Helm, Argo CD) see 1.32;
 * the +atrium suffix says which server it really is.
 */
export const kubernetesVersion = { major: '1', minor: '32', gitVersion: 'v1.32.4+atrium' };

export function versionInfo(): Record<string, string> {
  return {
    major: kubernetesVersion.major,
    minor: kubernetesVersion.minor,
    gitVersion: kubernetesVersion.gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-11-21T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}
