import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addDoctor } from '../../../src/domain/catalog.js';
import { findDoctorByReference } from '../../../src/domain/desk/find-by-name.js';
import { foldForSearch } from '../../../src/fields/folded-text.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

describe('a doctor named at the desk', () => {
  const test = useTestDatabase();

  it('is found as patient search finds a name: ß as ss, ø as o, accents and case ignored', () => {
    const strauss = addDoctor(test.db, { name: 'Dr. Jörg Strauß', color: '#336699' });
    const lovas = addDoctor(test.db, { name: 'Dr. Søren Lővás', color: '#993366' });
    assert.equal(findDoctorByReference(test.db, 'strauss').id, strauss.id);
    assert.equal(findDoctorByReference(test.db, 'DR. JORG STRAUSS').id, strauss.id);
    assert.equal(findDoctorByReference(test.db, 'soren').id, lovas.id);
    assert.equal(findDoctorByReference(test.db, 'lovas').id, lovas.id);
    // One folding for both: what search folds a name to, the desk folds it to.
    assert.equal(foldForSearch('Strauß'), 'strauss');
  });
});
