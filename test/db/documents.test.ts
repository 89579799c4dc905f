import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainPatientDocumentList } from '../../src/db/documents.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/**
 * Every list query is read from an index (the quality bar: "an index for every list query"),
 * proved on SQLite's own plan rather than on timings.
 */
describe("the plan of a patient's documents", () => {
  const data = useTestDatabase();

  it("reads a patient's documents newest first from documents_by_patient, without a sort", () => {
    const plan = explainPatientDocumentList(data.db).join('\n');
    assert.match(plan, /SEARCH documents USING INDEX documents_by_patient \(patient_id=\? AND created_at<\?\)/);
    assert.doesNotMatch(plan, /TEMP B-TREE/);
  });
});
