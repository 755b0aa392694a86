/**
 * Usage records of external calls (`GET /system/{tenant}/serviceCallLogs`, admin only; docs/worker.md):
 * totals and one line per service from `.../aggregations` (calls, cost units, cost in EUR, the
 * deployment's rate limit with its informational budget), then the newest records. `#/usage?service=`
 * narrows both to one service.
 */
import { get, tenantPath } from '../api.js';
import { h, show, viewOf } from '../dom.js';
import { formatTimestamp } from '../format.js';
import { adminTabs } from './admin-tabs.js';

const RECORDS = 50;
const SUMS = 'sum=costUnits,costLocal';
const euro = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' });
const count = new Intl.NumberFormat();

function limitText(limit) {
  if (!limit) return 'no limit';
  const per = limit.window === 'HOURS' ? 'hour' : 'day';
  const units = limit.units === null ? '' : `, ${count.format(limit.units)} units`;
  const budget = limit.budgetEur == null ? '' : ` (budget ${euro.format(limit.budgetEur)})`;
  return `${count.format(limit.calls)} calls${units} a ${per}${budget}`;
}

function serviceRow(service, aggregation, limit) {
  return h(
    'tr',
    { 'data-service': service },
    h('th', { scope: 'row' }, service),
    h('td', { class: 'number', 'data-calls': service }, count.format(aggregation.total)),
    h('td', { class: 'number' }, count.format(aggregation.sum?.costUnits ?? 0)),
    h('td', { class: 'number', 'data-cost': service }, euro.format(aggregation.sum?.costLocal ?? 0)),
    h('td', {}, limitText(limit)),
  );
}

/** The object whose script made the call, as a link when it is a data object. */
function referenceCell(reference) {
  if (!reference) return '';
  const view = viewOf(reference);
  return view ? h('a', { href: view }, reference.split('/').slice(-2).join(' ')) : reference;
}

export async function usageView(query) {
  const logs = tenantPath('system', 'serviceCallLogs');
  const only = query.get('service');
  const filter = only ? `service=${encodeURIComponent(only)}&` : '';
  const [page, overall] = await Promise.all([
    get(`${logs}?${filter}sort=timestamp,desc&size=${RECORDS}`),
    get(`${logs}/aggregations?${filter}${SUMS}`),
  ]);
  const records = Object.values(page._embedded ?? {}).flat();
  const limits = overall.rateLimits ?? {};
  const services = only
    ? [only]
    : [...new Set([...Object.keys(limits), ...records.map((r) => r.service)])].sort();
  const perService = await Promise.all(
    services.map((service) => get(`${logs}/aggregations?service=${encodeURIComponent(service)}&${SUMS}`)),
  );
  show(
    adminTabs('#/usage'),
    h('h1', {}, only ? `Usage of ${only}` : 'Usage'),
    h(
      'p',
      { class: 'muted' },
      'Every external call a gateway or import makes is one usage record, failed calls included.',
    ),
    h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        { id: 'usage-totals' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Service', 'Calls', 'Cost units', 'Cost', 'Rate limit'].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        h(
          'tbody',
          {},
          services.map((service, index) => serviceRow(service, perService[index], limits[service])),
        ),
        h(
          'tfoot',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, 'All services'),
            h('td', { class: 'number', id: 'usage-total-calls' }, count.format(overall.total)),
            h('td', { class: 'number' }, count.format(overall.sum?.costUnits ?? 0)),
            h('td', { class: 'number', id: 'usage-total-cost' }, euro.format(overall.sum?.costLocal ?? 0)),
            h('td', {}, ''),
          ),
        ),
      ),
    ),
    only ? h('p', {}, h('a', { href: '#/usage' }, 'All services')) : null,
    h('h2', {}, `Newest records`),
    records.length === 0
      ? h('p', { id: 'usage-empty' }, 'No usage records.')
      : h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            { id: 'usage-records' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['When', 'Service', 'Succeeded', 'Cost units', 'Cost', 'For'].map((t) =>
                  h('th', { scope: 'col' }, t),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              records.map((record) =>
                h(
                  'tr',
                  {},
                  h('td', {}, formatTimestamp(record.timestamp)),
                  h(
                    'td',
                    {},
                    h('a', { href: `#/usage?service=${encodeURIComponent(record.service)}` }, record.service),
                  ),
                  h('td', {}, record.success ? 'yes' : 'no'),
                  h(
                    'td',
                    { class: 'number' },
                    record.costUnits == null
                      ? ''
                      : `${count.format(record.costUnits)} ${record.costUnit ?? ''}`,
                  ),
                  h('td', { class: 'number' }, record.costLocal == null ? '' : euro.format(record.costLocal)),
                  h('td', {}, referenceCell(record.reference)),
                ),
              ),
            ),
          ),
        ),
  );
}
