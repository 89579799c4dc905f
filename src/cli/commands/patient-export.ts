import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { EXPORT_PATIENT, openPatientExport, type PatientExport } from '../../domain/patient-export/export-patient.js';
import { resolvePatientReference } from '../../domain/references.js';
import { writeFileWhole } from '../../domain/written-file.js';
import { deskPcRun, offerDownload } from '../desk-identity.js';
import { patientLabel } from '../desk-format.js';
import { writtenExportPrintout, type WrittenExport } from '../patient-export-printout.js';
import { fieldArgument } from '../field-options.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { parseTargetPath } from '../target-path.js';
import { runUseCaseCommand } from '../use-case-command.js';

interface ExportOptions extends CommonOptions {
  out: string;
}

/**
 * Writes the copy to `target`, streamed into a temporary file beside it and renamed when whole:
 * a copy cut short (a damaged document: DOCUMENT_FILE_DAMAGED) leaves no file behind.
 */
async function writeExport(
  dataDir: string,
  exported: PatientExport,
  target: string,
  delivered: () => Promise<void>,
): Promise<WrittenExport> {
  return writeFileWhole(target, { replace: false }, async (file) => {
    const archive = await openPatientExport(dataDir, exported, delivered);
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of archive as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
      await file.write(chunk);
    }
    return {
      file: target,
      size,
      sha256: hash.digest('hex'),
      patient_id: exported.contents.patient.id,
      patient_number: exported.contents.patient.patient_number,
    };
  });
}

/** `clinic patient export REF --out FILE`: the patient's copy (GDPR Art. 15, 20), as GET /patients/{id}/export makes it. */
export function registerPatientExportCommand(group: Command, io: CliIo): void {
  fieldArgument(
    subcommand(
      group,
      'export',
      "write a patient's copy of their data (GDPR Art. 15, 20): a ZIP with every record, a FHIR R4 Bundle and the original documents",
    ),
    '<ref>',
    'the patient: its number (P-000042, P-42) or its id',
    'patient_id',
  )
    .requiredOption(
      '--out <file>',
      'the ZIP to write, readable by this user only; its folder must exist, the file must not',
      parseTargetPath,
    )
    .action(async (ref: string, options: ExportOptions) => {
      // For a desk PC the file is its own to fetch: the export operation records it.
      const forDeskPc = deskPcRun() !== undefined;
      let name: string | null = null;
      await runUseCaseCommand(io, options, EXPORT_PATIENT, {
        request: (db) => ({ path: { patient_id: resolvePatientReference(db, ref) } }),
        recordsNothing: forDeskPc,
        shownByDeskPc: true,
        deliver: async (exported, _db, delivered) => {
          const { patient } = exported.contents;
          if (forDeskPc) {
            offerDownload(`/patients/${patient.id}/export`);
            return undefined;
          }
          name = patientLabel(patient.patient_number, String(patient.first_name), String(patient.last_name));
          return writeExport(resolve(options.data), exported, options.out, delivered);
        },
        json: (written) => written,
        print: (written) => writtenExportPrintout(written, name),
      });
    });
}
