/**
 * Patient search at clinic scale (issue 13): 100,000 patients with names from a mixed Austrian,
 * German, Turkish, Balkan and English list (accents, hyphenated names), searched in process
 * through `findPatients`, the function GET /patients and `clinic patient find` call. Issue 25:
 * the costliest queries a client can send (common one-letter words, many words) at 100,000 and
 * at 5,000 patients. The databases are made once and kept in .tmp/bench.
 *
 *   npm run bench -- --only patient-search     # as part of the benchmark
 *   node --import tsx bench/patient-search.ts  # alone
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { explainPatientSearch } from '../src/db/patient-search.js';
import { openDatabase, type Db } from '../src/db/open-database.js';
import { createPatient } from '../src/domain/patients/create-patient.js';
import { findPatients } from '../src/domain/patients/find-patients.js';
import { ValidationError } from '../src/errors.js';
import { wordLookup } from '../src/fields/search-terms.js';
import { seededRandom } from './invoice-database.js';
import type { Verdict } from './report.js';

export const SEARCH_PATIENTS = 100_000;
/** The target of issue 13 for a name prefix. */
export const SEARCH_MAX_MS = 5;
export const SEARCH_SAMPLES = 400;
/** Issue 25: any q answered within this at HOSTILE_PATIENTS patients. */
export const HOSTILE_MAX_MS = 100;
export const HOSTILE_PATIENTS = 5_000;
/** Fewer samples of the costly queries: before issue 25 one took most of a second. */
const HOSTILE_SAMPLES = 40;

