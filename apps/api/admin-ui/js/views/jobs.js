/**
 * The tenant's background jobs (`GET /admin/{tenant}/jobs`, newest first; admin only): what ran,
 * for which object and script, its state, tries and last error. `#/jobs?object=<id>` shows one
 * object's jobs; "Refresh" reads them again (a job changes state in the worker, not through an
 * event of the data stream).
 */
import { get, tenantPath } from '../api.js';
import { h, navigate, show, viewOf } from '../dom.js';
import { formatTimestamp } from '../format.js';
import { adminTabs } from './admin-tabs.js';

const PAGE = 100;

function objectCell(href) {
  if (!href) return h('span', { class: 'muted' }, 'none');
  const view = viewOf(href);
  const label = href.split('/').slice(-2).join(' ');
  return view ? h('a', { href: view }, label) : label;
}

export async function jobsView(query) {
  const object = query.get('object');
  const params = new URLSearchParams({ size: String(PAGE) });
  if (object) params.set('object', object);
  const { jobs } = await get(`${tenantPath('admin', 'jobs')}?${params}`);
  show(
    adminTabs('#/jobs'),
    h('h1', {}, object ? `Jobs of object ${object}` : 'Jobs'),
    h(
      'p',
      { class: 'muted' },
      'Script runs and replication batches the worker carries out, newest first. Their parameters are never shown: they may hold secrets.',
    ),
    h(
      'div',
      { class: 'toolbar' },
      h('button', { type: 'button', id: 'jobs-refresh', onclick: () => navigate(location.hash) }, 'Refresh'),
      object ? h('a', { href: '#/jobs' }, 'All jobs') : null,
    ),
    jobs.length === 0
      ? h('p', { id: 'jobs-empty' }, 'No jobs yet.')
      : h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            { id: 'jobs' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Created', 'Script', 'Trigger', 'Object', 'State', 'Tries', 'Next run', 'Last error'].map(
                  (t) => h('th', { scope: 'col' }, t),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              jobs.map((job) =>
                h(
                  'tr',
                  { 'data-job': job.id },
                  h('td', {}, formatTimestamp(job.createdAt)),
                  h(
                    'td',
                    {},
                    job.script ?? job.kind,
                    job.gateway ? h('span', { class: 'muted' }, ` (${job.gateway})`) : null,
                  ),
                  h('td', {}, job.trigger ?? ''),
                  h('td', {}, objectCell(job.object)),
                  h('td', { 'data-job-status': job.id }, job.status),
                  h('td', { class: 'number' }, String(job.attempts)),
                  h('td', {}, job.status === 'pending' ? formatTimestamp(job.runAt) : ''),
                  h('td', {}, job.lastError ?? ''),
                ),
              ),
            ),
          ),
        ),
  );
}
