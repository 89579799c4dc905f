import { mock } from 'node:test';
import type { Db } from '../../src/db/open-database.js';
import { SET_CLINIC_NAME } from '../../src/domain/desk/clinic-settings.js';
import { SET_REMINDERS } from '../../src/domain/reminders/set-reminders.js';
import { setClinicTimeZone } from '../../src/domain/settings.js';
import { performUseCase } from '../../src/domain/use-case.js';
import { DESK_USER } from './use-case-scenarios.js';

/**
 * The reminder tests' clinic: Date stopped at 28.11.2026 08:00 UTC (the test resets the timers
 * after it), "Ordination Dr. Huber" in Vienna, reminding by the rules `before` without quiet hours.
 */
export function setUpRemindingClinic(db: Db, before: readonly string[]): void {
  mock.timers.reset();
  mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-11-28T08:00:00Z') });
  setClinicTimeZone(db, 'Europe/Vienna');
  performUseCase(SET_CLINIC_NAME, db, { body: { name: 'Ordination Dr. Huber' } }, DESK_USER);
  performUseCase(SET_REMINDERS, db, { body: { before, quiet_hours: 'off' } }, DESK_USER);
}