const LAST_NAMES = [
  'Müller',
  'Gruber',
  'Huber',
  'Wagner',
  'Pichler',
  'Steiner',
  'Moser',
  'Mayer',
  'Hofer',
  'Leitner',
  'Berger',
  'Fuchs',
  'Eder',
  'Fischer',
  'Schmid',
  'Winkler',
  'Weber',
  'Schwarz',
  'Maier',
  'Schneider',
  'Reiter',
  'Mayr',
  'Schmidt',
  'Wimmer',
  'Egger',
  'Brunner',
  'Lang',
  'Baumgartner',
  'Auer',
  'Binder',
  'Lechner',
  'Wolf',
  'Wallner',
  'Aigner',
  'Ebner',
  'Koller',
  'Lehner',
  'Haas',
  'Schuster',
  'Holzer',
  'Öztürk',
  'Yılmaz',
  'Kaya',
  'Demir',
  'Şahin',
  'Çelik',
  'Jovanović',
  'Petrović',
  'Nikolić',
  'Marković',
  'Đorđević',
  'Novak',
  'Horvat',
  'Kovačević',
  'Nowak',
  'Kowalski',
  'Wiśniewski',
  'Dvořák',
  'Novotný',
  'Svoboda',
  'Smith',
  'Jones',
  'Williams',
  'Brown',
  'Taylor',
  "O'Brien",
  'Müller-Lüdenscheidt',
  'Schulze-Böhm',
  'Graf',
  'Köhler',
  'Jäger',
  'Böhm',
  'Krämer',
  'Schäfer',
  'Weiß',
  'Groß',
  'Strauß',
  'Hölzl',
  'Pölzl',
  'Kröll',
  'Zöhrer',
  'Lüftner',
  'Rößler',
  'Gößweiner',
  'Lopez',
  'García',
  'Martínez',
  'Rossi',
  'Russo',
  'Ferrari',
  'Esposito',
  'Bianchi',
  'Romano',
  'Colombo',
  'Ricci',
  'Marino',
  'Greco',
  'Bruno',
  'Gallo',
  'Conti',
  'De Luca',
  'Costa',
  'Giordano',
  'Mancini',
  'Rizzo',
  'Lombardi',
  'Moretti',
  'Barbieri',
  'Fontana',
  'Santoro',
  'Mariani',
  'Rinaldi',
  'Caruso',
  'Ferrara',
  'Galli',
  'Martini',
  'Leone',
  'Longo',
  'Gentile',
  'Martinelli',
  'Vitale',
  'Lombardo',
  'Serra',
  'Coppola',
  'De Santis',
  "D'Angelo",
  'Marchetti',
  'Parisi',
  'Villa',
  'Conte',
  'Ferraro',
  'Ferri',
  'Fabbri',
  'Bianco',
  'Marini',
  'Grasso',
  'Valentini',
  'Messina',
  'Sala',
  'De Angelis',
  'Gatti',
  'Pellegrini',
  'Palumbo',
  'Sanna',
  'Farina',
  'Rizzi',
  'Monti',
  'Cattaneo',
  'Morelli',
  'Amato',
  'Silvestri',
  'Mazza',
  'Testa',
  'Grassi',
  'Pellegrino',
  'Carbone',
  'Giuliani',
  'Benedetti',
  'Barone',
  'Rossetti',
  'Caputo',
  'Montanari',
  'Guerra',
  'Palmieri',
  'Bernardi',
  'Martino',
  'Fiore',
  'De Rosa',
  'Ferretti',
  'Bellini',
  'Basile',
  'Riva',
  'Donati',
  'Piras',
  'Vitali',
  'Battaglia',
  'Sartori',
  'Neri',
  'Costantini',
  'Milani',
  'Pagano',
  'Ruggiero',
  'Sorrentino',
  "D'Amico",
  'Orlando',
  'Damico',
  'Negri',
];
const FIRST_NAMES = [
  'Anna',
  'Maria',
  'Elisabeth',
  'Katharina',
  'Sophie',
  'Lena',
  'Laura',
  'Sarah',
  'Julia',
  'Hannah',
  'Lea',
  'Emma',
  'Marie',
  'Johanna',
  'Theresa',
  'Magdalena',
  'Valentina',
  'Emilia',
  'Ayşe',
  'Fatma',
  'Zeynep',
  'Élodie',
  'Chloé',
  'Jürgen',
  'Lukas',
  'Maximilian',
  'Jakob',
  'David',
  'Tobias',
  'Paul',
  'Jonas',
  'Felix',
  'Elias',
  'Alexander',
  'Florian',
  'Sebastian',
  'Stefan',
  'Michael',
  'Thomas',
  'Andreas',
  'Markus',
  'Wolfgang',
  'Günther',
  'Franz',
  'Josef',
  'Johann',
  'Karl',
  'Mehmet',
  'Mustafa',
  'Ahmet',
  'Luka',
  'Marko',
  'Nikola',
  'Miloš',
  'Jiří',
  'Tomáš',
  'Łukasz',
  'Søren',
  'Björn',
  'Zoë',
  'Noémie',
  'Anna-Lena',
  'Marie-Theres',
  'Hans-Peter',
  'Karl-Heinz',
];

