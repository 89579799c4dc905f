import type { Db } from '../../src/db/open-database.js';
import type { Role } from '../../src/domain/people/roles.js';
import type { RawRequest } from '../../src/domain/use-case.js';
import { DESK_USER, type Scenario } from './use-case-scenarios.js';

/**
 * The scenario of every admin-only use case: the request `request` makes on `given`, sent by a
 * desk person who holds `roles` but not admin, is refused (403 ROLE_FORBIDDEN).
 */
export function refusesNonAdmin<G>(
  given: (db: Db) => G,
  request: (given: G) => RawRequest,
  roles: readonly Role[] = ['reception'],
): Scenario<G> {
  return {
    title: 'refuses a person who is not an admin (403 ROLE_FORBIDDEN)',
    given,
    request,
    caller: { ...DESK_USER, roles },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  };
}
