// The role × operation matrix of interface 1.3.0 ("Roles") as the specification's table gives it,
// letters for roles (a admin, r reception, p practitioner, b billing, s scheduler).

const ROLE_OF_LETTER: Readonly<Record<string, string>> = { a: 'admin', r: 'reception', p: 'practitioner', b: 'billing', s: 'scheduler' };

/** Each API operation's row of the matrix: the letters of the roles that may call it, '' where no login is needed. */
export const API_ROLE_ROWS: Readonly<Record<string, string>> = {
  listDocumentTypes: '',
  listPaymentMethods: '',
  getHealth: '',
  getApiDescription: '',
  getDocsPage: '',
  getDocsAsset: '',
  joinDesk: '',
  createSession: 'a r p b s',
  getCurrentSession: 'a r p b s',
  endCurrentSession: 'a r p b s',
  runDeskCommand: 'a r p b s',
  listServices: 'a r p b s',
  listDoctors: 'a r p b s',
  findPatients: 'a r p b s',
  getPatient: 'a r p b s',
  createPatient: 'a r p s',
  updatePatient: 'a r p b s',
  listAppointments: 'a r p b s',
  getAppointment: 'a r p b s',
  bookAppointment: 'a r p s',
  updateAppointment: 'a r p s',
  confirmAppointment: 'a r p s',
  listReminders: 'a r p s',
  listDocuments: 'a r p b',
  downloadDocument: 'a r p',
  uploadDocument: 'a r p',
  listInvoices: 'a r p b',
  getInvoice: 'a r p b',
  createInvoice: 'a r b',
  recordPayment: 'a r b',
  voidInvoice: 'a b',
  createCreditNote: 'a b',
  refundPayment: 'a b',
  exportPatient: 'a',
  listAuditEvents: 'a',
  listEvents: 'a',
};

/** The roles a row's letters name, in the table's order. */
export const rolesOfRow = (letters: string): string[] =>
  letters
    .split(' ')
    .filter(Boolean)
    .map((letter) => ROLE_OF_LETTER[letter]!);
