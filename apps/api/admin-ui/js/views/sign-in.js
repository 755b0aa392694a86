import { call, saveSession } from '../api.js';
import { alertBox, h, navigate, show } from '../dom.js';

/**
 * Sign in with a tenant id and an API key (`odp key create`, or the demo key `pnpm start` prints).
 * The pair is checked against `GET /metadata/{tenant}/classes` before it is kept. `?tenant=` in the
 * hash pre-fills the tenant (the address `pnpm start` prints carries the demo tenant's id).
 */
export function signInView(query) {
  const error = h('div');
  const tenant = h('input', {
    id: 'tenant',
    name: 'tenant',
    required: true,
    autocomplete: 'off',
    value: query.get('tenant') ?? '',
  });
  const key = h('input', {
    id: 'api-key',
    name: 'apiKey',
    type: 'password',
    required: true,
    autocomplete: 'off',
  });
  const submit = h('button', { type: 'submit', id: 'sign-in' }, 'Sign in');
  const form = h(
    'form',
    { class: 'sign-in', novalidate: true },
    h('h1', {}, 'Sign in'),
    h(
      'p',
      { class: 'muted' },
      'With an API key of the tenant. The key stays in this browser tab only and is sent in a header, never in a URL.',
    ),
    h('label', { for: 'tenant' }, 'Tenant id'),
    tenant,
    h('label', { for: 'api-key' }, 'API key'),
    key,
    h('p', {}, submit),
    error,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const session = { tenant: tenant.value.trim(), key: key.value.trim() };
    error.replaceChildren();
    if (session.tenant === '' || session.key === '') {
      error.append(alertBox('Enter the tenant id and an API key.'));
      return;
    }
    submit.disabled = true;
    try {
      await call('GET', `/metadata/${encodeURIComponent(session.tenant)}/classes`, { session });
      saveSession(session.tenant, session.key);
      navigate('#/classes');
    } catch (failure) {
      error.append(
        alertBox(
          failure.status === 401
            ? 'The key is not valid for this tenant (unknown, expired or revoked, or of another tenant).'
            : failure.message,
        ),
      );
    } finally {
      submit.disabled = false;
    }
  });
  show(form);
  (tenant.value === '' ? tenant : key).focus();
}
