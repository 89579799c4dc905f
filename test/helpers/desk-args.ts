/**
 * The arguments of desk commands that several test files type alike, so that each says only what
 * its case is about.
 */

/** `clinic create-patient`'s arguments for a patient with a name, an e-mail and a mobile number: what the default contact rule asks for. */
export function createPatientArgs(first: string, last: string, email: string, mobile: string): string[] {
  return ['create-patient', '--first-name', first, '--last-name', last, '--email', email, '--mobile', mobile];
}

/** `clinic sms-gateway set`'s arguments for Twilio's preset: the account, the file whose first line is the token, and the sender. */
export function twilioGatewayArgs(account: string, tokenFile: string, from: string): string[] {
  return ['sms-gateway', 'set', '--preset', 'twilio', '--account', account, '--token-file', tokenFile, '--from', from];
}
