import { call, get, tenantPath } from '../api.js';
import { alertBox, h, show } from '../dom.js';

const POLL_MS = 500;

function statusList(entries) {
  return h(
    'dl',
    { class: 'props' },
    entries.map(([label, value, id]) => [h('dt', {}, label), h('dd', { id }, value ?? '-')]),
  );
}

/**
 * The model's load status (`GET /admin/{tenant}/modelStatus`) and the tenant rebuild
 * (`GET /admin/{tenant}/rebuild`, polled while it runs; `POST` starts one).
 */
export async function modelView(active) {
  const [status, rebuild] = await Promise.all([
    get(tenantPath('admin', 'modelStatus')),
    get(tenantPath('admin', 'rebuild')),
  ]);
  const issues = [...status.errors, ...status.warnings];
  const progress = h('div', { id: 'rebuild-status' });
  const message = h('div');
  const start = h('button', { type: 'button', id: 'start-rebuild' }, 'Rebuild the tenant');

  const renderRebuild = (job) => {
    progress.replaceChildren(
      statusList([
        ['State', job.state, 'rebuild-state'],
        ['Kind', job.kind],
        ['Phase', job.phase],
        ['Processed', String(job.processed), 'rebuild-processed'],
        ['Started', job.startedAt],
        ['Finished', job.finishedAt],
        ['Error', job.error],
      ]),
    );
    start.disabled = job.state === 'running';
  };
  const poll = async () => {
    if (!active()) return;
    const job = await get(tenantPath('admin', 'rebuild'));
    if (!active()) return;
    renderRebuild(job);
    if (job.state === 'running') setTimeout(poll, POLL_MS);
  };
  start.addEventListener('click', async () => {
    message.replaceChildren();
    start.disabled = true;
    try {
      const { body } = await call('POST', tenantPath('admin', 'rebuild'));
      renderRebuild(body);
      setTimeout(poll, POLL_MS);
    } catch (error) {
      message.replaceChildren(alertBox(`${error.status ?? ''} ${error.message}`));
      start.disabled = false;
    }
  });

  show(
    h('h1', {}, 'Model and rebuild'),
    h('h2', {}, 'Model status'),
    statusList([
      ['State', status.state, 'model-state'],
      ['Checked at', status.checkedAt],
      ['Files in an older format', String(status.upgradableFiles)],
    ]),
    issues.length === 0
      ? h('p', { class: 'muted' }, 'No findings.')
      : h(
          'table',
          { id: 'model-issues' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Severity', 'File', 'Path', 'Message'].map((t) => h('th', {}, t)),
            ),
          ),
          h(
            'tbody',
            {},
            issues.map((issue) =>
              h(
                'tr',
                {},
                h('td', {}, issue.severity),
                h('td', {}, issue.file),
                h('td', {}, issue.path),
                h('td', {}, issue.message),
              ),
            ),
          ),
        ),
    h('h2', {}, 'Rebuild'),
    h(
      'p',
      { class: 'muted' },
      'Re-derives index rows, the full-text index and access-control rows from the stored objects.',
    ),
    progress,
    h('div', { class: 'toolbar' }, start),
    message,
  );
  renderRebuild(rebuild);
  if (rebuild.state === 'running') setTimeout(poll, POLL_MS);
}
