/**
 * Authorization's part of the server as a plugin: the RBAC and review resources, RBAC escalation admission, and the
 * RBAC index loaded before the server listens. Authentication and the per-request authorization are request filters
 * the composition root takes from the same AuthSystem (src/server/server.ts).
 */
import type { ServerPlugin } from '../apiserver/plugin.js';
import type { AuthSystem } from './auth-system.js';

export function authPlugin(auth: AuthSystem): ServerPlugin {
  return {
    name: 'auth',
    resources: auth.resources(),
    async install() {
      await auth.start();
      return { admission: [auth.admission], stop: () => auth.stop() };
    },
  };
}
