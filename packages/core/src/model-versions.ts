/**
 * A tenant's model as immutable, versioned snapshots in the platform registry: every api instance
 * serves the version the registry names as current, whatever files its host has. A snapshot is a
 * bundle (the model repository's files, see `@odp/model-loader`'s bundle) stored once per content
 * hash; versions are numbered per tenant in the order they were first stored.
 */

/** One stored version of a tenant's model (without its bundle). */
export interface ModelVersionRecord {
  readonly tenantId: string;
  /** 1, 2, ... per tenant, in the order versions were first stored (gaps are possible). */
  readonly version: number;
  /** The content hash of the bundle (`sha256:<hex>`): the same files are one version. */
  readonly hash: string;
  /** The bundle's size in bytes. */
  readonly bytes: number;
  readonly createdAt: string;
}

/** The registry's store of model versions (`PlatformRegistry.modelVersions`). */
export interface ModelVersions {
  /**
   * Stores `bundle` as the tenant's next version, unless a version with the same `hash` exists
   * (that one is returned): versions never change once stored. Storing does not make it current.
   * NotFoundError for an unknown tenant.
   */
  save(tenantId: string, hash: string, bundle: string): Promise<ModelVersionRecord>;
  /** The version and its bundle; null when the tenant has no such version. */
  read(
    tenantId: string,
    version: number,
  ): Promise<{ readonly record: ModelVersionRecord; readonly bundle: string } | null>;
  /** Every stored version of the tenant, oldest first. */
  list(tenantId: string): Promise<ModelVersionRecord[]>;
  /** Names the version every instance serves. NotFoundError when the tenant has no such version. */
  setCurrent(tenantId: string, version: number): Promise<void>;
  /** The version the tenant's instances serve; null when none was ever made current. */
  current(tenantId: string): Promise<ModelVersionRecord | null>;
  /** The current version number of every tenant that has one (one read, for the instances' poll). */
  currentOfAll(): Promise<ReadonlyMap<string, number>>;
}
