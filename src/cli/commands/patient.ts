import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { createPatient } from '../../domain/patients/create-patient.js';
import { ValidationError } from '../../domain/errors.js';
import { isPlainObject } from '../../domain/validation/structs.js';
import { problems } from '../../domain/validation/problems.js';
import { issue } from '../../domain/validation/validate.js';
import { PATIENT_INPUT_FIELDS } from '../../fields/patient-fields.js';
import { withDatabase } from '../database.js';
import { addFieldOptions, readFieldOptions } from '../field-options.js';
import type { CliIo } from '../io.js';
import { emit, formatRecord, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';

/** The JSON object in a --file, refused like a malformed request body. */
function readBodyFile(path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ValidationError([issue(['body'], problems.jsonInvalid(`${path}: ${reason}`), {})]);
  }
  if (!isPlainObject(parsed)) throw new ValidationError([issue(['body'], problems.modelAttributesType(), parsed)]);
  return parsed;
}

/** `clinic create-patient`: the same fields and rules as POST /patients. */
export function registerPatientCommands(program: Command, io: CliIo): void {
  const command = subcommand(program, 'create-patient', 'create a patient (same fields and rules as POST /patients)').option(
    '--file <patient.json>',
    'read the patient from a JSON file shaped like the POST /patients body; options override its fields',
  );
  addFieldOptions(command, PATIENT_INPUT_FIELDS, { enforceRequired: false }).action(
    async (options: CommonOptions & { file?: string } & Record<string, unknown>) => {
      const base = options.file === undefined ? {} : readBodyFile(options.file);
      const body = readFieldOptions(options, PATIENT_INPUT_FIELDS, base);
      await withDatabase(options, (db) => {
        const patient = createPatient(db, body);
        emit(io, options, patient, () =>
          formatRecord({
            id: patient.id,
            patient_number: patient.patient_number,
            first_name: patient.first_name,
            last_name: patient.last_name,
            email: patient.email,
            mobile: patient.mobile,
          }),
        );
      });
    },
  );
}
