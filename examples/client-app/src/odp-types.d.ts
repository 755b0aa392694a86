// Declarations of the classes of tenant demo, generated from its model by `odp types`.
// Regenerate them when the model changes; do not edit.

/** A single-valued relation as read. */
export interface OdpLink { readonly href: string; readonly name?: string | null }
/** A multi-valued relation as read: its related list and the current links. */
export interface OdpMultiLink { readonly href: string; readonly values?: readonly OdpLink[]; readonly more?: boolean }
/** A FILE or IMAGE value as read (`href`: its download route) and an upload descriptor to write. */
export interface OdpFile { readonly href: string; readonly fileName: string; readonly contentType: string; readonly size: number }
/** A history-enabled field as read. */
export interface OdpHistory<T> {
  readonly current: T;
  readonly history: readonly { readonly value: T; readonly validFrom: string; readonly modifiedBy: string | null }[];
}
/** A relation as written: the related object's URI (`_links._self.href`) or its id. */
export type OdpRef = string;

/** Keys of list commons.documentType. */
export type DocumentType = "invoice" | "contract" | "receipt" | "other";

/** Keys of list crm.companyType. */
export type CompanyType = "bv" | "nv" | "sole" | "foundation";

/** Keys of list crm.invoiceStatus. */
export type InvoiceStatus = "draft" | "sent" | "paid" | "cancelled";

/** Keys of list system.externalService. */
export type ExternalService = "ai-model" | "document-conversion" | "company-register-nl" | "company-register-gb" | "address-enrichment" | "webhook" | "mail";

/** Keys of list system.profileRole. */
export type ProfileRole = "admin" | "member" | "viewer";

/** An object of class crm.company (`companies`) as read. */
export interface Company {
  /** Plural name of the BASIC class. */
  readonly _class: string;
  /** Plural names of every class of the object. */
  readonly _classes: readonly string[];
  readonly _creationDate: string;
  readonly _modificationDate: string;
  /** Legal name; TEXT */
  readonly legalName: string;
  /** E-mail; EMAIL */
  readonly email?: string;
  /** TEXT */
  readonly website?: string;
  /** TEXT */
  readonly phone?: string;
  /** TEXTBLOCK */
  readonly description?: string;
  /** Registration number; TEXT */
  readonly registrationNumber?: string;
  /** Legal form; LIST crm.companyType */
  readonly companyType?: CompanyType;
  /** DATE */
  readonly foundedOn?: string;
  /** INTEGER */
  readonly employeeCount?: number;
  /** CURRENCY */
  readonly revenue?: number;
  /** BOOLEAN */
  readonly active: boolean;
  /** TIME */
  readonly openingTime?: string;
  /** DATETIME */
  readonly lastContactAt?: string;
  /** ARRAY */
  readonly tags?: (string | number)[];
  /** JSON */
  readonly profile?: unknown;
  /** IMAGE */
  readonly logo?: OdpFile;
  readonly _links: {
    readonly _self: OdpLink;
    readonly _scripts?: OdpLink;
    readonly _metadata?: OdpLink;
    readonly _relatedDataObject?: OdpLink;
    readonly _form?: OdpLink;
    /** forward relation to persons */
    readonly employees?: OdpMultiLink;
    /** forward relation to shareholders */
    readonly shareholders?: OdpMultiLink;
    /** inverse relation to invoices */
    readonly invoices?: OdpMultiLink;
  };
}

/** A create body of `companies`. */
export interface CompanyCreate {
  /** Legal name; TEXT */
  readonly legalName: string;
  /** E-mail; EMAIL */
  readonly email?: string;
  /** TEXT */
  readonly website?: string;
  /** TEXT */
  readonly phone?: string;
  /** TEXTBLOCK */
  readonly description?: string;
  /** Registration number; TEXT */
  readonly registrationNumber?: string;
  /** Legal form; LIST crm.companyType */
  readonly companyType?: CompanyType;
  /** DATE */
  readonly foundedOn?: string;
  /** INTEGER */
  readonly employeeCount?: number;
  /** CURRENCY */
  readonly revenue?: number;
  /** BOOLEAN */
  readonly active?: boolean;
  /** TIME */
  readonly openingTime?: string;
  /** DATETIME */
  readonly lastContactAt?: string;
  /** ARRAY */
  readonly tags?: (string | number)[];
  /** JSON */
  readonly profile?: unknown;
  /** IMAGE */
  readonly logo?: OdpFile | string;
  /** Customer portal token; SECRET */
  readonly apiToken?: string;
  readonly employees?: readonly OdpRef[];
  readonly shareholders?: readonly OdpRef[];
}

