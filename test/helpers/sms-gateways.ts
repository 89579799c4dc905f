import type { SmsGateway } from '../../src/domain/reminders/sms-gateway.js';

/** A generic SMS gateway posting JSON `{"to", "text"}` to `url`, its message id at /id and its error at /error; override any field. */
export function genericSmsGateway(url: string, overrides: Partial<Extract<SmsGateway, { preset: 'generic' }>> = {}): SmsGateway {
  return {
    preset: 'generic',
    url,
    headers: [],
    bodyTemplate: '{"to":"{to}","text":"{text}"}',
    from: null,
    idPointer: '/id',
    errorPointer: '/error',
    inboundUrl: null,
    ...overrides,
  };
}
