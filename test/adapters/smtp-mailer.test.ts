import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, afterEach, before, describe, it, mock } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { createSmtpMailer } from '../../src/adapters/smtp-mailer.js';
import { closedPort, startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

/**
 * The e-mail channel of `clinic serve --smtp-url` (decisions.md §7, clinic-api-1.3.md "Channels and
 * replies"): what the SMTP server receives, the refusal code the senders tell final from transient
 * failures by, and how soon a server that does not answer costs its attempt.
 */

/** An error as nodemailer rejects with it: its SMTP reply code and its own code. */
const failure = (error: unknown) => {
  const { responseCode, code } = error as { responseCode?: number; code?: string };
  return { responseCode, code };
};

describe('adapters: the SMTP mailer', () => {
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
  });
  after(() => sink.close());
  afterEach(() => mock.timers.reset());

  it('sends from the clinic to the patient a plain UTF-8 text under its subject and the Message-ID it is given', async () => {
    const mailer = createSmtpMailer(sink.url, 'praxis@example.org');
    await mailer.send({
      to: 'jürgen.mueller@example.org',
      subject: 'Ihr Termin am 02.12.2026',
      text: 'Grüß Gott, Herr Müller: Ihr Termin ist am 02.12.2026 um 14:00.',
      messageId: '<0b6f4c1e-rem@clinic-pc>',
    });
    mailer.close();
    const [mail] = await sink.waitFor(1);
    assert.deepEqual([mail!.from, mail!.to], ['praxis@example.org', ['jürgen.mueller@example.org']]);
    assert.match(mail!.raw, /^Message-ID: <0b6f4c1e-rem@clinic-pc>\r$/m);
    assert.match(mail!.raw, /^Content-Type: text\/plain; charset=utf-8\r$/m);
    assert.match(mail!.raw, /^Subject: Ihr Termin am 02.12.2026\r$/m);
    assert.match(mail!.raw, /^From: praxis@example.org\r$/m);
    const body = mail!.raw.split('\r\n\r\n').slice(1).join('\r\n\r\n');
    assert.match(body.replace(/=\r\n/g, ''), /Gr=C3=BC=C3=9F Gott, Herr M=C3=BCller/);
  });

  it('rejects with the SMTP code of a refusal, 4xx and 5xx alike, so that the sender can tell a later try from none', async () => {
    const refusing = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo(address, _session, callback) {
        const code = address.address.startsWith('busy') ? 450 : 550;
        callback(Object.assign(new Error(`${code} mailbox unavailable`), { responseCode: code }));
      },
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const mailer = createSmtpMailer(`smtp://127.0.0.1:${(refusing.server.address() as { port: number }).port}`, 'praxis@example.org');
      const message = { subject: 'Termin', text: 'Ihr Termin' };
      await assert.rejects(mailer.send({ to: 'busy@example.org', ...message }), (error) => failure(error).responseCode === 450);
      await assert.rejects(mailer.send({ to: 'gone@example.org', ...message }), (error) => failure(error).responseCode === 550);
      mailer.close();
    } finally {
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });

  it('rejects at once, with no SMTP code, when nothing listens at the URL', async () => {
    const mailer = createSmtpMailer(`smtp://127.0.0.1:${await closedPort()}`, 'praxis@example.org');
    await assert.rejects(mailer.send({ to: 'patient@example.org', subject: 'Termin', text: 'Ihr Termin' }), (error) => {
      assert.deepEqual(failure(error), { responseCode: undefined, code: 'ESOCKET' });
      return true;
    });
    mailer.close();
  });

  it('gives up on a server that accepts the connection but never greets after 10 s, not a millisecond before', async () => {
    const connected: Socket[] = [];
    const silent = createServer((socket) => connected.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      mock.timers.enable({ apis: ['setTimeout', 'Date'] });
      const mailer = createSmtpMailer(`smtp://127.0.0.1:${(silent.address() as { port: number }).port}`, 'praxis@example.org');
      let settled = false;
      const sending = mailer.send({ to: 'patient@example.org', subject: 'Termin', text: 'Ihr Termin' });
      sending.then(
        () => (settled = true),
        () => (settled = true),
      );
      while (connected.length === 0) await new Promise((resolve) => setImmediate(resolve));
      mock.timers.tick(9_999);
      for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(settled, false, 'the attempt was given up before 10 s');
      mock.timers.tick(1);
      for (let turn = 0; turn < 10 && !settled; turn++) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(settled, true, 'the attempt was not given up at 10 s');
      await assert.rejects(sending, { code: 'ETIMEDOUT', message: 'Greeting never received' });
      mailer.close();
    } finally {
      for (const socket of connected) socket.destroy();
      silent.close();
    }
  });
});