/** A patch body of `companies`: an absent key is unchanged, null or "" clears. */
export interface CompanyPatch {
  /** Legal name; TEXT */
  readonly legalName?: string | null | '';
  /** E-mail; EMAIL */
  readonly email?: string | null | '';
  /** TEXT */
  readonly website?: string | null | '';
  /** TEXT */
  readonly phone?: string | null | '';
  /** TEXTBLOCK */
  readonly description?: string | null | '';
  /** Registration number; TEXT */
  readonly registrationNumber?: string | null | '';
  /** Legal form; LIST crm.companyType */
  readonly companyType?: CompanyType | null | '';
  /** DATE */
  readonly foundedOn?: string | null | '';
  /** INTEGER */
  readonly employeeCount?: number | null | '';
  /** CURRENCY */
  readonly revenue?: number | null | '';
  /** BOOLEAN */
  readonly active?: boolean | null | '';
  /** TIME */
  readonly openingTime?: string | null | '';
  /** DATETIME */
  readonly lastContactAt?: string | null | '';
  /** ARRAY */
  readonly tags?: (string | number)[] | null | '';
  /** JSON */
  readonly profile?: unknown | null | '';
  /** IMAGE */
  readonly logo?: OdpFile | string | null | '';
  /** Customer portal token; SECRET */
  readonly apiToken?: string | null | '';
  readonly employees?: readonly OdpRef[] | null;
  readonly shareholders?: readonly OdpRef[] | null;
}

/** List filters of `companies` (docs/interface.md, "List / query"). */
export interface CompanyFilter {
  readonly legalName?: string | null;
  readonly legalName_from?: string;
  readonly legalName_to?: string;
  readonly legalName_startswith?: string;
  readonly legalName_notempty?: true;
  readonly email?: string | null;
  readonly email_from?: string;
  readonly email_to?: string;
  readonly email_startswith?: string;
  readonly email_notempty?: true;
  readonly website?: string | null;
  readonly website_from?: string;
  readonly website_to?: string;
  readonly website_startswith?: string;
  readonly website_notempty?: true;
  readonly phone?: string | null;
  readonly phone_from?: string;
  readonly phone_to?: string;
  readonly phone_startswith?: string;
  readonly phone_notempty?: true;
  readonly description?: string | null;
  readonly description_from?: string;
  readonly description_to?: string;
  readonly description_startswith?: string;
  readonly description_notempty?: true;
  readonly registrationNumber?: string | null;
  readonly registrationNumber_from?: string;
  readonly registrationNumber_to?: string;
  readonly registrationNumber_startswith?: string;
  readonly registrationNumber_notempty?: true;
  readonly companyType?: CompanyType | null;
  readonly companyType_from?: CompanyType;
  readonly companyType_to?: CompanyType;
  readonly companyType_startswith?: string;
  readonly companyType_notempty?: true;
  readonly foundedOn?: string | null;
  readonly foundedOn_from?: string;
  readonly foundedOn_to?: string;
  readonly foundedOn_startswith?: string;
  readonly foundedOn_notempty?: true;
  readonly employeeCount?: number | null;
  readonly employeeCount_from?: number;
  readonly employeeCount_to?: number;
  readonly employeeCount_notempty?: true;
  readonly revenue?: number | null;
  readonly revenue_from?: number;
  readonly revenue_to?: number;
  readonly revenue_notempty?: true;
  readonly active?: boolean | null;
  readonly active_notempty?: true;
  readonly openingTime?: string | null;
  readonly openingTime_from?: string;
  readonly openingTime_to?: string;
  readonly openingTime_startswith?: string;
  readonly openingTime_notempty?: true;
  readonly lastContactAt?: string | null;
  readonly lastContactAt_from?: string;
  readonly lastContactAt_to?: string;
  readonly lastContactAt_startswith?: string;
  readonly lastContactAt_notempty?: true;
  readonly logo_notempty?: true;
  /** the related object's name */
  readonly employees?: string;
  readonly "employees.name"?: string;
  /** the related object's URI or id */
  readonly employees_href?: string;
  readonly employees_startswith?: string;
  /** the related object's name */
  readonly shareholders?: string;
  readonly "shareholders.name"?: string;
  /** the related object's URI or id */
  readonly shareholders_href?: string;
  readonly shareholders_startswith?: string;
  /** the related object's name */
  readonly invoices?: string;
  readonly "invoices.name"?: string;
  /** the related object's URI or id */
  readonly invoices_href?: string;
  readonly invoices_startswith?: string;
}

