/**
 * Patient search at clinic scale (issue 13): 100,000 patients with names from a mixed Austrian,
 * German, Turkish, Balkan and English list (accents, hyphenated names), searched in process
 * through `findPatients`, the function GET /patients and `clinic patient find` call. The
 * database is made once and kept in .tmp/bench.
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
import { wordLookup } from '../src/db/search-terms.js';
import { seededRandom } from './invoice-database.js';
import type { Verdict } from './report.js';

export const SEARCH_PATIENTS = 100_000;
/** The target of issue 13 for a name prefix. */
export const SEARCH_MAX_MS = 5;
export const SEARCH_SAMPLES = 400;
const SAMPLES = SEARCH_SAMPLES;

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

/** The database of SEARCH_PATIENTS patients, made on first use. */
function searchDatabase(cacheDir: string, log: (line: string) => void): string {
  const dataDir = join(cacheDir, `patients-${SEARCH_PATIENTS}-search3`);
  if (existsSync(join(dataDir, 'clinic.db'))) return dataDir;
  const building = `${dataDir}.building`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  log(`making ${SEARCH_PATIENTS.toLocaleString('en')} patients in ${dataDir} (once)`);
  const db = openDatabase(building);
  const next = seededRandom(13);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const started = Date.now();
  db.pragma('synchronous = OFF');
  db.transaction(() => {
    for (let i = 0; i < SEARCH_PATIENTS; i++) {
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
  isNamePrefix: boolean;
}

function timeQuery(db: Db, q: string): { medianMs: number; p99Ms: number; first: number; more: boolean } {
  const samples: number[] = [];
  let first = 0;
  let more = false;
  for (let i = 0; i < SAMPLES; i++) {
    const started = process.hrtime.bigint();
    const page = findPatients(db, { q });
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
    first = page.items.length;
    more = page.next !== null;
  }
  samples.sort((a, b) => a - b);
  return { medianMs: samples[Math.floor(SAMPLES / 2)]!, p99Ms: samples[Math.floor(SAMPLES * 0.99)]!, first, more };
}

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

/** Times each query of QUERIES on the search database; prints the plan of a one-word search. */
export function measurePatientSearch(cacheDir: string, log: (line: string) => void): SearchFigure[] {
  const dataDir = searchDatabase(cacheDir, log);
  const db = openDatabase(dataDir);
  try {
    log(`plan of a one-word search: ${explainPatientSearch(db, [wordLookup('mül')]).join(' / ')}`);
    return QUERIES.map(({ q, label, isNamePrefix }) => {
      const { medianMs, p99Ms, first, more } = timeQuery(db, q);
      const matches = more ? `first page of ${first}, more follow` : `${first}`;
      log(`  ${q.padEnd(26)} ${medianMs.toFixed(3)} ms median, ${p99Ms.toFixed(3)} ms p99 (${matches}): ${label}`);
      return { query: q, label, matches, medianMs, p99Ms, isNamePrefix };
    });
  } finally {
    db.close();
  }
}

/** The figures as a Markdown table for bench/results.md. */
export function formatSearchFigures(figures: readonly SearchFigure[]): string {
  return [
    `Patient search, GET /patients?q in process (\`findPatients\`), ${SEARCH_PATIENTS.toLocaleString('en')} patients, ${SEARCH_SAMPLES} samples each:`,
    '',
    '| q | what | found | median | p99 |',
    '|---|---|---|---|---|',
    ...figures.map((f) => `| \`${f.query}\` | ${f.label} | ${f.matches} | ${f.medianMs.toFixed(2)} ms | ${f.p99Ms.toFixed(2)} ms |`),
  ].join('\n');
}

/** Issue 13: a name-prefix search answers in under 5 ms (the median of each name query; p99 shown). */
export function searchVerdicts(figures: readonly SearchFigure[]): Verdict[] {
  return figures
    .filter((f) => f.isNamePrefix)
    .map((f) => ({
      target: `patient search \`${f.query}\` over ${SEARCH_PATIENTS.toLocaleString('en')} patients < ${SEARCH_MAX_MS} ms`,
      measured: `${f.medianMs.toFixed(2)} ms median, ${f.p99Ms.toFixed(2)} ms p99`,
      met: f.medianMs < SEARCH_MAX_MS,
    }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  measurePatientSearch(join(root, '.tmp/bench'), (line) => console.log(line));
}
