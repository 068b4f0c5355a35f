/**
 * Bringing a root dir written by atrium's bucketed home releases (homes at `root:users:<bucket>:<bucket>:<user>`) to
 * kcp v0.32.3's model at bootstrap, losing nothing: the old homes and their bucket types stay as they are (see
 * home-workspaces.ts); only what root's bootstrap owns is brought up to date, keeping every choice an admin made.
 */
import type { KubeObject } from '../apimachinery/object.js';
import { StatusError } from '../apimachinery/status.js';
import type { GenericStore } from '../registry/generic/store.js';
import { HOME_TYPE, homeCreatorPolicy } from './home-workspaces.js';
import { ROOT_CLUSTER } from './paths.js';
import type { systemContext } from './workspace-lifecycle.js';
import { builtinWorkspaceTypes } from './workspace-types.js';

type Ctx = ReturnType<typeof systemContext>;

/** The names atrium's bucketed releases gave the home-creator grant (kcp's are in homeCreatorPolicy). */
const LEGACY_HOME_CREATOR_POLICY = {
  role: 'system:kcp:tenancy:home-workspace-creator',
  binding: 'system:kcp:authenticated:home-workspace-creator',
};

/** Root's stores the upgrade touches. */
export interface RootStores {
  types: GenericStore;
  roles: GenericStore;
  bindings: GenericStore;
}

/** Both steps below; idempotent, and nothing to do on a root dir that never had bucketed homes. */
export async function upgradeBucketedHomes(stores: RootStores, ctx: Ctx): Promise<void> {
  await upgradeBucketedHomeType(stores.types, ctx);
  await migrateHomeCreatorPolicy(stores.roles, stores.bindings, ctx);
}

/** The `home` WorkspaceType's spec as atrium's bucketed releases bootstrapped it (a home lived under root:homebucket). */
const BUCKETED_HOME_SPEC = JSON.stringify({
  extend: { with: [{ name: 'universal', path: ROOT_CLUSTER }] },
  defaultChildWorkspaceType: { name: 'universal', path: ROOT_CLUSTER },
  limitAllowedParents: { types: [{ name: 'homebucket', path: ROOT_CLUSTER }] },
});

/**
 * A data dir from the bucketed layout has `home` with parents limited to root:homebucket: it gets kcp v0.32.3's spec
 * (no parent at all), as kcp's bootstrap rewrites the types it ships. A spec an admin changed is left alone, and so
 * are root:homeroot and root:homebucket, which the old homes' workspaces still name as their types.
 */
async function upgradeBucketedHomeType(types: GenericStore, ctx: Ctx): Promise<void> {
  const stored = await getIfExists(types, ctx, HOME_TYPE.name);
  if (!stored || JSON.stringify(stored.spec) !== BUCKETED_HOME_SPEC) return;
  const wanted = builtinWorkspaceTypes().find((t) => t.metadata?.name === HOME_TYPE.name)!;
  await types.guaranteedUpdate(ctx, '', HOME_TYPE.name, (cur) => {
    cur!.spec = wanted.spec;
    return cur!;
  }, { dryRun: false });
}

/**
 * The bucketed releases granted `create workspaces ~` under other names. What that grant said moves to kcp's binding
 * before the defaults are created: its subjects (an admin may have narrowed them), or none at all when the admin had
 * deleted the old binding to turn homes off (kcp's binding with no creator groups); then the old pair goes.
 */
async function migrateHomeCreatorPolicy(roles: GenericStore, bindings: GenericStore, ctx: Ctx): Promise<void> {
  const legacyRole = await getIfExists(roles, ctx, LEGACY_HOME_CREATOR_POLICY.role);
  const legacyBinding = await getIfExists(bindings, ctx, LEGACY_HOME_CREATOR_POLICY.binding);
  if (!legacyRole && !legacyBinding) return;
  const { binding } = homeCreatorPolicy();
  try {
    await bindings.create(ctx, '', { ...binding, subjects: legacyBinding?.subjects ?? [] }, { dryRun: false });
  } catch (err) {
    if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
  }
  if (legacyBinding) await bindings.delete(ctx, '', LEGACY_HOME_CREATOR_POLICY.binding, { dryRun: false }).catch(ignoreNotFound);
  if (legacyRole) await roles.delete(ctx, '', LEGACY_HOME_CREATOR_POLICY.role, { dryRun: false }).catch(ignoreNotFound);
}

async function getIfExists(store: GenericStore, ctx: Ctx, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(ctx, '', name);
  } catch (err) {
    ignoreNotFound(err);
    return undefined;
  }
}

function ignoreNotFound(err: unknown): void {
  if (!(err instanceof StatusError && err.code === 404)) throw err;
}
