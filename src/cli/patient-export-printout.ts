import { deskRecord, fileSize, heading } from './desk-format.js';

/** What `patient export --json` prints: the file written and whose copy it is. */
export interface WrittenExport {
  file: string;
  size: number;
  sha256: string;
  patient_id: string;
  patient_number: string;
}

/** The printout of a copy written: whose, where, how big, its SHA-256 to compare with the patient's. */
export function writtenExportPrintout(written: WrittenExport, name: string | null): string {
  return (
    heading(`Copy of the data of ${name ?? written.patient_number}`) +
    deskRecord([
      ['File', written.file],
      ['Size', fileSize(written.size)],
      ['SHA-256', written.sha256],
    ]) +
    'Give the file to the patient (a USB stick or an encrypted e-mail); summary.html in it opens in any browser.\n'
  );
}
