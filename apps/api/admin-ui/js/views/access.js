/**
 * Keys and profiles (`#/access`; docs/sign-in.md "Keys and profiles over REST"): the tenant's
 * profiles (create with a role and an optional linked object, suspend, re-activate) and API keys
 * (create for a profile with an expiry, the value shown once; revoke). Admins only: others see the
 * API's 403.
 */
import { call, get, tenantPath } from '../api.js';
import { alertBox, dataTable, h, navigate, notice, show, takeNotice } from '../dom.js';
import { formatTimestamp } from '../format.js';
import { adminTabs } from './admin-tabs.js';

const ROLES = ['viewer', 'member', 'admin'];

function actionButton(label, attributes, run, message) {
  return h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      ...attributes,
      onclick: async () => {
        message.replaceChildren();
        try {
          await run();
        } catch (error) {
          message.replaceChildren(alertBox(`${error.status ?? ''} ${error.message}`));
        }
      },
    },
    label,
  );
}

/** The key just created, shown once: kept only in this render, gone on the next view. */
let createdKey = null;

export async function accessView() {
  const [{ profiles }, { keys }] = await Promise.all([
    get(tenantPath('admin', 'profiles')),
    get(tenantPath('admin', 'apiKeys')),
  ]);
  const message = h('div');
  const emailOf = new Map(profiles.map((p) => [p.id, p.email]));

  const email = h('input', { id: 'profile-email', type: 'email', required: true, autocomplete: 'off' });
  const role = h(
    'select',
    { id: 'profile-role' },
    ROLES.map((r) => h('option', { value: r }, r)),
  );
  const object = h('input', {
    id: 'profile-object',
    placeholder: 'object id or /data/... address',
    autocomplete: 'off',
  });
  const profileForm = h(
    'form',
    { class: 'toolbar', id: 'profile-form' },
    h('label', { for: 'profile-email' }, 'E-mail'),
    email,
    h('label', { for: 'profile-role' }, 'Role'),
    role,
    h('label', { for: 'profile-object' }, 'Linked object'),
    object,
    h('button', { type: 'submit' }, 'Create profile'),
  );
  profileForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    message.replaceChildren();
    try {
      const body = { email: email.value.trim(), role: role.value };
      if (object.value.trim() !== '') body.objectId = object.value.trim();
      await call('POST', tenantPath('admin', 'profiles'), { body });
      notice(`Created the profile of ${body.email}.`);
      navigate('#/access');
    } catch (error) {
      message.replaceChildren(alertBox(`${error.status ?? ''} ${error.message}`));
    }
  });

  const keyProfile = h(
    'select',
    { id: 'key-profile' },
    profiles.filter((p) => p.activeNow).map((p) => h('option', { value: p.id }, `${p.email} (${p.role})`)),
  );
  const expires = h('input', { id: 'key-expires', type: 'date' });
  const keyForm = h(
    'form',
    { class: 'toolbar', id: 'key-form' },
    h('label', { for: 'key-profile' }, 'Profile'),
    keyProfile,
    h('label', { for: 'key-expires' }, 'Expires'),
    expires,
    h('button', { type: 'submit' }, 'Create key'),
  );
  keyForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    message.replaceChildren();
    try {
      const body = { profileId: keyProfile.value };
      if (expires.value !== '') body.expiresAt = `${expires.value}T23:59:59Z`;
      const { body: key } = await call('POST', tenantPath('admin', 'apiKeys'), { body });
      createdKey = key;
      navigate('#/access');
    } catch (error) {
      message.replaceChildren(alertBox(`${error.status ?? ''} ${error.message}`));
    }
  });
  const shownKey = createdKey;
  createdKey = null;

  show(
    adminTabs('#/access'),
    takeNotice(),
    h('h1', {}, 'Keys and profiles'),
    shownKey === null
      ? null
      : h(
          'div',
          { class: 'notice', role: 'status', id: 'new-key' },
          'New key for ',
          emailOf.get(shownKey.profileId) ?? 'the tenant',
          '. It is shown this once; store it now: ',
          h('code', { class: 'secret', id: 'new-key-value' }, shownKey.key),
        ),
    message,
    h('h2', {}, 'Profiles'),
    dataTable(
      'profiles',
      ['E-mail', 'Role', 'Linked object', 'State', ''],
      profiles.map((p) =>
        h(
          'tr',
          { 'data-profile': p.email },
          h('td', {}, p.email),
          h('td', {}, p.role),
          h('td', {}, p.objectId ?? '-'),
          h('td', { 'data-state': p.email }, p.activeNow ? 'active' : 'suspended'),
          h(
            'td',
            {},
            actionButton(
              p.active ? 'Suspend' : 'Activate',
              { 'data-toggle': p.email },
              async () => {
                await call('PATCH', tenantPath('admin', 'profiles', p.id), { body: { active: !p.active } });
                navigate('#/access');
              },
              message,
            ),
          ),
        ),
      ),
    ),
    profileForm,
    h('h2', {}, 'API keys'),
    dataTable(
      'keys',
      ['Key', 'Profile', 'Created', 'Expires', 'State', ''],
      keys.map((k) =>
        h(
          'tr',
          { 'data-key': k.id },
          h('td', {}, k.id.slice(0, 8)),
          h('td', {}, k.profileId === null ? 'system key' : (emailOf.get(k.profileId) ?? k.profileId)),
          h('td', {}, formatTimestamp(k.createdAt)),
          h('td', {}, k.expiresAt === null ? 'never' : formatTimestamp(k.expiresAt)),
          h('td', { 'data-key-state': k.id }, k.state),
          h(
            'td',
            {},
            k.state === 'revoked'
              ? null
              : actionButton(
                  'Revoke',
                  { 'data-revoke': k.id },
                  async () => {
                    await call('DELETE', tenantPath('admin', 'apiKeys', k.id));
                    navigate('#/access');
                  },
                  message,
                ),
          ),
        ),
      ),
    ),
    keyForm,
  );
}
