/**
 * Pages of a tenant's change events as an account's event stream sends them (docs/events.md):
 * filtered by the account's read rules, with the changed fields it may see and, on request, their
 * current values, and held to the page byte budget (`maxPageBytes`) as list pages are.
 */
import { LoopSlices, jsonInSlices } from '@odp/core';
import type { AccessFilter, Account, ChangeEvent, EventCursor } from '@odp/core';
import { inReach } from './classes.js';
import type { DataServiceDeps } from './deps.js';
import type { DataObject, Renderer } from './render.js';

/** One change event as the event stream sends it (docs/events.md). */
export interface StreamEvent {
  /** The event's position in the tenant's log (its SSE `id`). */
  readonly cursor: EventCursor;
  readonly data: {
    readonly type: ChangeEvent['type'];
    readonly href: string;
    readonly classes: string[];
    readonly at: string;
    readonly loser?: string;
    /** Create and update: the changed fields and relations the reader may see (absent on older events). */
    readonly changed?: string[];
    /** With the `values` option: the current rendering of the `changed` names (absent once the object is gone). */
    readonly values?: Record<string, unknown>;
  };
  /**
   * `data` as JSON, serialised once: the page is measured by it and the stream sends it (a replay
   * of large values would otherwise serialise each of them twice).
   */
  readonly json: string;
}

/** What {@link EventPages.after} adds to each event. */
export interface StreamOptions {
  /** Also the `values` of each create and update event's `changed` fields, as Get one renders them. */
  readonly values?: boolean;
}

/** One page of events and the cursor the next page starts after. */
export interface EventPage {
  readonly events: StreamEvent[];
  readonly next: EventCursor;
}

/**
 * Events rendered with their values in the first round of a page: the rounds after it take as
 * many as the budget left holds at the size seen so far, so a page of large values is read about
 * one budget at a time instead of rendering every event of the log read and dropping most (one
 * event of a megabyte fills a page of the default budget: a larger first round would render
 * events only to drop them).
 */
const FIRST_VALUES_ROUND = 1;