/** Sort keys of `companies`. */
export type CompanySort = "legalName" | "email" | "website" | "phone" | "description" | "registrationNumber" | "companyType" | "foundedOn" | "employeeCount" | "revenue" | "active" | "openingTime" | "lastContactAt";

/** An object of class commons.document (`documents`) as read. */
export interface Document {
  /** Plural name of the BASIC class. */
  readonly _class: string;
  /** Plural names of every class of the object. */
  readonly _classes: readonly string[];
  readonly _creationDate: string;
  readonly _modificationDate: string;
  /** TEXT */
  readonly title: string;
  /** FILE */
  readonly file: OdpFile;
  /** FILE, multiple */
  readonly attachments?: readonly OdpFile[];
  /** Document type; LIST commons.documentType */
  readonly documentType?: DocumentType;
  /** DATE */
  readonly receivedOn?: string;
  /** LONGTEXT */
  readonly summary?: string;
  readonly _links: {
    readonly _self: OdpLink;
    readonly _scripts?: OdpLink;
    readonly _metadata?: OdpLink;
    readonly _relatedDataObject?: OdpLink;
    readonly _form?: OdpLink;
    /** forward relation to invoices */
    readonly invoices?: OdpMultiLink;
  };
}

/** A create body of `documents`. */
export interface DocumentCreate {
  /** TEXT */
  readonly title: string;
  /** FILE */
  readonly file: OdpFile | string;
  /** FILE, multiple */
  readonly attachments?: readonly (OdpFile | string)[];
  /** Document type; LIST commons.documentType */
  readonly documentType?: DocumentType;
  /** DATE */
  readonly receivedOn?: string;
  /** LONGTEXT */
  readonly summary?: string;
  readonly invoices?: readonly OdpRef[];
}

/** A patch body of `documents`: an absent key is unchanged, null or "" clears. */
export interface DocumentPatch {
  /** TEXT */
  readonly title?: string | null | '';
  /** FILE */
  readonly file?: OdpFile | string | null | '';
  /** FILE, multiple */
  readonly attachments?: readonly (OdpFile | string)[] | null | '';
  /** Document type; LIST commons.documentType */
  readonly documentType?: DocumentType | null | '';
  /** DATE */
  readonly receivedOn?: string | null | '';
  /** LONGTEXT */
  readonly summary?: string | null | '';
  readonly invoices?: readonly OdpRef[] | null;
}

/** List filters of `documents` (docs/interface.md, "List / query"). */
export interface DocumentFilter {
  readonly title?: string | null;
  readonly title_from?: string;
  readonly title_to?: string;
  readonly title_startswith?: string;
  readonly title_notempty?: true;
  readonly file_notempty?: true;
  readonly attachments_notempty?: true;
  readonly documentType?: DocumentType | null;
  readonly documentType_from?: DocumentType;
  readonly documentType_to?: DocumentType;
  readonly documentType_startswith?: string;
  readonly documentType_notempty?: true;
  readonly receivedOn?: string | null;
  readonly receivedOn_from?: string;
  readonly receivedOn_to?: string;
  readonly receivedOn_startswith?: string;
  readonly receivedOn_notempty?: true;
  /** the related object's name */
  readonly invoices?: string;
  readonly "invoices.name"?: string;
  /** the related object's URI or id */
  readonly invoices_href?: string;
  readonly invoices_startswith?: string;
}

/** Sort keys of `documents`. */
export type DocumentSort = "title" | "documentType" | "receivedOn";

/** An object of class crm.invoiceLine (`invoiceLines`) as read. */
export interface InvoiceLine {
  /** Plural name of the BASIC class. */
  readonly _class: string;
  /** Plural names of every class of the object. */
  readonly _classes: readonly string[];
  readonly _creationDate: string;
  readonly _modificationDate: string;
  /** TEXT */
  readonly description: string;
  /** DECIMAL */
  readonly quantity: number;
  /** Unit price; CURRENCY */
  readonly unitPrice: number;
  /** CURRENCY; formula: round(quantity * unitPrice, 2) */
  readonly amount?: number;
  readonly _links: {
    readonly _self: OdpLink;
    readonly _scripts?: OdpLink;
    readonly _metadata?: OdpLink;
    readonly _relatedDataObject?: OdpLink;
    readonly _form?: OdpLink;
    /** forward relation to invoices */
    readonly invoice?: OdpLink;
  };
}

