import type { Command } from 'commander';
import {
  ADD_PERSON,
  DISABLE_PERSON,
  ENABLE_PERSON,
  LIST_PERSONS,
  RESET_PERSON_PIN,
  SET_PERSON_ROLES,
  type Person,
  type PersonWithCode,
} from '../../domain/people/persons.js';
import { ROLES } from '../../domain/people/roles.js';
import { clinicTimeZone } from '../../domain/settings.js';
import type { Db } from '../../db/open-database.js';
import { deskRecord, deskTable, heading, localDateTime } from '../desk-format.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { wrapLines } from '../report-error.js';
import { subcommand } from '../subcommand.js';
import { runUseCaseCommand } from '../use-case-command.js';
import { registerSetPinCommand } from './session.js';

/** `--role R`, given once per role. */
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
const ROLE_HELP = `a role: ${ROLES.join(', ')} (repeat for more)`;

type RoleOptions = CommonOptions & { role: string[] };

/** A person's state as the desk says it. */
function stateOf(person: Person, timeZone: string): string {
  if (!person.enabled) return 'disabled';
  if (person.locked_until !== null) return `locked until ${localDateTime(person.locked_until, timeZone)}`;
  return person.pin_set ? 'enabled' : 'enabled, no PIN yet';
}

/** A person, and the setup code to hand over once. */
function printWithCode(person: PersonWithCode, db: Db, said: string): string {
  const timeZone = clinicTimeZone(db);
  return (
    heading(person.name) +
    deskRecord([
      ['Roles', person.roles.join(', ')],
      ['Setup code', person.setup_code],
      ['Code valid until', localDateTime(person.setup_code_expires_at, timeZone)],
    ]) +
    wrapLines(`\n${said} Hand the code to ${person.name} in person; with it they choose their PIN, once:`) +
    `\n  clinic staff set-pin --as "${person.name}"\n`
  );
}

/** One line about a person changed, with their roles as they now stand. */
function printChanged(person: Person, what: string): string {
  return wrapLines(`${person.name} (${person.roles.join(', ')}): ${what}.\n`);
}

/** `clinic staff add|list|disable|enable|set-roles|reset-pin|set-pin`. */
export function registerStaffCommands(program: Command, io: CliIo): void {
  const group = program.command('staff').description("the clinic's people: who may log in, with which roles");

  subcommand(group, 'add', 'add a person; prints the setup code they choose their PIN with, once')
    .requiredOption('--name <name>', "the person's name, as the audit trail will name them (unique in any case)")
    .requiredOption('--role <role>', ROLE_HELP, collect)
    .action(async (options: RoleOptions & { name: string }) => {
      await runUseCaseCommand(io, options, ADD_PERSON, {
        request: () => ({ body: { name: options.name, roles: options.role.join(',') } }),
        print: (person, db) => printWithCode(person, db, `Added ${person.name}.`),
      });
    });

  subcommand(group, 'list', 'list the people, their roles and state').action(async (options: CommonOptions) => {
    await runUseCaseCommand(io, options, LIST_PERSONS, {
      request: () => ({}),
      print(people, db) {
        const timeZone = clinicTimeZone(db);
        return deskTable(
          [{ header: 'Name', shrink: true }, { header: 'Roles' }, { header: 'State' }, { header: 'Last login' }],
          people.map((person) => [
            person.name,
            person.roles.join(', '),
            stateOf(person, timeZone),
            person.last_login_at === null ? 'never' : localDateTime(person.last_login_at, timeZone),
          ]),
          'No people yet: the first is added with `clinic staff add --name NAME --role admin`.',
        );
      },
    });
  });

  const personCommand = (name: string, description: string) =>
    subcommand(group, name, description).argument('<name>', "the person's name (any case) or id");

  personCommand('disable', 'disable a person: their next request is refused; their record and trail stay').action(
    async (person: string, options: CommonOptions) => {
      await runUseCaseCommand(io, options, DISABLE_PERSON, {
        request: () => ({ path: { person } }),
        json: ({ person }) => person,
        print: ({ person, changed }) =>
          printChanged(person, changed ? 'disabled; their next command is refused, wherever they are logged in' : 'was disabled already'),
      });
    },
  );

  personCommand('enable', 'enable a person again (also ends a lock after wrong PINs)').action(
    async (person: string, options: CommonOptions) => {
      await runUseCaseCommand(io, options, ENABLE_PERSON, {
        request: () => ({ path: { person } }),
        json: ({ person }) => person,
        print: ({ person, changed }) =>
          printChanged(person, changed ? 'enabled, and any lock after wrong PINs ended' : 'enabled; any lock after wrong PINs ended'),
      });
    },
  );

  personCommand('set-roles', "replace a person's roles")
    .requiredOption('--role <role>', ROLE_HELP, collect)
    .action(async (person: string, options: RoleOptions) => {
      await runUseCaseCommand(io, options, SET_PERSON_ROLES, {
        request: () => ({ path: { person }, body: { roles: options.role.join(',') } }),
        print: (changed) => printChanged(changed, 'roles replaced'),
      });
    });

  personCommand('reset-pin', "void a person's PIN, end their sessions, and print a new setup code").action(
    async (person: string, options: CommonOptions) => {
      await runUseCaseCommand(io, options, RESET_PERSON_PIN, {
        request: () => ({ path: { person } }),
        print: (reset, db) => printWithCode(reset, db, `The PIN of ${reset.name} is void and their sessions have ended.`),
      });
    },
  );

  registerSetPinCommand(group, io);
}