/** A database of `count` patients (SEARCH_PATIENTS unless told), made on first use. */
function searchDatabase(cacheDir: string, log: (line: string) => void, count = SEARCH_PATIENTS): string {
  const dataDir = join(cacheDir, `patients-${count}-search3`);
  if (existsSync(join(dataDir, 'clinic.db'))) return dataDir;
  const building = `${dataDir}.building`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  log(`making ${count.toLocaleString('en')} patients in ${dataDir} (once)`);
  const db = openDatabase(building);
  const next = seededRandom(13);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const started = Date.now();
  db.pragma('synchronous = OFF');
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const year = 1930 + Math.floor(next() * 90);
      const month = String(1 + Math.floor(next() * 12)).padStart(2, '0');
      const day = String(1 + Math.floor(next() * 28)).padStart(2, '0');
      createPatient(db, {
        first_name: pick(FIRST_NAMES),
        last_name: pick(LAST_NAMES),
        date_of_birth: `${year}-${month}-${day}`,
        email: `patient${i}@example.org`,
        mobile: `+43 6${Math.floor(10 + next() * 89)} ${String(Math.floor(next() * 10_000_000)).padStart(7, '0')}`,
      });
    }
  }).immediate();
  db.close();
  renameSync(building, dataDir);
  log(`  made in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dataDir;
}

/** One kind of query and what it found. */
export interface SearchFigure {
  query: string;
  label: string;
  matches: string;
  medianMs: number;
  p99Ms: number;
  maxMs: number;
  isNamePrefix: boolean;
  /** One of the costly queries of issue 25. */
  isHostile: boolean;
  patients: number;
}

function timeQuery(db: Db, q: string, samplesWanted: number): { medianMs: number; p99Ms: number; maxMs: number; matches: string } {
  const samples: number[] = [];
  let matches = '';
  for (let i = 0; i < samplesWanted; i++) {
    const started = process.hrtime.bigint();
    try {
      const page = findPatients(db, { q });
      matches = page.next === null ? `${page.items.length}` : `first page of ${page.items.length}, more follow`;
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      matches = `refused: 422 ${error.issues.map((issue) => issue.type).join(', ')}`;
    }
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const at = (share: number) => samples[Math.min(samples.length - 1, Math.floor(samplesWanted * share))]!;
  return { medianMs: at(0.5), p99Ms: at(0.99), maxMs: samples.at(-1)!, matches };
}

const letters = (text: string) => [...text].join(' ');
/** Issue 25: what a client can send that costs most. `m` is the commonest initial of the names here (27 % of patients). */
const HOSTILE_QUERIES: readonly { q: string; label: string }[] = [
  { q: 'm', label: 'the commonest initial' },
  { q: 'a', label: 'a common initial' },
  { q: 'm a', label: 'two common initials' },
  { q: 'm s', label: 'two common initials that rarely meet' },
  { q: letters('amslejkhft'), label: '10 common initials that never meet' },
  { q: 'm mu mul mull mulle muller m mu mul mull', label: '10 words, each a prefix of the next' },
  { q: 'a '.repeat(10).trim(), label: 'one letter 10 times' },
  { q: 'a '.repeat(100).trim(), label: 'one letter 100 times (issue 25)' },
  {
    q: letters('abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv'),
    label: '100 one-letter words a-z',
  },
  { q: '4242 m', label: 'phone digits and a common initial' },
  { q: '0664 1234 5678', label: 'three runs of phone digits' },
];

const QUERIES: readonly { q: string; label: string; isNamePrefix: boolean }[] = [
  { q: 'mül', label: 'last-name prefix, folded (Müller, Müller-Lüdenscheidt)', isNamePrefix: true },
  { q: 'muller', label: 'a whole last name without its umlaut', isNamePrefix: true },
  { q: 'lud', label: 'the second part of a hyphenated name', isNamePrefix: true },
  { q: 'gruber an', label: 'last name and first-name prefix', isNamePrefix: true },
  { q: 'yilmaz ayse', label: 'Turkish letters typed without them', isNamePrefix: true },
  { q: 'P-4242', label: 'a patient number', isNamePrefix: false },
  { q: '1961-07-23', label: 'a date of birth', isNamePrefix: false },
  { q: 'patient4242@example.org', label: 'a whole email', isNamePrefix: false },
  { q: '4242', label: 'four digits (number 4242, and phone numbers holding 4242)', isNamePrefix: false },
  { q: 'huber 664', label: 'a name and three digits of the mobile', isNamePrefix: true },
];

/**
 * Times each query of QUERIES on the search database, and each of HOSTILE_QUERIES there and on
 * one of HOSTILE_PATIENTS; prints the plan of a one-word search.
 */
export function measurePatientSearch(cacheDir: string, log: (line: string) => void): SearchFigure[] {
  const figures: SearchFigure[] = [];
  const measure = (db: Db, patients: number, q: string, label: string, isNamePrefix: boolean, isHostile: boolean) => {
    const { medianMs, p99Ms, maxMs, matches } = timeQuery(db, q, isHostile ? HOSTILE_SAMPLES : SEARCH_SAMPLES);
    const shown = q.length > 26 ? `${q.slice(0, 23)}...` : q;
    log(
      `  ${shown.padEnd(26)} ${medianMs.toFixed(3)} ms median, ${p99Ms.toFixed(3)} ms p99, ${maxMs.toFixed(3)} ms max (${matches}): ${label}`,
    );
    figures.push({ query: q, label, matches, medianMs, p99Ms, maxMs, isNamePrefix, isHostile, patients });
  };
  for (const patients of [SEARCH_PATIENTS, HOSTILE_PATIENTS]) {
    const db = openDatabase(searchDatabase(cacheDir, log, patients));
    try {
      log(`${patients.toLocaleString('en')} patients`);
      if (patients === SEARCH_PATIENTS) {
        log(`plan of a one-word search: ${explainPatientSearch(db, [wordLookup('mül')]).join(' / ')}`);
        for (const { q, label, isNamePrefix } of QUERIES) measure(db, patients, q, label, isNamePrefix, false);
      }
      for (const { q, label } of HOSTILE_QUERIES) measure(db, patients, q, label, false, true);
    } finally {
      db.close();
    }
  }
  return figures;
}

/** The figures as a Markdown table for bench/results.md. */
export function formatSearchFigures(figures: readonly SearchFigure[]): string {
  const row = (f: SearchFigure) =>
    `| ${f.patients.toLocaleString('en')} | \`${f.query.length > 40 ? `${f.query.slice(0, 37)}...` : f.query}\` | ${f.label} | ${f.matches} | ${f.medianMs.toFixed(2)} ms | ${f.p99Ms.toFixed(2)} ms | ${f.maxMs.toFixed(2)} ms |`;
  return [
    `Patient search, GET /patients?q in process (\`findPatients\`), ${SEARCH_SAMPLES} samples each (${HOSTILE_SAMPLES} of the costly queries of issue 25):`,
    '',
    '| patients | q | what | found | median | p99 | max |',
    '|---|---|---|---|---|---|---|',
    ...figures.map(row),
  ].join('\n');
}

