// The clinic's settings as stored: absent is the default; a change applies on a running server at once (decisions.md §2).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDatabase } from '../../src/db/open-database.js';
import { readSetting, removeSetting, writeSetting } from '../../src/db/settings.js';
import { useTestDatabase } from '../helpers/fixtures.js';

describe('settings (db)', () => {
  const data = useTestDatabase({ each: true });

  it('reads a setting never set as undefined (its default applies), then what was written last', () => {
    assert.equal(readSetting(data.db, 'currency'), undefined);
    writeSetting(data.db, 'currency', 'CHF');
    writeSetting(data.db, 'currency', 'EUR');
    assert.equal(readSetting(data.db, 'currency'), 'EUR');
    assert.equal(readSetting(data.db, 'timezone'), undefined);
  });

  it('keeps an empty value as empty, not as never set', () => {
    writeSetting(data.db, 'clinic_name', '');
    assert.equal(readSetting(data.db, 'clinic_name'), '');
  });

  it('forgets a removed setting, which then reads as never set, and leaves the others', () => {
    writeSetting(data.db, 'sms_gateway', '{"provider":"twilio"}');
    writeSetting(data.db, 'serve.smtp_host', 'mail.praxis.example');
    removeSetting(data.db, 'sms_gateway');
    removeSetting(data.db, 'never.set');
    assert.deepEqual([readSetting(data.db, 'sms_gateway'), readSetting(data.db, 'serve.smtp_host')], [undefined, 'mail.praxis.example']);
  });

  it("reads on the server's connection what the desk wrote or removed on its own, at the next read", () => {
    assert.equal(readSetting(data.db, 'module.payments'), undefined);
    const desk = openDatabase(data.dataDir);
    try {
      writeSetting(desk, 'module.payments', 'off');
      assert.equal(readSetting(data.db, 'module.payments'), 'off');
      removeSetting(desk, 'module.payments');
      assert.equal(readSetting(data.db, 'module.payments'), undefined);
    } finally {
      desk.close();
    }
  });
});
