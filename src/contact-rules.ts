/**
 * How a patient must be reachable to be registered (clinic-api-1.3.md, "Patients without e-mail"):
 * both an email and a mobile (1.0.0's rule, the default), either of them, or neither. On the
 * ground floor, since the error that names the rule (src/errors.ts) and the domain's setting
 * (src/domain/settings.ts) both name them.
 */
export const CONTACT_RULES = ['email-and-mobile', 'email-or-mobile', 'none'] as const;
export type ContactRule = (typeof CONTACT_RULES)[number];
