import { derivePlural } from './plural.js';

describe('derivePlural', () => {
  it.each([
    ['crm.company', 'companies'],
    ['crm.address', 'addresses'],
    ['crm.person', 'persons'],
    ['system.serviceCallLog', 'serviceCallLogs'],
    ['system.logEntry', 'logEntries'],
    ['crm.invoiceLine', 'invoiceLines'],
    ['crm.box', 'boxes'],
    ['crm.branch', 'branches'],
    ['crm.dish', 'dishes'],
    ['crm.quiz', 'quizzes'],
    ['crm.day', 'days'],
    ['crm.key', 'keys'],
    ['crm.child', 'children'],
    ['crm.salesPerson', 'salesPersons'],
    ['crm.analysis', 'analyses'],
    ['crm.equipment', 'equipment'],
    ['crm.hero', 'heroes'],
    ['crm.photo', 'photos'],
    ['crm.shareholder', 'shareholders'],
    ['crm.status', 'statuses'],
    ['a.x2', 'x2s'],
  ])('%s -> %s', (name, plural) => {
    expect(derivePlural(name)).toBe(plural);
  });
});
