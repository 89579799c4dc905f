import type { Command } from 'commander';
import { ADD_DOCTOR, ADD_SERVICE, LIST_DOCTORS, LIST_SERVICES, type Service } from '../../domain/catalog.js';
import { clinicCurrency } from '../../domain/settings.js';
import { DOCTOR_INPUT_FIELDS, SERVICE_INPUT_FIELDS } from '../../fields/catalog-fields.js';
import { money } from '../desk-format.js';
import { addFieldOptions, readFieldOptions } from '../field-options.js';
import type { CliIo } from '../io.js';
import { formatRecord, formatTable, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';
import { runUseCaseCommand } from '../use-case-command.js';

/** A service for people: its price as money in the clinic currency (`85.50 EUR`, not `85.5`). */
const withPrice = (service: Service, currency: string) => ({ ...service, price: money(service.price, currency) });

/** `clinic doctor add|list` and `clinic service add|list`. */
export function registerCatalogCommands(program: Command, io: CliIo): void {
  const doctor = program.command('doctor').description('the doctors appointments can be booked with');
  addFieldOptions(subcommand(doctor, 'add', 'add a doctor'), DOCTOR_INPUT_FIELDS).action(
    async (options: CommonOptions & Record<string, unknown>) => {
      await runUseCaseCommand(io, options, ADD_DOCTOR, {
        request: (db) => ({ body: readFieldOptions(options, DOCTOR_INPUT_FIELDS, db) }),
        print: (added) => formatRecord(added),
      });
    },
  );
  subcommand(doctor, 'list', 'list doctors').action(async (options: CommonOptions) => {
    await runUseCaseCommand(io, options, LIST_DOCTORS, {
      request: () => ({}),
      print: (doctors) => formatTable(doctors, ['id', 'name', 'color']),
    });
  });

  const service = program.command('service').description('the services (treatments) appointments can be booked for');
  addFieldOptions(subcommand(service, 'add', 'add a service'), SERVICE_INPUT_FIELDS).action(
    async (options: CommonOptions & Record<string, unknown>) => {
      await runUseCaseCommand(io, options, ADD_SERVICE, {
        request: (db) => ({ body: readFieldOptions(options, SERVICE_INPUT_FIELDS, db) }),
        print: (added, db) => formatRecord(withPrice(added, clinicCurrency(db))),
      });
    },
  );
  subcommand(service, 'list', 'list services').action(async (options: CommonOptions) => {
    await runUseCaseCommand(io, options, LIST_SERVICES, {
      request: () => ({}),
      print(services, db) {
        const currency = clinicCurrency(db);
        return formatTable(
          services.map((service) => withPrice(service, currency)),
          ['id', 'name', 'duration_min', 'price', 'color'],
        );
      },
    });
  });
}