/** A create body of `invoiceLines`. */
export interface InvoiceLineCreate {
  /** TEXT */
  readonly description: string;
  /** DECIMAL */
  readonly quantity?: number;
  /** Unit price; CURRENCY */
  readonly unitPrice: number;
  readonly invoice: OdpRef;
}

/** A patch body of `invoiceLines`: an absent key is unchanged, null or "" clears. */
export interface InvoiceLinePatch {
  /** TEXT */
  readonly description?: string | null | '';
  /** DECIMAL */
  readonly quantity?: number | null | '';
  /** Unit price; CURRENCY */
  readonly unitPrice?: number | null | '';
  readonly invoice?: OdpRef | null | '';
}

/** List filters of `invoiceLines` (docs/interface.md, "List / query"). */
export interface InvoiceLineFilter {
  readonly description?: string | null;
  readonly description_from?: string;
  readonly description_to?: string;
  readonly description_startswith?: string;
  readonly description_notempty?: true;
  readonly quantity?: number | null;
  readonly quantity_from?: number;
  readonly quantity_to?: number;
  readonly quantity_notempty?: true;
  readonly unitPrice?: number | null;
  readonly unitPrice_from?: number;
  readonly unitPrice_to?: number;
  readonly unitPrice_notempty?: true;
  readonly amount?: number | null;
  readonly amount_from?: number;
  readonly amount_to?: number;
  readonly amount_notempty?: true;
  /** the related object's name */
  readonly invoice?: string;
  readonly "invoice.name"?: string;
  /** the related object's URI or id */
  readonly invoice_href?: string;
  readonly invoice_startswith?: string;
}

/** Sort keys of `invoiceLines`. */
export type InvoiceLineSort = "description" | "quantity" | "unitPrice" | "amount" | "invoice";

/** An object of class crm.invoice (`invoices`) as read. */
export interface Invoice {
  /** Plural name of the BASIC class. */
  readonly _class: string;
  /** Plural names of every class of the object. */
  readonly _classes: readonly string[];
  readonly _creationDate: string;
  readonly _modificationDate: string;
  /** Invoice number; TEXT */
  readonly invoiceNumber: string;
  /** DATE */
  readonly invoiceDate: string;
  /** DATE */
  readonly dueDate?: string;
  /** Amount excl. VAT; CURRENCY */
  readonly amount: number;
  /** VAT rate; PERCENTAGE */
  readonly vatRate: number;
  /** CURRENCY; formula: round(amount * vatRate / 100, 2) */
  readonly vatAmount?: number;
  /** CURRENCY; formula: round(amount * (1 + vatRate / 100), 2) */
  readonly total?: number;
  /** CURRENCY; formula: sum(lines.amount) */
  readonly linesTotal?: number;
  /** TEXT; formula: client.legalName */
  readonly clientName?: string;
  /** LIST crm.invoiceStatus */
  readonly status: OdpHistory<InvoiceStatus>;
  readonly _links: {
    readonly _self: OdpLink;
    readonly _scripts?: OdpLink;
    readonly _metadata?: OdpLink;
    readonly _relatedDataObject?: OdpLink;
    readonly _form?: OdpLink;
    /** forward relation to companies */
    readonly client?: OdpLink;
    /** forward relation to persons */
    readonly contact?: OdpLink;
    /** inverse relation to documents */
    readonly documents?: OdpMultiLink;
    /** inverse relation to invoiceLines */
    readonly lines?: OdpMultiLink;
  };
}

/** A create body of `invoices`. */
export interface InvoiceCreate {
  /** Invoice number; TEXT */
  readonly invoiceNumber: string;
  /** DATE */
  readonly invoiceDate?: string;
  /** DATE */
  readonly dueDate?: string;
  /** Amount excl. VAT; CURRENCY */
  readonly amount: number;
  /** VAT rate; PERCENTAGE */
  readonly vatRate?: number;
  /** LIST crm.invoiceStatus */
  readonly status?: InvoiceStatus;
  /** TEXT */
  readonly internalNote?: string;
  readonly client: OdpRef;
  readonly contact?: OdpRef;
}

