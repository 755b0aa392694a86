/**
 * The external services whose calls are rate limited and logged as usage records (interface spec,
 * Limits; the keys of the built-in list `system.externalService`). The first five are the services
 * the specification names; `webhook` and `mail` are the platform's own outbound calls (the Webhook
 * gateway's requests; the e-mails of the Mail and UserInvitation gateways), which the
 * specification counts among the external services that scripts call (docs/worker.md).
 */
export const EXTERNAL_SERVICES: readonly { readonly key: string; readonly label: string }[] = [
  { key: 'ai-model', label: 'AI model' },
  { key: 'document-conversion', label: 'Document conversion' },
  { key: 'company-register-nl', label: 'Company register (NL)' },
  { key: 'company-register-gb', label: 'Company register (GB)' },
  { key: 'address-enrichment', label: 'Address enrichment' },
  { key: 'webhook', label: 'Webhook' },
  { key: 'mail', label: 'E-mail' },
];
