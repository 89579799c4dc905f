/**
 * Issue 44: switching person at a shared PC, `clinic login --as NAME` with the PIN on standard
 * input, as a whole process of dist/clinic (≤ 2 s after the PIN), two persons in turn so each
 * login ends the other's session; beside it the PIN hash's own cost (scrypt, pin.ts) in this
 * process, and the desk command `patient find` as a logged-in person against the same command
 * before any person existed (the session's check and its one write).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { hashPin, pinMatches } from '../src/domain/people/pin.js';
import { seedDeskPatients, timeRun } from './desk-latency.js';

export interface SwitchPersonResult {
  /** Whole `login --as` processes, alternating two persons. */
  loginMs: number[];
  /** One PIN check (scrypt) in this process. */
  hashMs: number[];
  /** `patient find` before the first person existed, and as a logged-in person. */
  anonymousFindMs: number[];
  personFindMs: number[];
}

/** `samples` logins alternating two persons, `samples` PIN checks, and `samples` finds each way. */
export function measureSwitchPerson(executable: string, workDir: string, samples: number): SwitchPersonResult {
  const dataDir = seedDeskPatients(join(workDir, 'people'));
  const config = mkdtempSync(join(workDir, 'config-'));
  const env = { ...process.env, XDG_CONFIG_HOME: config, XDG_CACHE_HOME: join(workDir, 'desk-cache') };
  const clinic = (args: string[], input?: string) => timeRun([executable, ...args, '--data', dataDir], env, input);
  const find = ['patient', 'find', 'Muster'];
  const result: SwitchPersonResult = { loginMs: [], hashMs: [], anonymousFindMs: [], personFindMs: [] };
  clinic(find);
  for (let i = 0; i < samples; i++) result.anonymousFindMs.push(clinic(find));

  const people = [
    { name: 'Eva Huber', role: 'admin', pin: '270419' },
    { name: 'Lena Gruber', role: 'reception', pin: '604918' },
  ];
  for (const person of people) {
    const added = spawnSync(executable, ['staff', 'add', '--name', person.name, '--role', person.role, '--json', '--data', dataDir], {
      env,
    });
    const code = (JSON.parse(added.stdout.toString()) as { setup_code: string }).setup_code;
    clinic(['staff', 'set-pin', '--as', person.name, '--pin-stdin'], `${code}\n${person.pin}\n${person.pin}\n`);
  }
  for (let i = 0; i < samples; i++) {
    const person = people[i % 2]!;
    result.loginMs.push(clinic(['login', '--as', person.name, '--pin-stdin'], `${person.pin}\n`));
  }
  for (let i = 0; i < samples; i++) result.personFindMs.push(clinic(find));
  const stored = hashPin('270419');
  for (let i = 0; i < samples; i++) {
    const started = process.hrtime.bigint();
    pinMatches('270419', stored);
    result.hashMs.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  rmSync(config, { recursive: true, force: true });
  return result;
}
