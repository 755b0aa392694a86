/**
 * What one can do with an object beyond editing it: its reports (HTML or PDF, in a chosen language;
 * the API answers a short-lived signed address, offered as a link), its MANUAL scripts (`GET` its
 * `_scripts` link lists them, `POST .../{name}` runs one and answers whether a job was queued) and
 * merging another object of its class into it (`POST .../merge` with `{loser}`). The capabilities
 * decide: a script run and a merge need the right to modify the object, so a viewer sees neither.
 */
import { call, get, tenantPath } from '../api.js';
import { alertBox, errorBox, h, navigate, notice } from '../dom.js';
import { classLabel } from '../format.js';
import { relationPicker } from './relation-picker.js';

const LANGUAGE_NAMES = new Intl.DisplayNames(undefined, { type: 'language' });

function languageName(tag) {
  try {
    return LANGUAGE_NAMES.of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/** One report: a language choice and a button that asks for the document, then links to it. */
function reportRow(typeName, id, report) {
  const selectId = `report-language-${report.name}`;
  const result = h('span', { 'data-report-result': report.name });
  const language = h(
    'select',
    { id: selectId, 'aria-label': `Language of ${report.name}` },
    report.languages.map((tag) => h('option', { value: tag }, languageName(tag))),
  );
  const make = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'data-report': report.name,
      onclick: async () => {
        make.disabled = true;
        result.replaceChildren(h('span', { class: 'muted' }, 'Rendering...'));
        try {
          const query = `?language=${encodeURIComponent(language.value)}`;
          const { body } = await call(
            'GET',
            `${tenantPath('data', typeName, id, 'reports', report.name)}${query}`,
          );
          result.replaceChildren(
            h(
              'a',
              { href: body, target: '_blank', rel: 'noopener', 'data-report-link': report.name },
              `Open ${report.name} (${report.format.toUpperCase()}, ${languageName(language.value)})`,
            ),
            h('span', { class: 'muted' }, ' valid for 2 minutes'),
          );
        } catch (error) {
          result.replaceChildren(errorBox(error));
        } finally {
          make.disabled = false;
        }
      },
    },
    `Make ${report.format.toUpperCase()}`,
  );
  return h(
    'li',
    { class: 'action-row' },
    h('span', { class: 'action-name' }, report.name),
    language,
    make,
    result,
  );
}

/** One MANUAL script: a Run button and what the API answered (a queued job or why not). */
function scriptRow(scriptsHref, name) {
  const result = h('span', { 'data-script-result': name });
  const run = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'data-script': name,
      onclick: async () => {
        run.disabled = true;
        try {
          const { body } = await call('POST', `${scriptsHref}/${encodeURIComponent(name)}`);
          result.replaceChildren(
            body.queued
              ? h('span', { role: 'status' }, `Queued as job ${body.job.id}.`)
              : h('span', { role: 'status' }, `Not run: ${body.reason}`),
          );
        } catch (error) {
          result.replaceChildren(errorBox(error));
        } finally {
          run.disabled = false;
        }
      },
    },
    `Run ${name}`,
  );
  return h('li', { class: 'action-row' }, h('span', { class: 'action-name' }, name), run, result);
}

/**
 * Merge: pick the object to merge away with a typeahead over this class, then confirm. The merge
 * moves its links to this object and deletes it; the view shows this object again afterwards.
 */
function mergeForm(typeName, id) {
  const picker = relationPicker({ name: 'merge', multiple: false, linkableClasses: [typeName] }, []);
  const status = h('div');
  const confirm = h(
    'button',
    {
      type: 'button',
      class: 'danger',
      id: 'confirm-merge',
      hidden: true,
      onclick: async () => {
        confirm.disabled = true;
        const loser = picker.value();
        try {
          await call('POST', tenantPath('data', typeName, id, 'merge'), { body: { loser } });
          notice('Merged: the other object is gone, its links now point here.');
          navigate(`#/object/${encodeURIComponent(typeName)}/${encodeURIComponent(id)}`);
        } catch (error) {
          status.replaceChildren(errorBox(error));
          confirm.disabled = false;
        }
      },
    },
    'Merge permanently',
  );
  const start = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: 'merge',
      onclick: () => {
        status.replaceChildren();
        const loser = picker.value();
        if (loser === null) {
          status.replaceChildren(alertBox('Choose the object to merge into this one first.'));
          return;
        }
        if (loser.endsWith(`/${id}`)) {
          status.replaceChildren(alertBox('An object cannot be merged into itself.'));
          return;
        }
        confirm.hidden = false;
      },
    },
    'Merge into this one',
  );
  return h(
    'div',
    { id: 'merge-form' },
    h(
      'label',
      { for: picker.input.id },
      `Merge another of the ${classLabel(typeName).toLowerCase()} into this one (it is deleted, its links move here)`,
    ),
    picker.element,
    h('div', { class: 'toolbar' }, start, confirm),
    status,
  );
}

/** The actions section of an object view, or null when it offers none. */
export async function objectActions({ typeName, id, object, metadata, capabilities }) {
  const reports = metadata.reports ?? [];
  const scriptsHref = object._links._scripts?.href;
  const scripts =
    capabilities.mayModify && scriptsHref
      ? ((await get(scriptsHref).catch(() => ({ scripts: [] }))).scripts ?? [])
      : [];
  const mayMerge = capabilities.mayModify && capabilities.mayDelete;
  if (reports.length === 0 && scripts.length === 0 && !mayMerge) return null;
  return h(
    'section',
    { id: 'actions', 'aria-label': 'Actions' },
    reports.length === 0
      ? null
      : [
          h('h2', {}, 'Reports'),
          h(
            'ul',
            { class: 'actions', id: 'reports' },
            reports.map((r) => reportRow(typeName, id, r)),
          ),
        ],
    scripts.length === 0
      ? null
      : [
          h('h2', {}, 'Scripts'),
          h(
            'ul',
            { class: 'actions', id: 'scripts' },
            scripts.map((s) => scriptRow(scriptsHref, s)),
          ),
        ],
    mayMerge ? [h('h2', {}, 'Merge'), mergeForm(typeName, id)] : null,
  );
}
