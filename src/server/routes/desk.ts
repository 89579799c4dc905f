import type { RouterContext } from '@koa/router';
import type { ClinicState } from '../api/state.js';
import { DESK_COMMAND_FILE_OPTIONS, withServerCopies, type DeskCommandFile } from '../../domain/desk/desk-command-files.js';
import { removeFile } from '../../db/document-files.js';
import { API_PREFIX, type DeskCommandAnswer } from '../config.js';
import { keyInFlight, keyState, rememberAnswer, deskCommandFingerprint } from '../../domain/people/desk-command-answers.js';
import { joinDevice } from '../../domain/people/devices.js';
import { rolesOf } from '../../domain/people/persons.js';
import { ROLE_ROWS } from '../../domain/people/roles.js';
import { personActor } from '../../domain/people/sessions.js';
import { clinicTimeZone } from '../../domain/settings.js';
import { fieldsValidator } from '../../domain/validation/validate.js';
import { errors } from '../../errors.js';
import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { DESK_COMMAND_FIELDS, DESK_JOIN_FIELDS } from '../../fields/session-fields.js';
import { PROGRAM_VERSION } from '../../version.js';
import { clientAddress, deskSource } from '../api/api-caller.js';
import { markReplayed, REPLAYED_HEADER, type Operation } from '../api/operation.js';

const join = fieldsValidator(DESK_JOIN_FIELDS, 'body');
const deskCommand = fieldsValidator(DESK_COMMAND_FIELDS, 'body');
const keyHeader = fieldsValidator(IDEMPOTENCY_HEADER_FIELDS, 'header');

/** The URL a desk PC reaches this server by, as a refusal names it: the request's own origin. */
const serverUrl = (ctx: { protocol: string; host: string }) => `${ctx.protocol}://${ctx.host}`;

/**
 * The desk on several PCs (interface 1.3.0): a PC joins with the code `clinic desk pair` printed,
 * then runs its desk commands here, as its person.
 */