/**
 * Issue 13: a name-prefix search answers in under 5 ms (the median of each name query; p99
 * shown). Issue 25: every costly query within 100 ms at 5,000 patients (its slowest sample), and
 * five of the slowest at once, which one process answers one after another, within 300 ms.
 */
export function searchVerdicts(figures: readonly SearchFigure[]): Verdict[] {
  const names = figures
    .filter((f) => f.isNamePrefix)
    .map((f) => ({
      target: `patient search \`${f.query}\` over ${f.patients.toLocaleString('en')} patients < ${SEARCH_MAX_MS} ms`,
      measured: `${f.medianMs.toFixed(2)} ms median, ${f.p99Ms.toFixed(2)} ms p99`,
      met: f.medianMs < SEARCH_MAX_MS,
    }));
  const hostile = figures.filter((f) => f.isHostile && f.patients === HOSTILE_PATIENTS);
  if (hostile.length === 0) return names;
  const slowest = hostile.reduce((a, b) => (b.maxMs > a.maxMs ? b : a));
  return [
    ...names,
    {
      target: `any q over ${HOSTILE_PATIENTS.toLocaleString('en')} patients < ${HOSTILE_MAX_MS} ms`,
      measured: `slowest \`${slowest.query.slice(0, 30)}\` ${slowest.maxMs.toFixed(2)} ms max`,
      met: slowest.maxMs < HOSTILE_MAX_MS,
    },
    {
      target: `five of the slowest q at once, answered one after another, < 300 ms`,
      measured: `5 × ${slowest.maxMs.toFixed(2)} = ${(5 * slowest.maxMs).toFixed(1)} ms`,
      met: 5 * slowest.maxMs < 300,
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  measurePatientSearch(join(root, '.tmp/bench'), (line) => console.log(line));
}
