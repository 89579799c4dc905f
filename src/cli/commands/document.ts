import { replayNote } from '../use-case-command.js';
import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { wasReplayed } from '../../domain/idempotent-answers.js';
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { documentMediaType, MEDIA_TYPE_RULE, OCTET_STREAM } from '../../domain/documents/media-type.js';
import { presentDocumentItem, READ_DOCUMENT } from '../../domain/documents/read-documents.js';
import { saveDocumentCopy } from '../../domain/documents/save-document.js';
import { uploadDocument } from '../../domain/documents/upload-document.js';
import { resolveDocumentReference, resolvePatientReference } from '../../domain/references.js';
import { DOCUMENT_FORM_FIELDS } from '../../fields/document-fields.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES } from '../../domain/documents/document-limit.js';
import { LIST_ALL_DOCUMENTS } from '../../domain/desk/patient-overview.js';
import { withDatabase } from '../database.js';
import { documentTable } from '../document-table.js';
import { addFieldOptions, fieldArgument, readFieldOptions } from '../field-options.js';
import { parseMegabytes, resolveDocumentLimitBytes } from '../env-options.js';
import type { CliIo } from '../io.js';
import { readPatient } from '../../domain/patients/read-patient.js';
import { clinicTimeZone } from '../../domain/settings.js';
import { deskRecord, fileSize, heading, localDateTime, patientLabel } from '../desk-format.js';
import { emit, type CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { parseTargetPath } from '../target-path.js';
import { parseFilePath } from '../input-file.js';
import { chunksOfNamedFile, openNamedFile } from '../../domain/named-files.js';
import { deskCaller, deskPcRun, fileNameOf, offerDownload } from '../desk-identity.js';
import { runUseCaseCommand } from '../use-case-command.js';

interface UploadOptions extends CommonOptions, Record<string, unknown> {
  patientId: string;
  file: string;
  contentType?: string;
  documentLimitMb?: number;
}

interface SaveOptions extends CommonOptions {
  force?: boolean;
}

/**
 * `clinic document save REF FILE`: a stored document, named by its number (D-17) or its id,
 * written back to a file, as the API's download sends it, checked against its SHA-256 on the way.
 */
function registerDocumentSaveCommand(group: Command, io: CliIo): void {
  const command = subcommand(group, 'save', 'write a stored document to a file, checked against the SHA-256 of its upload');
  fieldArgument(command, '<ref>', 'the document: its number (D-000017, D-17; `clinic document list` prints them) or its id', 'document_id')
    .argument('<file>', 'the file to write; its folder must exist', parseTargetPath)
    .option('--force', 'replace FILE if it exists (it is kept until the new copy is whole)')
    .action(async (ref: string, target: string, options: SaveOptions) => {
      // For a desk PC the file is its own to fetch (interface 1.3.0): the download records the read.
      const forDeskPc = deskPcRun() !== undefined;
      await runUseCaseCommand(io, options, READ_DOCUMENT, {
        request: (db) => ({ path: { document_id: resolveDocumentReference(db, ref) } }),
        recordsNothing: forDeskPc,
        // Its document.read is committed (with the run) before a byte of the file is written.
        deliver: async (document) => {
          if (forDeskPc) offerDownload(`/patients/${document.patient_id}/documents/${document.id}`);
          else await saveDocumentCopy(resolve(options.data), document, target, { replace: options.force === true });
          return document;
        },
        json: presentDocumentItem,
        print(document, db) {
          const patient = readPatient(db, document.patient_id);
          return (
            heading(`Document of ${patientLabel(patient.patient_number, String(patient.first_name), String(patient.last_name))}`) +
            deskRecord([
              ['Number', document.document_number],
              ['Title', document.title],
              ['Type', document.type],
              ['File', `${document.filename} (${document.content_type}, ${fileSize(document.size)})`],
              ['Stored', localDateTime(document.created_at, clinicTimeZone(db))],
            ]) +
            `Saved ${fileSize(document.size)} to ${target}; its SHA-256 is the upload's.\n`
          );
        },
      });
    });
}

/** `clinic document list REF`: every document of a patient, newest first, with the numbers `save` takes. */
function registerDocumentListCommand(group: Command, io: CliIo): void {
  fieldArgument(
    subcommand(group, 'list', "list a patient's documents, newest first, with their numbers (--json: DocumentItems)"),
    '<ref>',
    'the patient: its id or its number (P-000042, P-42)',
    'patient_id',
  ).action(async (ref: string, options: CommonOptions) => {
    await runUseCaseCommand(io, options, LIST_ALL_DOCUMENTS, {
      request: (db) => ({ path: { patient_id: resolvePatientReference(db, ref) } }),
      json: ({ documents }) => documents,
      print({ patient, documents }, db) {
        const label = patientLabel(patient.patient_number, String(patient.first_name), String(patient.last_name));
        return heading(`Documents of ${label}`) + documentTable(documents, clinicTimeZone(db));
      },
    });
  });
}

/**
 * `--content-type` must be a media type that can be served back (media-type.ts, the same rule as
 * the upload form's); anything else is a usage error (exit 2), like a bad `--file`.
 */
function parseContentType(text: string): string {
  if (documentMediaType(text) === undefined) throw new InvalidArgumentError(`expected ${MEDIA_TYPE_RULE}`);
  return text;
}

/**
 * The media type of a file by its name's extension (`scan.PDF` → `application/pdf`), for an upload
 * at the desk without `--content-type`; application/octet-stream for an extension no one knows.
 * Only the desk guesses: the API stores what the form declared (decisions.md §6).
 */
async function typeOfFileName(name: string): Promise<string> {
  // mime-types parses its whole table when loaded: only an upload without --content-type needs it.
  const { lookup } = await import('mime-types');
  const guessed = lookup(name);
  return (guessed === false ? undefined : documentMediaType(guessed)) ?? OCTET_STREAM;
}

/**
 * `clinic upload-document`: the same steps and rules as POST /patients/{patient_id}/documents;
 * and `clinic document list|save`.
 */
export function registerDocumentCommands(program: Command, io: CliIo): void {
  const group = program.command('document').description("a patient's stored documents");
  registerDocumentListCommand(group, io);
  registerDocumentSaveCommand(group, io);
  const command = subcommand(program, 'upload-document', 'store a document for a patient (same rules as POST /patients/{id}/documents)')
    .requiredOption('--patient-id <ref>', 'the patient: its id or its number (P-000042, P-42)')
    .requiredOption('--file <path>', 'the file to store; it is streamed, never read into memory whole', parseFilePath)
    .option(
      '--content-type <type>',
      `its media type, stored as type/subtype in lower case (default: by the file name's extension, else ${OCTET_STREAM})`,
      parseContentType,
    )
    .option(
      '--document-limit-mb <mb>',
      `largest document accepted in MiB, as for serve (env CLINIC_DOCUMENT_LIMIT_MB, default ${DEFAULT_DOCUMENT_LIMIT_BYTES / 1024 / 1024})`,
      parseMegabytes,
    );
  addFieldOptions(command, IDEMPOTENCY_HEADER_FIELDS);
  addFieldOptions(command, DOCUMENT_FORM_FIELDS).action(async (options: UploadOptions, actionCommand: Command) => {
    const limitBytes = resolveDocumentLimitBytes(actionCommand, options.documentLimitMb);
    await withDatabase(options, async (db) => {
      // Who stores it, taken before anything is awaited.
      const actor = deskCaller().actor!;
      const patientId = resolvePatientReference(db, options.patientId);
      // Opened before anything is stored: a file this user may not read is refused by name (FILE_UNREADABLE).
      const source = await openNamedFile(options.file);
      const document = await uploadDocument(
        db,
        { dataDir: resolve(options.data), limitBytes },
        {
          patientId,
          fields: readFieldOptions(options, DOCUMENT_FORM_FIELDS, db),
          file: {
            stream: chunksOfNamedFile(source, options.file),
            filename: fileNameOf(options.file),
            contentType: options.contentType ?? (await typeOfFileName(fileNameOf(options.file))),
          },
        },
        actor,
        readFieldOptions(options, IDEMPOTENCY_HEADER_FIELDS, db),
      ).finally(() => source.close());
      emit(io, options, document, () => {
        const patient = readPatient(db, patientId);
        return (
          (wasReplayed(document) ? replayNote('document') : '') +
          heading(`Stored for ${patientLabel(patient.patient_number, String(patient.first_name), String(patient.last_name))}`) +
          deskRecord([
            ['Number', document.document_number],
            ['Title', typeof options.title === 'string' ? options.title : null],
            ['Type', document.type],
            ['File', `${document.filename} (${document.content_type}, ${fileSize(document.size)})`],
            ['Stored', localDateTime(document.created_at, clinicTimeZone(db))],
          ])
        );
      });
    });
  });
}