export class EventPages {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly renderer: Renderer,
  ) {}

  /**
   * Change events after `after` (at most `limit` read from the log) that the account may see: all
   * for the system account; for a user, those its read filter lets through; never events of objects
   * outside the service's reach (system objects on `/data`, whatever the account). Deleted objects
   * count as readable only when none of their classes is protected.
   *
   * The page's events weigh at most `eventPageBytes` (and `maxPageBytes`) of JSON (always at least
   * one event, so a reader advances); no round is rendered once the budget is spent. `next` is where the following page continues: past the events read (the hidden ones
   * included), or right after the last event returned when the budget cut the page; it equals
   * `after` when the log had nothing new.
   */
  async after(
    account: Account,
    after: EventCursor,
    limit: number,
    options: StreamOptions = {},
  ): Promise<EventPage> {
    const read = await this.deps.store.events.read(after, limit);
    const filter = await this.deps.access.accessFilter(account);
    const visible: ChangeEvent[] = [];
    for (const event of read.events) {
      if (await this.mayReadEvent(account, filter, event)) visible.push(event);
    }
    const { maxPageBytes = Number.POSITIVE_INFINITY, eventPageBytes = maxPageBytes } = this.deps.limits ?? {};
    const budget = Math.min(maxPageBytes, eventPageBytes);
    const events: StreamEvent[] = [];
    let used = 0;
    let round = options.values ? FIRST_VALUES_ROUND : visible.length;
    const slices = new LoopSlices();
    for (let start = 0; start < visible.length; start += round) {
      const last = events.at(-1);
      if (last !== undefined) {
        if (used >= budget) return { events, next: last.cursor };
        round = Math.max(1, Math.floor(((budget - used) * events.length) / used));
      }
      const roundEvents = visible.slice(start, start + round);
      for (const event of await this.described(roundEvents, filter, options, slices)) {
        used += Buffer.byteLength(event.json);
        const last = events.at(-1);
        if (used > budget && last !== undefined) return { events, next: last.cursor };
        events.push(event);
      }
    }
    return { events, next: read.next };
  }

  /**
   * `events` as sent: a create or update event whose log entry names its changed fields carries
   * those that Get one would render for the account (`changed`; see `Renderer.readableNames`); with
   * `options.values` also their `values`, rendered from the object's current state (one read and one
   * rendering for all of `events`, so a value may be newer than its event), unless the object is gone.
   */
  private async described(
    events: readonly ChangeEvent[],
    filter: AccessFilter,
    options: StreamOptions,
    slices: LoopSlices,
  ): Promise<StreamEvent[]> {
    const objectIds = [
      ...new Set(events.filter((event) => describesFields(event)).map((event) => event.objectId)),
    ];
    const [hidden, rendered] =
      objectIds.length === 0
        ? [new Map<string, ReadonlySet<string>>(), new Map<string, DataObject>()]
        : await Promise.all([
            this.deps.store.hiddenDerivedFields(objectIds, filter),
            options.values ? this.renderedById(objectIds, filter, slices) : new Map<string, DataObject>(),
          ]);
    const described: StreamEvent[] = [];
    for (const event of events) {
      // Each event's serialisation in slices of its own (a large value's takes milliseconds).
      await slices.next();
      if (!describesFields(event)) {
        described.push(await this.streamEvent(event, slices));
        continue;
      }
      const changed = this.renderer.readableNames(event.classes, event.changed, hidden.get(event.objectId));
      const current = rendered.get(event.objectId);
      described.push(
        await this.streamEvent(event, slices, {
          changed,
          ...(current ? { values: this.renderer.renderedValues(current, changed) } : {}),
        }),
      );
    }
    return described;
  }

  /** The objects among `ids` that `filter` lets through, rendered as Get one renders them, by id. */
  private async renderedById(
    ids: readonly string[],
    filter: AccessFilter,
    slices: LoopSlices,
  ): Promise<Map<string, DataObject>> {
    const objects = await this.deps.store.getMany(ids, filter);
    await slices.next();
    const rendered = await this.renderer.render(objects, this.deps.store, filter);
    return new Map(objects.map((object, index) => [object.id, rendered[index] ?? {}]));
  }

  private async mayReadEvent(account: Account, filter: AccessFilter, event: ChangeEvent): Promise<boolean> {
    const reach = this.deps.reach ?? 'data';
    if (event.classes.some((name) => !inReach(this.deps.model.classes.get(name), reach))) return false;
    if (account.kind === 'system') return true;
    if (filter.kind === 'all') return true;
    if (!event.classes.some((name) => filter.protectedClasses.includes(name))) return true;
    return event.type !== 'delete' && (await this.deps.store.get(event.objectId, filter)) !== null;
  }

  /**
   * The event as the stream sends it, its JSON text written in slices: the values of a large
   * field a piece at a time (`jsonInSlices`, levels: the event, its values, each value).
   */
  private async streamEvent(
    event: ChangeEvent,
    slices: LoopSlices,
    fields?: { changed: string[]; values?: Record<string, unknown> },
  ): Promise<StreamEvent> {
    const basicClass = event.classes[0] ?? '';
    const data = {
      type: event.type,
      href: this.renderer.href({ id: event.objectId, basicClass }),
      classes: event.classes.map((name) => this.renderer.plural(name)),
      at: event.at,
      ...(event.loserId ? { loser: this.renderer.href({ id: event.loserId, basicClass }) } : {}),
      ...fields,
    };
    return { cursor: event.cursor, data, json: (await jsonInSlices(data, slices, EVENT_LEVELS)) ?? '' };
  }
}

/** Levels of an event opened by its serialisation: the event, its values, each value's elements. */
const EVENT_LEVELS = 3;

/** A create or update event whose log entry names the fields it changed (older entries do not). */
function describesFields(event: ChangeEvent): event is ChangeEvent & { readonly changed: readonly string[] } {
  return (event.type === 'create' || event.type === 'update') && event.changed !== undefined;
}
