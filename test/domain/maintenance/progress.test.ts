import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { progressSteps, type Progress } from '../../../src/domain/maintenance/progress.js';

// How far a long piece of work has come (backup, restore, check, upgrade), as the desk's bar reads it.

/** A listener that keeps every report it is given. */
function recorder(): { reports: Progress[]; listener: (progress: Progress) => void } {
  const reports: Progress[] = [];
  return { reports, listener: (progress) => reports.push(progress) };
}

describe('progressSteps', () => {
  it('reports a step as it starts, numbered among the steps, with the totals it was given', () => {
    const { reports, listener } = recorder();
    const steps = progressSteps(listener, ['copying the database', 'writing the archive', 'verifying']);
    steps.start('copying the database', { totalBytes: 4096 });
    assert.deepEqual(reports, [
      { step: 'copying the database', stepNumber: 1, steps: 3, bytes: 0, totalBytes: 4096, files: 0, totalFiles: 0 },
    ]);
  });

  it('adds up what a step has done, and takes totals learnt on the way', () => {
    const { reports, listener } = recorder();
    const step = progressSteps(listener, ['restoring']).start('restoring');
    step.expect({ totalFiles: 3 });
    step.advance(100, 1);
    step.advance(50);
    step.expect({ totalBytes: 300 });
    assert.deepEqual(
      reports.map(({ bytes, totalBytes, files, totalFiles }) => [bytes, totalBytes, files, totalFiles]),
      [
        [0, 0, 0, 0],
        [0, 0, 0, 3],
        [100, 0, 1, 3],
        [150, 0, 1, 3],
        [150, 300, 1, 3],
      ],
      'each report as the work stood then: a listener that keeps them sees none change afterwards',
    );
  });

  it('numbers a step by its place when steps before it were skipped, and never counts backwards', () => {
    const { reports, listener } = recorder();
    const steps = progressSteps(listener, ['one', 'two', 'three', 'four']);
    steps.start('one');
    steps.start('three');
    // A name not among the steps (or one started again) is the next number, not its place.
    steps.start('one');
    steps.start('extra');
    assert.deepEqual(
      reports.map((report) => [report.step, report.stepNumber, report.steps]),
      [
        ['one', 1, 4],
        ['three', 3, 4],
        ['one', 4, 4],
        ['extra', 5, 4],
      ],
    );
  });

  it('reports nothing and counts nothing without a listener', () => {
    const steps = progressSteps(undefined, ['one']);
    const step = steps.start('one', { totalBytes: 10 });
    assert.doesNotThrow(() => {
      step.advance(5, 1);
      step.expect({ totalBytes: 20 });
    });
    // The same silent step each time: nothing is kept for work no one watches.
    assert.equal(steps.start('one'), step);
  });
});
