/**
 * The UserInvitation gateway through real processes (docs/worker.md): `pnpm start` (api and worker),
 * a real SMTP server on 127.0.0.1 receiving the invitation e-mails, and a test identity provider
 * whose signed-in person redeems an invitation. One test per row of the spec's table (profile none /
 * exists without active access / exists with active access), then the link and bad parameters.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSmtpReceiver } from '@odp/gateways/testing';
import type { ReceivedMail, SmtpReceiver } from '@odp/gateways/testing';
import { DEMO, DataApi } from './data-api.js';
import type { Json } from './data-api.js';
import { startIdp } from './support/idp.js';
import type { Idp } from './support/idp.js';
import { runScriptToEnd, usageRecords } from './support/jobs.js';
import { REPO_ROOT, startServer } from './support/server.js';

jest.setTimeout(60_000);

/** Scripts that invite a fixed address with the object they run on as personRef. */
const OTHER_ADDRESS = {
  inviteAnnAddress: 'ann@acme.example',
  inviteCarlaAddress: 'carla@globex.example',
} as const;

interface ProfileView {
  id: string;
  email: string;
  role: string;
  objectId: string | null;
  subject: string | null;
  activeNow: boolean;
}
interface InvitationView {
  id: string;
  profileId: string;
  email: string;
  state: string;
}