/** A patch body of `invoices`: an absent key is unchanged, null or "" clears. */
export interface InvoicePatch {
  /** Invoice number; TEXT */
  readonly invoiceNumber?: string | null | '';
  /** DATE */
  readonly invoiceDate?: string | null | '';
  /** DATE */
  readonly dueDate?: string | null | '';
  /** Amount excl. VAT; CURRENCY */
  readonly amount?: number | null | '';
  /** VAT rate; PERCENTAGE */
  readonly vatRate?: number | null | '';
  /** LIST crm.invoiceStatus */
  readonly status?: InvoiceStatus | null | '';
  /** TEXT */
  readonly internalNote?: string | null | '';
  readonly client?: OdpRef | null | '';
  readonly contact?: OdpRef | null | '';
}

/** List filters of `invoices` (docs/interface.md, "List / query"). */
export interface InvoiceFilter {
  readonly invoiceNumber?: string | null;
  readonly invoiceNumber_from?: string;
  readonly invoiceNumber_to?: string;
  readonly invoiceNumber_startswith?: string;
  readonly invoiceNumber_notempty?: true;
  readonly invoiceDate?: string | null;
  readonly invoiceDate_from?: string;
  readonly invoiceDate_to?: string;
  readonly invoiceDate_startswith?: string;
  readonly invoiceDate_notempty?: true;
  readonly dueDate?: string | null;
  readonly dueDate_from?: string;
  readonly dueDate_to?: string;
  readonly dueDate_startswith?: string;
  readonly dueDate_notempty?: true;
  readonly amount?: number | null;
  readonly amount_from?: number;
  readonly amount_to?: number;
  readonly amount_notempty?: true;
  readonly vatRate?: number | null;
  readonly vatRate_from?: number;
  readonly vatRate_to?: number;
  readonly vatRate_notempty?: true;
  readonly vatAmount?: number | null;
  readonly vatAmount_from?: number;
  readonly vatAmount_to?: number;
  readonly vatAmount_notempty?: true;
  readonly total?: number | null;
  readonly total_from?: number;
  readonly total_to?: number;
  readonly total_notempty?: true;
  readonly linesTotal?: number | null;
  readonly linesTotal_from?: number;
  readonly linesTotal_to?: number;
  readonly linesTotal_notempty?: true;
  readonly clientName?: string | null;
  readonly clientName_from?: string;
  readonly clientName_to?: string;
  readonly clientName_startswith?: string;
  readonly clientName_notempty?: true;
  readonly status?: InvoiceStatus | null;
  readonly status_from?: InvoiceStatus;
  readonly status_to?: InvoiceStatus;
  readonly status_startswith?: string;
  readonly status_notempty?: true;
  /** the related object's name */
  readonly client?: string;
  readonly "client.name"?: string;
  /** the related object's URI or id */
  readonly client_href?: string;
  readonly client_startswith?: string;
  /** the related object's name */
  readonly contact?: string;
  readonly "contact.name"?: string;
  /** the related object's URI or id */
  readonly contact_href?: string;
  readonly contact_startswith?: string;
  /** the related object's name */
  readonly documents?: string;
  readonly "documents.name"?: string;
  /** the related object's URI or id */
  readonly documents_href?: string;
  readonly documents_startswith?: string;
  /** the related object's name */
  readonly lines?: string;
  readonly "lines.name"?: string;
  /** the related object's URI or id */
  readonly lines_href?: string;
  readonly lines_startswith?: string;
}

/** Sort keys of `invoices`. */
export type InvoiceSort = "invoiceNumber" | "invoiceDate" | "dueDate" | "amount" | "vatRate" | "vatAmount" | "total" | "linesTotal" | "clientName" | "status" | "client" | "contact";

/** An object of class crm.note (`notes`) as read. */
export interface Note {
  /** Plural name of the BASIC class. */
  readonly _class: string;
  /** Plural names of every class of the object. */
  readonly _classes: readonly string[];
  readonly _creationDate: string;
  readonly _modificationDate: string;
  /** TEXT */
  readonly subject: string;
  /** LONGTEXT */
  readonly body?: string;
  /** DATETIME */
  readonly notedAt?: string;
  readonly _links: {
    readonly _self: OdpLink;
    readonly _scripts?: OdpLink;
    readonly _metadata?: OdpLink;
    readonly _relatedDataObject?: OdpLink;
    readonly _form?: OdpLink;
    /** forward relation to persons */
    readonly persons?: OdpMultiLink;
  };
}

/** A create body of `notes`. */
export interface NoteCreate {
  /** TEXT */
  readonly subject: string;
  /** LONGTEXT */
  readonly body?: string;
  /** DATETIME */
  readonly notedAt?: string;
  readonly persons?: readonly OdpRef[];
}

