import type { Command } from 'commander';
import {
  ADD_DOCTOR,
  ADD_SERVICE,
  EDIT_DOCTOR,
  EDIT_SERVICE,
  LIST_DOCTORS,
  LIST_SERVICES,
  REINSTATE_DOCTOR,
  REINSTATE_SERVICE,
  RETIRE_DOCTOR,
  RETIRE_SERVICE,
  type CatalogCorrection,
  type Doctor,
  type Service,
} from '../../domain/catalog.js';
import { findDoctorByReference, findServiceByReference } from '../../domain/desk/find-by-name.js';
import { clinicCurrency, clinicTimeZone } from '../../domain/settings.js';
import { DOCTOR_INPUT_FIELDS, DOCTOR_PATCH_FIELDS, SERVICE_INPUT_FIELDS, SERVICE_PATCH_FIELDS } from '../../fields/catalog-fields.js';
import type { FieldSpec } from '../../fields/field-spec.js';
import { localDateTime, localShortDate, money } from '../desk-format.js';
import { addFieldOptions, fieldArgument, readFieldOptions } from '../field-options.js';
import type { CliIo } from '../io.js';
import { formatRecord, formatTable, type CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { runUseCaseCommand } from '../use-case-command.js';
import type { Db } from '../../db/open-database.js';

/** A service for people: its price as money in the clinic currency (`85.50 EUR`, not `85.5`). */
const withPrice = (service: Service, currency: string) => ({ ...service, price: money(service.price, currency) });

/** A doctor or service for people: retired on a clinic-local date and time, or nothing while bookable. */
const withRetired = <T extends { retired_at: string | null }>(item: T, db: Db) => ({
  ...item,
  retired_at: item.retired_at === null ? null : localDateTime(item.retired_at, clinicTimeZone(db)),
});

/** Options of the desk, not fields: `--allow-duplicate` is the body's `allow_duplicate: true`. */
interface CatalogOptions extends CommonOptions, Record<string, unknown> {
  allowDuplicate?: boolean;
  includeRetired?: boolean;
}

/** The fields a command takes as `--field <value>` options: all but `allow_duplicate`, which is a flag. */
const valueFields = <F extends readonly FieldSpec[]>(fields: F) => fields.filter((spec) => spec.name !== 'allow_duplicate');

const ALLOW_DUPLICATE = "take the name although an active one has it (compared without case or accents, as the desk's search)";

/** The body the options describe, with `--allow-duplicate` as the API's `allow_duplicate`. */
function bodyOf(options: CatalogOptions, fields: readonly FieldSpec[], db: Db): Record<string, unknown> {
  return { ...readFieldOptions(options, valueFields(fields), db), ...(options.allowDuplicate ? { allow_duplicate: true } : {}) };
}

/** What a correction says for people: what it changed, then the record as it now stands. */
function correctionText<T extends { name: string; retired_at: string | null }>(
  { item, changed }: CatalogCorrection<T>,
  done: string,
  record: object,
): string {
  const said = changed.length === 0 ? `Nothing to change: ${item.name} is as given.` : `${done} ${item.name}.`;
  return `${said}\n\n${formatRecord(record)}`;
}

/** `clinic doctor add|edit|retire|reinstate|list` and `clinic service add|edit|retire|reinstate|list`. */
export function registerCatalogCommands(program: Command, io: CliIo): void {
  registerDoctorCommands(program, io);
  registerServiceCommands(program, io);
}

function registerDoctorCommands(program: Command, io: CliIo): void {
  const doctor = program.command('doctor').description('the doctors appointments can be booked with');
  addFieldOptions(subcommand(doctor, 'add', 'add a doctor'), valueFields(DOCTOR_INPUT_FIELDS))
    .option('--allow-duplicate', ALLOW_DUPLICATE)
    .action(async (options: CatalogOptions) => {
      await runUseCaseCommand(io, options, ADD_DOCTOR, {
        request: (db) => ({ body: bodyOf(options, DOCTOR_INPUT_FIELDS, db) }),
        print: (added) => formatRecord(added),
      });
    });

  const edit = fieldArgument(
    subcommand(doctor, 'edit', "correct a doctor's name or colour (what is not given stays)"),
    '<ref>',
    'the doctor: the name or a part of it (as --doctor takes it), or the id `clinic doctor list` prints',
    'doctor_id',
  );
  addFieldOptions(edit, valueFields(DOCTOR_PATCH_FIELDS))
    .option('--allow-duplicate', ALLOW_DUPLICATE)
    .action(async (reference: string, options: CatalogOptions) => {
      await runUseCaseCommand(io, options, EDIT_DOCTOR, {
        request: (db) => ({ path: { doctor_id: findDoctorByReference(db, reference).id }, body: bodyOf(options, DOCTOR_PATCH_FIELDS, db) }),
        json: ({ item }) => item,
        print: (corrected, db) => correctionText(corrected, 'Changed', withRetired(corrected.item, db)),
      });
    });

  for (const [name, useCase, description, done] of [
    ['retire', RETIRE_DOCTOR, 'retire a doctor who left: no longer bookable, kept on every appointment', 'Retired'],
    ['reinstate', REINSTATE_DOCTOR, 'make a retired doctor bookable again', 'Reinstated'],
  ] as const) {
    fieldArgument(
      subcommand(doctor, name, description),
      '<ref>',
      'the doctor: the name or a part of it, or the id (`clinic doctor list --include-retired` prints them)',
      'doctor_id',
    ).action(async (reference: string, options: CommonOptions) => {
      await runUseCaseCommand(io, options, useCase, {
        request: (db) => ({ path: { doctor_id: findDoctorByReference(db, reference).id } }),
        json: ({ item }: CatalogCorrection<Doctor>) => item,
        print: (corrected: CatalogCorrection<Doctor>, db) => correctionText(corrected, done, withRetired(corrected.item, db)),
      });
    });
  }

  subcommand(doctor, 'list', 'list the doctors who can be booked, in the order added')
    .option('--include-retired', 'also the retired ones')
    .action(async (options: CatalogOptions) => {
      await runUseCaseCommand(io, options, LIST_DOCTORS, {
        request: () => ({ query: { include_retired: options.includeRetired === true } }),
        print: (doctors, db) =>
          options.includeRetired === true
            ? formatTable(
                doctors.map((listed) => ({ ...listed, retired: retiredOn(listed, db) })),
                ['id', 'name', 'color', 'retired'],
              )
            : formatTable(doctors, ['id', 'name', 'color']),
      });
    });
}

/** The clinic-local date an item was retired on, or nothing. */
const retiredOn = (item: { retired_at: string | null }, db: Db) =>
  item.retired_at === null ? '' : localShortDate(item.retired_at, clinicTimeZone(db));

function registerServiceCommands(program: Command, io: CliIo): void {
  const service = program.command('service').description('the services (treatments) appointments can be booked for');
  addFieldOptions(subcommand(service, 'add', 'add a service'), valueFields(SERVICE_INPUT_FIELDS))
    .option('--allow-duplicate', ALLOW_DUPLICATE)
    .action(async (options: CatalogOptions) => {
      await runUseCaseCommand(io, options, ADD_SERVICE, {
        request: (db) => ({ body: bodyOf(options, SERVICE_INPUT_FIELDS, db) }),
        print: (added, db) => formatRecord(withPrice(added, clinicCurrency(db))),
      });
    });

  const edit = fieldArgument(
    subcommand(service, 'edit', "correct a service's name, length, price or colour (what is not given stays)"),
    '<ref>',
    'the service: the name or a part of it (as --service takes it), or the id `clinic service list` prints',
    'service_id',
  );
  addFieldOptions(edit, valueFields(SERVICE_PATCH_FIELDS), {
    descriptions: {
      price: 'the new price in the clinic currency, for what is booked or invoiced from now on; digits and a dot, e.g. 92.00',
    },
  })
    .option('--allow-duplicate', ALLOW_DUPLICATE)
    .action(async (reference: string, options: CatalogOptions) => {
      await runUseCaseCommand(io, options, EDIT_SERVICE, {
        request: (db) => ({
          path: { service_id: findServiceByReference(db, reference).id },
          body: bodyOf(options, SERVICE_PATCH_FIELDS, db),
        }),
        json: ({ item }) => item,
        print: (corrected, db) => correctionText(corrected, 'Changed', withRetired(withPrice(corrected.item, clinicCurrency(db)), db)),
      });
    });

  for (const [name, useCase, description, done] of [
    ['retire', RETIRE_SERVICE, 'retire a service no longer offered: no longer bookable, kept on every appointment', 'Retired'],
    ['reinstate', REINSTATE_SERVICE, 'make a retired service bookable again', 'Reinstated'],
  ] as const) {
    fieldArgument(
      subcommand(service, name, description),
      '<ref>',
      'the service: the name or a part of it, or the id (`clinic service list --include-retired` prints them)',
      'service_id',
    ).action(async (reference: string, options: CommonOptions) => {
      await runUseCaseCommand(io, options, useCase, {
        request: (db) => ({ path: { service_id: findServiceByReference(db, reference).id } }),
        json: ({ item }: CatalogCorrection<Service>) => item,
        print: (corrected: CatalogCorrection<Service>, db) =>
          correctionText(corrected, done, withRetired(withPrice(corrected.item, clinicCurrency(db)), db)),
      });
    });
  }

  subcommand(service, 'list', 'list the services that can be booked, in the order added')
    .option('--include-retired', 'also the retired ones')
    .action(async (options: CatalogOptions) => {
      await runUseCaseCommand(io, options, LIST_SERVICES, {
        request: () => ({ query: { include_retired: options.includeRetired === true } }),
        print(services, db) {
          const currency = clinicCurrency(db);
          const rows = services.map((listed) => ({ ...withPrice(listed, currency), retired: retiredOn(listed, db) }));
          return formatTable(rows, [
            'id',
            'name',
            'duration_min',
            'price',
            'color',
            ...(options.includeRetired === true ? ['retired'] : []),
          ]);
        },
      });
    });
}
