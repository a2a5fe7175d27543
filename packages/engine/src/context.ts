import type { Catalog } from './catalog/index.js';
import { metaValue } from './catalog/meta.js';
import { loadIdentity, type Identity } from './keys/index.js';

/** What every operation of one home shares: its folder, catalog and identity. */
export class Context {
  private cached: Identity | null = null;

  constructor(
    readonly home: string,
    readonly catalog: Catalog,
  ) {}

  /** This home's display name (set by keygen). */
  get name(): string {
    return metaValue(this.catalog, 'name') ?? 'brickpost user';
  }

  /** The identity; @throws BrickpostError NO_IDENTITY */
  identity(): Identity {
    this.cached ??= loadIdentity(this.home, this.name);
    return this.cached;
  }

  forgetIdentity(): void {
    this.cached = null;
  }
}