describe('UserInvitation gateway', () => {
  let smtp: SmtpReceiver;
  let idp: Idp;
  let api: DataApi;
  let modelDir: string;

  const profiles = async () =>
    (await api.server.odp(['profile', 'list', '--tenant', api.tenant]))['profiles'] as ProfileView[];
  const profileOf = async (email: string) => (await profiles()).find((profile) => profile.email === email);
  const invitations = async () =>
    (await api.server.odp(['invitation', 'list', '--tenant', api.tenant]))['invitations'] as InvitationView[];
  const invite = (person: string, script = 'invite') => runScriptToEnd(api, 'persons', person, script);
  const tokenOf = (mail: ReceivedMail | undefined) =>
    /\/invitations\/(odpi_[A-Za-z0-9_-]{43})/.exec(mail?.text ?? '')?.[1];

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    idp = await startIdp();
    modelDir = mkdtempSync(path.join(os.tmpdir(), 'odp-invitation-model-'));
    cpSync(path.join(REPO_ROOT, 'examples/models/crm'), modelDir, { recursive: true });
    const file = path.join(modelDir, 'classes/crm/person.json');
    const person = JSON.parse(readFileSync(file, 'utf8')) as { scripts?: unknown[] };
    const script = (
      name: string,
      parameters: unknown[],
      email: unknown = { name: 'email', formula: 'email' },
    ) => ({
      name,
      type: 'CONSUMER_GATEWAY',
      gateway: 'UserInvitation',
      scope: 'OBJECT',
      trigger: ['MANUAL'],
      parameters: [email, { name: 'personRef', formula: '_href' }, ...parameters],
    });
    person.scripts = [
      script('invite', [{ name: 'role', value: 'viewer' }]),
      script('inviteNamed', [{ name: 'firstName', formula: 'firstName' }]),
      // Another person's address with this object as personRef (parameters whoever runs it chose).
      ...Object.entries(OTHER_ADDRESS).map(([name, address]) =>
        script(name, [{ name: 'lastName', value: 'Invited' }], { name: 'email', value: address }),
      ),
      script('inviteRenamed', [
        { name: 'firstName', formula: 'upper(firstName)' },
        { name: 'lastName', value: 'Invited' },
        { name: 'role', value: 'admin' },
      ]),
    ];
    writeFileSync(file, JSON.stringify(person));
    const server = await startServer({
      env: {
        ...idp.env,
        ODP_SMTP_URL: smtp.url,
        ODP_MAIL_FROM: 'no-reply@odp.example.test',
        ODP_WORKER_POLL_MS: '50',
      },
    });
    const tenant = await server.odp(['tenant', 'create', '--name', 'Acme CRM', '--model', modelDir]);
    const key = await server.odp(['key', 'create', '--tenant', String(tenant['id'])]);
    api = new DataApi(server, String(tenant['id']), String(key['key']));
    expect((await api.call('POST', '/loadDefaultData')).status).toBe(200);
  });
  afterAll(async () => {
    await api?.server.stop();
    await smtp?.close();
    await idp?.stop();
    rmSync(modelDir, { recursive: true, force: true });
  });
  beforeEach(() => smtp.messages.splice(0));

  it('no profile: creates one with the role of the script, linked to the person, and e-mails an invitation', async () => {
    expect(await invite(DEMO.ann)).toMatchObject({ status: 'done', attempts: 1, gateway: 'UserInvitation' });
    expect(await profileOf('ann@acme.example')).toMatchObject({
      role: 'viewer',
      objectId: DEMO.ann,
      subject: null,
    });
    const profile = await profileOf('ann@acme.example');
    expect(await invitations()).toEqual([
      expect.objectContaining({ profileId: profile!.id, email: 'ann@acme.example', state: 'open' }),
    ]);
    const [mail] = await smtp.waitFor(1);
    expect(mail).toMatchObject({ to: ['ann@acme.example'], subject: 'You are invited to Acme CRM' });
    expect(mail?.text).toContain(`Accept the invitation: ${api.server.baseUrl}/invitations/odpi_`);
    expect(tokenOf(mail)).toBeDefined();
    // The token travels in the e-mail only: never in the job list, the log or the registry listing.
    expect(api.server.output()).not.toContain(tokenOf(mail)!);
    expect(JSON.stringify(await invitations())).not.toContain(tokenOf(mail)!);
    // The e-mail is an external call: one usage record of the mail service for the person.
    expect(await usageRecords(api, '&service=mail')).toEqual([
      expect.objectContaining({ service: 'mail', success: true, reference: api.href('persons', DEMO.ann) }),
    ]);
  });

  it('the invitation link: the signed-in person redeems it once and then has access', async () => {
    await invite(DEMO.ann);
    const [mail] = await smtp.waitFor(1);
    const token = tokenOf(mail)!;
    const bearer = {
      Authorization: `Bearer ${await idp.token({ sub: 'ann-sub', email: 'ann@acme.example' })}`,
    };
    expect(
      (await fetch(`${api.server.baseUrl}/data/${api.tenant}/persons`, { headers: bearer })).status,
    ).toBe(403);
    const withKey = await fetch(`${api.server.baseUrl}/invitations/${token}`, {
      method: 'POST',
      headers: { 'X-API-Key': api.systemKey },
    });
    expect(withKey.status).toBe(401);
    const accepted = await fetch(`${api.server.baseUrl}/invitations/${token}`, {
      method: 'POST',
      headers: bearer,
    });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({
      tenantId: api.tenant,
      profileId: (await profileOf('ann@acme.example'))!.id,
      role: 'viewer',
    });
    expect(
      (await fetch(`${api.server.baseUrl}/data/${api.tenant}/persons`, { headers: bearer })).status,
    ).toBe(200);
    const again = await fetch(`${api.server.baseUrl}/invitations/${token}`, {
      method: 'POST',
      headers: bearer,
    });
    expect(again.status).toBe(404);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    const forged = await fetch(`${api.server.baseUrl}/invitations/odpi_${'x'.repeat(43)}`, {
      method: 'POST',
      headers: bearer,
    });
    expect(forged.status).toBe(404);
    expect(await profileOf('ann@acme.example')).toMatchObject({ subject: 'ann-sub', activeNow: true });
  });

  it('a profile without active access: keeps the person and the role, updates the names, invites again', async () => {
    // A person who signed in before, linked to their person object, then suspended.
    const created = await api.server.odp([
      'profile',
      'create',
      '--tenant',
      api.tenant,
      '--sub',
      'bob-sub',
      '--email',
      'Bob@Acme.example',
      '--role',
      'member',
      '--object',
      api.href('persons', DEMO.bob),
    ]);
    await api.server.odp(['profile', 'suspend', '--tenant', api.tenant, '--id', String(created['id'])]);
    const before = (await invitations()).length;
    expect(await invite(DEMO.bob, 'inviteRenamed')).toMatchObject({ status: 'done' });
    expect(await profileOf('Bob@Acme.example')).toMatchObject({
      id: created['id'],
      role: 'member',
      objectId: DEMO.bob,
    });
    expect(await api.get(`/persons/${DEMO.bob}`)).toMatchObject({ firstName: 'BOB', lastName: 'Invited' });
    const added = (await invitations()).slice(before);
    expect(added).toEqual([expect.objectContaining({ profileId: created['id'], state: 'open' })]);
    const [mail] = await smtp.waitFor(1);
    // Sent to the profile's address (the SMTP server lower-cases the domain).
    expect(mail?.to.map((to) => to.toLowerCase())).toEqual(['bob@acme.example']);
    expect(mail?.text).toMatch(/^Hello BOB,/);
  });

  it('a profile with active access, linked to the person: updates the names; no invitation, no e-mail', async () => {
    // Ann accepted her invitation above: her profile has her identity and is linked to her person.
    const ann = await profileOf('ann@acme.example');
    expect(ann).toMatchObject({ subject: 'ann-sub', objectId: DEMO.ann, activeNow: true });
    const before = (await invitations()).length;
    const mailRecords = (await usageRecords(api, '&service=mail')).length;
    expect(await invite(DEMO.ann, 'inviteRenamed')).toMatchObject({ status: 'done', lastError: null });
    expect(await profileOf('ann@acme.example')).toMatchObject({
      id: ann!.id,
      role: 'viewer',
      objectId: DEMO.ann,
      activeNow: true,
    });
    expect(await api.get(`/persons/${DEMO.ann}`)).toMatchObject({ firstName: 'ANN', lastName: 'Invited' });
    expect(await invitations()).toHaveLength(before);
    expect(smtp.messages).toEqual([]);
    expect(await usageRecords(api, '&service=mail')).toHaveLength(mailRecords);
  });

  it('never moves the profile of a person who signed in to another person object: fails, changes nothing', async () => {
    // Runs that name a signed-in person's address with another personRef: Ann (linked to her
    // person) with Mallory's object, and Carla (signed in, not linked yet) with her person object.
    const mallory = await api.create('persons', {
      firstName: 'Mallory',
      lastName: 'Other',
      email: 'mallory@other.example',
    });
    const created = await api.server.odp([
      'profile',
      'create',
      '--tenant',
      api.tenant,
      '--sub',
      'carla-sub',
      '--email',
      'carla@globex.example',
      '--role',
      'viewer',
    ]);
    const before = { profiles: await profiles(), invitations: (await invitations()).length };
    const mailRecords = (await usageRecords(api, '&service=mail')).length;
    for (const [person, script] of [
      [mallory, 'inviteAnnAddress'],
      [DEMO.carla, 'inviteCarlaAddress'],
    ] as const) {
      const email = OTHER_ADDRESS[script];
      expect(await invite(person, script)).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastError: expect.stringContaining('signed in'),
      });
      expect(await profileOf(email)).toEqual(before.profiles.find((profile) => profile.email === email));
    }
    expect((await profileOf('carla@globex.example'))?.id).toBe(created['id']);
    expect(await profiles()).toEqual(before.profiles);
    // Nothing half done: no names written, no invitation, no e-mail, no usage record.
    expect(await api.get(`/persons/${mallory}`)).toMatchObject({ firstName: 'Mallory', lastName: 'Other' });
    expect(await api.get(`/persons/${DEMO.carla}`)).not.toMatchObject({ lastName: 'Invited' });
    expect(await invitations()).toHaveLength(before.invitations);
    expect(smtp.messages).toEqual([]);
    expect(await usageRecords(api, '&service=mail')).toHaveLength(mailRecords);
    // Ann keeps the record access of her own person object only.
    const bearer = {
      Authorization: `Bearer ${await idp.token({ sub: 'ann-sub', email: 'ann@acme.example' })}`,
    };
    const own = await fetch(`${api.server.baseUrl}/data/${api.tenant}/persons/${DEMO.ann}`, {
      headers: bearer,
    });
    expect(own.status).toBe(200);
  });

  it('greets with the name as text: markup in the name is escaped in the HTML part, never sent as HTML', async () => {
    for (const [firstName, email] of [
      ['Eve<script>alert(1)</script>', 'eve@evil.example'],
      ['<a href="https://evil.example/">Accept</a>', 'mallory@evil.example'],
    ] as const) {
      smtp.messages.splice(0);
      const person = await api.create('persons', { firstName, lastName: 'Markup', email });
      expect(await invite(person, 'inviteNamed')).toMatchObject({ status: 'done' });
      const [mail] = await smtp.waitFor(1);
      expect(mail?.text).toContain(`Hello ${firstName},`);
      expect(mail?.html).not.toContain('<script>');
      expect(mail?.html).not.toContain('href="https://evil.example/"');
      expect(mail?.html).toContain(
        `Hello ${firstName.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')},`,
      );
      // The only link is the invitation's own.
      expect(mail?.html.match(/<a /g)).toHaveLength(1);
    }
  });

  it('fails bad parameters without retry and without any change', async () => {
    const nobody = await api.create('persons', { firstName: 'No', lastName: 'Mail' });
    const before = (await profiles()).length;
    expect(await invite(nobody)).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: 'The invitation parameter email is missing or not an e-mail address.',
    });
    expect(await profiles()).toHaveLength(before);
    expect(smtp.messages).toEqual([]);
    const found = (await api.get<Json>(`/persons/${nobody}`))['firstName'];
    expect(found).toBe('No');
  });
});
