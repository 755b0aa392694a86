/**
 * The tabs of the administration views (model and rebuild, usage, jobs, the model's classes,
 * keys and profiles, the API explorer): one strip on each, the current one marked for assistive
 * tools with `aria-current`.
 */
import { h } from '../dom.js';

const TABS = [
  ['#/model', 'Model and rebuild'],
  ['#/usage', 'Usage'],
  ['#/jobs', 'Jobs'],
  ['#/access', 'Keys and profiles'],
];

export function adminTabs(current) {
  return h(
    'nav',
    { class: 'tabs', 'aria-label': 'Administration' },
    TABS.map(([hash, label]) =>
      h('a', { href: hash, 'aria-current': hash === current ? 'page' : null }, label),
    ),
  );
}
