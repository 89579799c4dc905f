import type { Next } from 'koa';
import type { Db } from '../../db/open-database.js';
import { requireModuleEnabled, type ModuleName } from '../../domain/settings.js';
import type { ClinicContext } from '../api/state.js';

/** 403 MODULE_DISABLED unless the clinic has `module` on; read per request so a switch applies at once. */
export function requireModule(db: Db, module: ModuleName) {
  return async function requireModuleMiddleware(_ctx: ClinicContext, next: Next): Promise<void> {
    requireModuleEnabled(db, module);
    await next();
  };
}