/** A patch body of `notes`: an absent key is unchanged, null or "" clears. */
export interface NotePatch {
  /** TEXT */
  readonly subject?: string | null | '';
  /** LONGTEXT */
  readonly body?: string | null | '';
  /** DATETIME */
  readonly notedAt?: string | null | '';
  readonly persons?: readonly OdpRef[] | null;
}

/** List filters of `notes` (docs/interface.md, "List / query"). */
export interface NoteFilter {
  readonly subject?: string | null;
  readonly subject_from?: string;
  readonly subject_to?: string;
  readonly subject_startswith?: string;
  readonly subject_notempty?: true;
  readonly notedAt?: string | null;
  readonly notedAt_from?: string;
  readonly notedAt_to?: string;
  readonly notedAt_startswith?: string;
  readonly notedAt_notempty?: true;
  /** the related object's name */
  readonly persons?: string;
  readonly "persons.name"?: string;
  /** the related object's URI or id */
  readonly persons_href?: string;
  readonly persons_startswith?: string;
}

/** Sort keys of `notes`. */
export type NoteSort = "subject" | "notedAt";

/** An object of class crm.organisation (`organisations`) as read. */
export interface Organisation {
  /** Plural name of the BASIC class. */
  readonly _class: string;
  /** Plural names of every class of the object. */
  readonly _classes: readonly string[];
  readonly _creationDate: string;
  readonly _modificationDate: string;
  /** Legal name; TEXT */
  readonly legalName: string;
  /** E-mail; EMAIL */
  readonly email?: string;
  /** TEXT */
  readonly website?: string;
  /** TEXT */
  readonly phone?: string;
  /** TEXTBLOCK */
  readonly description?: string;
  readonly _links: {
    readonly _self: OdpLink;
    readonly _scripts?: OdpLink;
    readonly _metadata?: OdpLink;
    readonly _relatedDataObject?: OdpLink;
    readonly _form?: OdpLink;
  };
}

/** A create body of `organisations`. */
export interface OrganisationCreate {
  /** Legal name; TEXT */
  readonly legalName: string;
  /** E-mail; EMAIL */
  readonly email?: string;
  /** TEXT */
  readonly website?: string;
  /** TEXT */
  readonly phone?: string;
  /** TEXTBLOCK */
  readonly description?: string;
}

/** A patch body of `organisations`: an absent key is unchanged, null or "" clears. */
export interface OrganisationPatch {
  /** Legal name; TEXT */
  readonly legalName?: string | null | '';
  /** E-mail; EMAIL */
  readonly email?: string | null | '';
  /** TEXT */
  readonly website?: string | null | '';
  /** TEXT */
  readonly phone?: string | null | '';
  /** TEXTBLOCK */
  readonly description?: string | null | '';
}

/** List filters of `organisations` (docs/interface.md, "List / query"). */
export interface OrganisationFilter {
  readonly legalName?: string | null;
  readonly legalName_from?: string;
  readonly legalName_to?: string;
  readonly legalName_startswith?: string;
  readonly legalName_notempty?: true;
  readonly email?: string | null;
  readonly email_from?: string;
  readonly email_to?: string;
  readonly email_startswith?: string;
  readonly email_notempty?: true;
  readonly website?: string | null;
  readonly website_from?: string;
  readonly website_to?: string;
  readonly website_startswith?: string;
  readonly website_notempty?: true;
  readonly phone?: string | null;
  readonly phone_from?: string;
  readonly phone_to?: string;
  readonly phone_startswith?: string;
  readonly phone_notempty?: true;
  readonly description?: string | null;
  readonly description_from?: string;
  readonly description_to?: string;
  readonly description_startswith?: string;
  readonly description_notempty?: true;
}

/** Sort keys of `organisations`. */
export type OrganisationSort = "legalName" | "email" | "website" | "phone" | "description";