export const deskOperations: readonly Operation[] = [
  {
    method: 'post',
    path: '/desk/join',
    operationId: 'joinDesk',
    roles: ROLE_ROWS.noLogin,
    summary: 'Join a desk PC to this server with its pairing code',
    description:
      "`clinic desk join` sends it once it has checked the server's CA by its fingerprint. The code (from `clinic desk pair` on " +
      'the server PC) is valid 10 minutes, once: a wrong, used or expired one is 401 `PAIRING_CODE_INVALID`, counted as a failed key. ' +
      'Records `device.join` by the device.',
    tag: 'desk',
    body: { kind: 'json', model: 'DeskJoinInput', example: { code: '7K3M-Q9TD-X2WH', host_name: 'reception-2' } },
    refusals: [errors.pairingCodeInvalid()],
    result: {
      kind: 'model',
      status: 201,
      model: 'JoinedDesk',
      description: 'The PC is a desk of this server',
      example: {
        device_id: '3c2b1a0f-9e8d-4c7b-a6f5-e4d3c2b1a0f9',
        device_name: 'Reception 2',
        device_token: 'cld_Xq0…',
        server_version: PROGRAM_VERSION,
      },
    },
    handler:
      ({ db }) =>
      (ctx) => {
        const body = join.parse(ctx.state.body, { timeZone: clinicTimeZone(db) });
        const joined = joinDevice(db, {
          code: body.code,
          hostName: body.host_name,
          address: clientAddress(ctx),
          version: ctx.get('Clinic-Version') || null,
        });
        return { ...joined, server_version: PROGRAM_VERSION };
      },
  },
  {
    method: 'post',
    path: '/desk/commands',
    operationId: 'runDeskCommand',
    credentials: 'session',
    roles: ROLE_ROWS.ownSession,
    summary: "Run a desk command as the session's person, from its desk PC",
    description:
      'What `clinic` on a desk PC sends for every command but its own (login, logout, whoami, version, desk join and status): ' +
      'the server runs it as on the server PC, as the person from the PC, and answers what it printed and its exit code; a ' +
      'command refused by its rules is exit 1 or 2 in a 200, with the same audit events as on the server PC. The commands of ' +
      'the server PC only (init, serve, backup, restore, upgrade, check, tls, autostart, desk pair) are 403 `SERVER_PC_ONLY`. ' +
      'An `Idempotency-Key` header (1–255 visible ASCII characters) with the same command line from the same person answers the first answer again ' +
      '(`Idempotent-Replayed: true`); another command line: 422 `IDEMPOTENCY_KEY_REUSED`; a command that exited other than 0 ' +
      'keeps no key. A command that reads a file of the desk PC (`upload-document --file`, `create-patient --file`) comes as a ' +
      'multipart/form-data form: part `command` the JSON, and the file as a part named by its option (`file`), as large as a ' +
      "document may be; the server runs the command on its copy, which it removes afterwards, and the file's bytes are part of the " +
      'request an Idempotency-Key answers.',
    tag: 'desk',
    body: { kind: 'json', model: 'DeskCommandInput', example: { argv: ['patient', 'find', 'Berger'] }, files: DESK_COMMAND_FILE_OPTIONS },
    refusals: [
      errors.sessionRequired(),
      errors.serverPcOnly('backup', 'https://clinic-pc:8080'),
      errors.runOnDeskPc('login'),
      errors.idempotencyKeyReused(),
      errors.sessionEnded('idle'),
      errors.personDisabled(),
      errors.deviceUnknown(),
      errors.deviceRevoked('Reception 2'),
    ],
    result: {
      kind: 'model',
      status: 200,
      model: 'DeskCommandResult',
      description: 'The command ran (or an earlier run with this Idempotency-Key is replayed); its exit code says how it ended',
      example: { exit_code: 0, stdout: 'P-000042  Anna Berger  1985-03-14\n', stderr: '', download: null },
      headers: REPLAYED_HEADER,
    },
    handler: ({ db, config }) => {
      const answerDeskCommand = async (ctx: RouterContext<ClinicState>, files: readonly DeskCommandFile[]): Promise<DeskCommandAnswer> => {
        const logger = config.logger;
        const session = ctx.state.session!;
        const timeZone = clinicTimeZone(db);
        const header = keyHeader.parse({ 'idempotency-key': ctx.get('Idempotency-Key') || undefined }, { timeZone });
        const { argv } = deskCommand.parse(ctx.state.body, { timeZone });
        const runDeskCommand = config.deskCommands;
        if (runDeskCommand === undefined) throw errors.deskCommandsUnavailable();
        const key = header['idempotency-key'] ?? null;
        const fingerprint = deskCommandFingerprint(argv, session.person.id, files);
        const run = async (): Promise<{ answer: DeskCommandAnswer; replayed: boolean }> => {
          const held = key === null ? 'free' : keyState<DeskCommandAnswer>(db, key, fingerprint);
          if (typeof held === 'object') return { answer: held.replay, replayed: true };
          const caller = {
            source: 'cli' as const,
            actor: personActor(session.person, deskSource(ctx, session.device), ctx.state.requestId),
            roles: rolesOf(session.person),
          };
          const outcome = await runDeskCommand(withServerCopies(argv, files), { db, dataDir: config.dataDir }, caller, files);
          if ('refused' in outcome)
            throw outcome.refused === 'server-pc'
              ? errors.serverPcOnly(outcome.command, serverUrl(ctx))
              : errors.runOnDeskPc(outcome.command);
          // The file's operation as the desk PC GETs it: below the API's prefix.
          const answer = {
            ...outcome.answer,
            download: outcome.answer.download === null ? null : `${API_PREFIX}${outcome.answer.download}`,
          };
          // A command that did not finish well changed nothing worth a key: sent again, it runs again.
          if (key !== null && held === 'free' && answer.exit_code === 0) {
            try {
              rememberAnswer(db, key, fingerprint, answer);
            } catch (error) {
              // The command is done and committed: its answer goes out, or the desk would try it anew under a new key.
              logger.error({ event: 'desk_answer_not_kept', request_id: ctx.state.requestId, error: String(error) });
            }
          }
          return { answer, replayed: false };
        };
        const { answer, replayed } = key === null ? await run() : await keyInFlight(key, run);
        markReplayed(ctx, replayed);
        return answer;
      };
      return async (ctx): Promise<DeskCommandAnswer> => {
        // The files sent with the command are the server's for as long as it runs, refused or not.
        const files = ctx.state.deskFiles ?? [];
        try {
          return await answerDeskCommand(ctx, files);
        } finally {
          await Promise.all(files.map((file) => removeFile(file.path)));
        }
      };
    },
  },
];
