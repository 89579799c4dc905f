import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useTestDatabase } from '../helpers/fixtures.js';
import { runClinic } from '../helpers/run-cli.js';
import { jsonOf } from '../helpers/desk-output.js';

// Issue 39, L5 at the desk: a name typed or pasted with a zero-width space, a soft hyphen or a
// bidi control is stored without it, as over the API, and found as it prints. Real CLI processes.

const ZWSP = '\u200b';
const SOFT_HYPHEN = '\u00ad';
const RLO = '\u202e';

describe('L5 at the desk: names with characters that print as nothing (issue 39)', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);

  it('create-patient and patient edit store the name without them; patient find finds it as it prints', async () => {
    const created = jsonOf<{ patient_number: string; first_name: string; last_name: string }>(
      await clinic(
        'create-patient',
        '--first-name',
        `E${SOFT_HYPHEN}va`,
        '--last-name',
        `Z${ZWSP}ürcher`,
        '--email',
        'eva@example.org',
        '--mobile',
        '0664 1234567',
        '--json',
      ),
    );
    assert.deepEqual([created.first_name, created.last_name], ['Eva', 'Zürcher']);
    const found = jsonOf<{ patient_number: string }[]>(await clinic('patient', 'find', 'zürcher', '--json'));
    assert.deepEqual(
      found.map((patient) => patient.patient_number),
      [created.patient_number],
    );

    const edited = jsonOf<{ last_name: string }>(
      await clinic('patient', 'edit', created.patient_number, '--last-name', `${RLO}Zürcher-Hof${ZWSP}`, '--json'),
    );
    assert.equal(edited.last_name, 'Zürcher-Hof');
    const text = await clinic('patient', 'show', created.patient_number);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^P-000001 {2}Eva Zürcher-Hof$/m);
  });

  it('refuses a name of nothing else as the API does (string_too_short), exit 1', async () => {
    const refused = await clinic(
      'create-patient',
      '--first-name',
      'Ida',
      '--last-name',
      `${ZWSP}${SOFT_HYPHEN}`,
      '--email',
      'ida@example.org',
      '--mobile',
      '0664 7654321',
    );
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /last.name/);
    assert.match(refused.stderr, /at least 1 character/);
    assert.deepEqual(jsonOf<unknown[]>(await clinic('patient', 'find', 'ida', '--json')), []);
  });
});
