/**
 * The five roles of interface 1.3.0 ("Roles"), in the order every list of them is given: on the
 * ground floor, since the field descriptions and the domain (src/domain/people/roles.ts) both name them.
 */
export const ROLE_NAMES = ['admin', 'reception', 'practitioner', 'billing', 'scheduler'] as const;
