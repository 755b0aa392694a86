/**
 * A platform registry shared by several processes through an InvalidationChannel (scale-out):
 * every write announces what it changed, and the reads each request makes (tenant, API key by hash,
 * profile, settings) are answered from memory while the channel's generation is unchanged. Because
 * a publish has moved the generation on every instance before it resolves, a key revoked or a
 * profile suspended through one instance (or `odp`) is refused by every other on its next request,
 * whatever the registry's engine. The embedded SQLite registry needs none of this on its own: it
 * detects other connections' commits through `PRAGMA data_version`.
 *
 * When the channel cannot answer its generation, reads go straight to the registry (never stale,
 * only slower).
 */
import type { InvalidationChannel, Invalidation } from './coordination.js';
import type { ModelVersions } from './model-versions.js';
import type { PlatformRegistry } from './platform.js';

/** Remembered reads at most; unknown keys are remembered too, so random keys cannot grow it without bound. */
const MAX_REMEMBERED_READS = 10_000;

export function sharedRegistry(registry: PlatformRegistry, channel: InvalidationChannel): PlatformRegistry {
  const remembered = new Map<string, unknown>();
  let rememberedGeneration: string | null = null;

  const remember = async <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let generation: string;
    try {
      generation = await channel.generation();
    } catch {
      return read();
    }
    if (generation !== rememberedGeneration) {
      remembered.clear();
      rememberedGeneration = generation;
    }
    if (remembered.has(key)) return remembered.get(key) as T;
    const value = await read();
    // Kept only under the generation it was read in: a value read before a publish that another
    // read has seen meanwhile may be stale.
    if (rememberedGeneration !== generation) return value;
    if (remembered.size >= MAX_REMEMBERED_READS) remembered.clear();
    remembered.set(key, value);
    return value;
  };
  /** Runs a write and announces it; the write has happened even if the announcement fails. */
  const announce = async <T>(write: Promise<T>, message: (result: T) => Invalidation | null): Promise<T> => {
    const result = await write;
    const invalidation = message(result);
    remembered.clear();
    if (invalidation !== null) await channel.publish(invalidation);
    return result;
  };

  return {
    createTenant: (input) =>
      announce(registry.createTenant(input), (tenant) => ({ kind: 'tenant', tenantId: tenant.id })),
    getTenant: (id) => remember(`tenant:${id}`, () => registry.getTenant(id)),
    listTenants: () => registry.listTenants(),
    tenantsOfPerson: (issuer, subject, now) => registry.tenantsOfPerson(issuer, subject, now),
    deleteTenant: (id) =>
      announce(registry.deleteTenant(id), (deleted) => (deleted ? { kind: 'tenant', tenantId: id } : null)),

    createProfile: (input) =>
      announce(registry.createProfile(input), (profile) => ({
        kind: 'profile',
        tenantId: profile.tenantId,
        profileId: profile.id,
      })),
    getProfile: (tenantId, profileId) =>
      remember(`profile:${tenantId}:${profileId}`, () => registry.getProfile(tenantId, profileId)),
    findProfileByPerson: (tenantId, issuer, subject) =>
      remember(JSON.stringify(['person', tenantId, issuer, subject]), () =>
        registry.findProfileByPerson(tenantId, issuer, subject),
      ),
    findProfileByEmail: (tenantId, email) => registry.findProfileByEmail(tenantId, email),
    setProfileActive: (tenantId, profileId, active) =>
      announce(registry.setProfileActive(tenantId, profileId, active), () => ({
        kind: 'profile',
        tenantId,
        profileId,
      })),
    listProfiles: (tenantId) => registry.listProfiles(tenantId),
    profilesLinkedTo: (tenantId, objectId) => registry.profilesLinkedTo(tenantId, objectId),
    linkProfile: (tenantId, profileId, objectId) =>
      announce(registry.linkProfile(tenantId, profileId, objectId), () => ({
        kind: 'profile',
        tenantId,
        profileId,
      })),
    createInvitation: (input) => registry.createInvitation(input),
    listInvitations: (tenantId) => registry.listInvitations(tenantId),
    acceptInvitation: (tokenHash, issuer, subject, now) =>
      announce(registry.acceptInvitation(tokenHash, issuer, subject, now), (profile) => ({
        kind: 'profile',
        tenantId: profile.tenantId,
        profileId: profile.id,
      })),

    createApiKey: (input) =>
      announce(registry.createApiKey(input), (key) => ({
        kind: 'apiKey',
        tenantId: key.tenantId,
        keyId: key.id,
      })),
    findApiKeyByHash: (keyHash) => remember(`key:${keyHash}`, () => registry.findApiKeyByHash(keyHash)),
    listApiKeys: (tenantId) => registry.listApiKeys(tenantId),
    revokeApiKey: (tenantId, keyId, now) =>
      announce(registry.revokeApiKey(tenantId, keyId, now), () => ({ kind: 'apiKey', tenantId, keyId })),

    getSetting: (key) => remember(`setting:${key}`, () => registry.getSetting(key)),
    setSetting: (key, value) => announce(registry.setSetting(key, value), () => ({ kind: 'setting', key })),

    // Model versions are read uncached: the instances' poll of the current version is the fallback
    // for a lost announcement, so it must reach the store.
    modelVersions: announcedModelVersions(registry.modelVersions, channel),

    close: () => registry.close(),
  };
}

/**
 * The registry with its model version changes announced on `channel` (`{kind: 'model'}` once a
 * version is named current), everything else as it is: for processes that share a registry that is
 * fresh on its own (the embedded SQLite file of one machine) and only need to hear a model switch.
 */
export function announcingModelVersions(
  registry: PlatformRegistry,
  channel: InvalidationChannel,
): PlatformRegistry {
  const modelVersions = announcedModelVersions(registry.modelVersions, channel);
  return new Proxy(registry, {
    get: (target, member) =>
      member === 'modelVersions' ? modelVersions : Reflect.get(target, member, target),
  });
}

/** `versions` bound to it, with `setCurrent` announced on `channel` once the write is done. */
function announcedModelVersions(versions: ModelVersions, channel: InvalidationChannel): ModelVersions {
  return {
    save: (tenantId, hash, bundle) => versions.save(tenantId, hash, bundle),
    read: (tenantId, version) => versions.read(tenantId, version),
    list: (tenantId) => versions.list(tenantId),
    setCurrent: async (tenantId, version) => {
      await versions.setCurrent(tenantId, version);
      await channel.publish({ kind: 'model', tenantId });
    },
    current: (tenantId) => versions.current(tenantId),
    currentOfAll: () => versions.currentOfAll(),
  };
}
