import { UNRESTRICTED } from '@odp/core';
import type { AccessPolicy, Model } from '@odp/core';
import { isConcrete } from './classes.js';

/**
 * The access policy of a tenant without record-level access control: every object readable and
 * changeable, every concrete class creatable. Role checks (viewer refused on writes) stay in the
 * HTTP layer.
 */
export function unrestrictedPolicy(model: Model): AccessPolicy {
  return {
    accessFilter: () => Promise.resolve(UNRESTRICTED),
    mayRead: () => Promise.resolve(true),
    mayModify: () => Promise.resolve(true),
    mayDelete: () => Promise.resolve(true),
    mayCreate: (_account, className) => {
      const allowedClasses = (model.classes.get(className)?.descendants ?? [])
        .map((name) => model.classes.get(name))
        .filter((cls) => cls !== undefined && isConcrete(cls))
        .map((cls) => cls?.name ?? '');
      return Promise.resolve({ mayCreate: allowedClasses.length > 0, allowedClasses });
    },
  };
}