/** An object of class crm.person (`persons`) as read. */
export interface Person {
  /** Plural name of the BASIC class. */
  readonly _class: string;
  /** Plural names of every class of the object. */
  readonly _classes: readonly string[];
  readonly _creationDate: string;
  readonly _modificationDate: string;
  /** First name; TEXT */
  readonly firstName: string;
  /** Last name; TEXT */
  readonly lastName: string;
  /** EMAIL */
  readonly email?: string;
  /** TEXT, multiple */
  readonly phoneNumbers?: readonly string[];
  /** DATE */
  readonly birthDate?: string;
  /** IMAGE */
  readonly photo?: OdpFile;
  /** TEXT; formula: concat(upper(firstName), '.') */
  readonly initials?: string;
  readonly _links: {
    readonly _self: OdpLink;
    readonly _scripts?: OdpLink;
    readonly _metadata?: OdpLink;
    readonly _relatedDataObject?: OdpLink;
    readonly _form?: OdpLink;
    /** inverse relation to companies */
    readonly employers?: OdpMultiLink;
    /** inverse relation to invoices */
    readonly contactForInvoices?: OdpMultiLink;
    /** inverse relation to notes */
    readonly notes?: OdpMultiLink;
  };
}

/** A create body of `persons`. */
export interface PersonCreate {
  /** First name; TEXT */
  readonly firstName: string;
  /** Last name; TEXT */
  readonly lastName: string;
  /** EMAIL */
  readonly email?: string;
  /** TEXT, multiple */
  readonly phoneNumbers?: readonly string[];
  /** DATE */
  readonly birthDate?: string;
  /** IMAGE */
  readonly photo?: OdpFile | string;
  /** TEXT; formula: concat(upper(firstName), '.') */
  readonly initials?: string;
}

/** A patch body of `persons`: an absent key is unchanged, null or "" clears. */
export interface PersonPatch {
  /** First name; TEXT */
  readonly firstName?: string | null | '';
  /** Last name; TEXT */
  readonly lastName?: string | null | '';
  /** EMAIL */
  readonly email?: string | null | '';
  /** TEXT, multiple */
  readonly phoneNumbers?: readonly string[] | null | '';
  /** DATE */
  readonly birthDate?: string | null | '';
  /** IMAGE */
  readonly photo?: OdpFile | string | null | '';
  /** TEXT; formula: concat(upper(firstName), '.') */
  readonly initials?: string | null | '';
}

/** List filters of `persons` (docs/interface.md, "List / query"). */
export interface PersonFilter {
  readonly firstName?: string | null;
  readonly firstName_from?: string;
  readonly firstName_to?: string;
  readonly firstName_startswith?: string;
  readonly firstName_notempty?: true;
  readonly lastName?: string | null;
  readonly lastName_from?: string;
  readonly lastName_to?: string;
  readonly lastName_startswith?: string;
  readonly lastName_notempty?: true;
  readonly email?: string | null;
  readonly email_from?: string;
  readonly email_to?: string;
  readonly email_startswith?: string;
  readonly email_notempty?: true;
  readonly phoneNumbers?: string | null;
  readonly phoneNumbers_from?: string;
  readonly phoneNumbers_to?: string;
  readonly phoneNumbers_startswith?: string;
  readonly phoneNumbers_notempty?: true;
  readonly birthDate?: string | null;
  readonly birthDate_from?: string;
  readonly birthDate_to?: string;
  readonly birthDate_startswith?: string;
  readonly birthDate_notempty?: true;
  readonly photo_notempty?: true;
  readonly initials?: string | null;
  readonly initials_from?: string;
  readonly initials_to?: string;
  readonly initials_startswith?: string;
  readonly initials_notempty?: true;
  /** the related object's name */
  readonly employers?: string;
  readonly "employers.name"?: string;
  /** the related object's URI or id */
  readonly employers_href?: string;
  readonly employers_startswith?: string;
  /** the related object's name */
  readonly contactForInvoices?: string;
  readonly "contactForInvoices.name"?: string;
  /** the related object's URI or id */
  readonly contactForInvoices_href?: string;
  readonly contactForInvoices_startswith?: string;
  /** the related object's name */
  readonly notes?: string;
  readonly "notes.name"?: string;
  /** the related object's URI or id */
  readonly notes_href?: string;
  readonly notes_startswith?: string;
}

/** Sort keys of `persons`. */
export type PersonSort = "firstName" | "lastName" | "email" | "phoneNumbers" | "birthDate" | "initials";

/** An object of class crm.shareholder (`shareholders`) as read. */
export interface Shareholder {
  /** Plural name of the BASIC class. */
  readonly _class: string;
  /** Plural names of every class of the object. */
  readonly _classes: readonly string[];
  readonly _creationDate: string;
  readonly _modificationDate: string;
  /** Share (%); PERCENTAGE */
  readonly sharePercentage?: number;
  /** DATE */
  readonly shareholderSince?: string;
  readonly _links: {
    readonly _self: OdpLink;
    readonly _scripts?: OdpLink;
    readonly _metadata?: OdpLink;
    readonly _relatedDataObject?: OdpLink;
    readonly _form?: OdpLink;
    /** inverse relation to companies */
    readonly shareholdings?: OdpMultiLink;
  };
}

/** A create body of `shareholders`. */
export interface ShareholderCreate {
  /** Share (%); PERCENTAGE */
  readonly sharePercentage?: number;
  /** DATE */
  readonly shareholderSince?: string;
}

/** A patch body of `shareholders`: an absent key is unchanged, null or "" clears. */
export interface ShareholderPatch {
  /** Share (%); PERCENTAGE */
  readonly sharePercentage?: number | null | '';
  /** DATE */
  readonly shareholderSince?: string | null | '';
}

/** List filters of `shareholders` (docs/interface.md, "List / query"). */
export interface ShareholderFilter {
  readonly sharePercentage?: number | null;
  readonly sharePercentage_from?: number;
  readonly sharePercentage_to?: number;
  readonly sharePercentage_notempty?: true;
  readonly shareholderSince?: string | null;
  readonly shareholderSince_from?: string;
  readonly shareholderSince_to?: string;
  readonly shareholderSince_startswith?: string;
  readonly shareholderSince_notempty?: true;
  /** the related object's name */
  readonly shareholdings?: string;
  readonly "shareholdings.name"?: string;
  /** the related object's URI or id */
  readonly shareholdings_href?: string;
  readonly shareholdings_startswith?: string;
}

/** Sort keys of `shareholders`. */
export type ShareholderSort = "sharePercentage" | "shareholderSince";

/** The tenant's classes by plural name: `createClient<Schema>(...)` of @odp/client. */
export interface Schema {
  readonly companies: {
    read: Company;
    create: CompanyCreate;
    patch: CompanyPatch;
    filter: CompanyFilter;
    sort: CompanySort;
    related: { employees: { plural: "persons"; create: PersonCreate }; shareholders: { plural: "shareholders"; create: ShareholderCreate }; invoices: { plural: "invoices"; create: Omit<InvoiceCreate, "client"> } };
  };
  readonly documents: {
    read: Document;
    create: DocumentCreate;
    patch: DocumentPatch;
    filter: DocumentFilter;
    sort: DocumentSort;
    related: { invoices: { plural: "invoices"; create: InvoiceCreate } };
  };
  readonly invoiceLines: {
    read: InvoiceLine;
    create: InvoiceLineCreate;
    patch: InvoiceLinePatch;
    filter: InvoiceLineFilter;
    sort: InvoiceLineSort;
    related: { invoice: { plural: "invoices"; create: InvoiceCreate } };
  };
  readonly invoices: {
    read: Invoice;
    create: InvoiceCreate;
    patch: InvoicePatch;
    filter: InvoiceFilter;
    sort: InvoiceSort;
    related: { client: { plural: "companies"; create: CompanyCreate }; contact: { plural: "persons"; create: PersonCreate }; documents: { plural: "documents"; create: Omit<DocumentCreate, "invoices"> }; lines: { plural: "invoiceLines"; create: Omit<InvoiceLineCreate, "invoice"> } };
  };
  readonly notes: {
    read: Note;
    create: NoteCreate;
    patch: NotePatch;
    filter: NoteFilter;
    sort: NoteSort;
    related: { persons: { plural: "persons"; create: PersonCreate } };
  };
  readonly organisations: {
    read: Organisation;
    create: OrganisationCreate;
    patch: OrganisationPatch;
    filter: OrganisationFilter;
    sort: OrganisationSort;
    related: Record<never, never>;
  };
  readonly persons: {
    read: Person;
    create: PersonCreate;
    patch: PersonPatch;
    filter: PersonFilter;
    sort: PersonSort;
    related: { employers: { plural: "companies"; create: Omit<CompanyCreate, "employees"> }; contactForInvoices: { plural: "invoices"; create: Omit<InvoiceCreate, "contact"> }; notes: { plural: "notes"; create: Omit<NoteCreate, "persons"> } };
  };
  readonly shareholders: {
    read: Shareholder;
    create: ShareholderCreate;
    patch: ShareholderPatch;
    filter: ShareholderFilter;
    sort: ShareholderSort;
    related: { shareholdings: { plural: "companies"; create: Omit<CompanyCreate, "shareholders"> } };
  };
}
