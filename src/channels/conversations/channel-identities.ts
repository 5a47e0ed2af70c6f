import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { toIso } from '../../common/time';
import type { ChannelKind } from '../channel-transport';
import { ChannelKinds } from '../kinds/channel-kinds';
import type { IdentitySource } from '../webhooks/inbound-notification';

/**
 * How far a recipient's links are followed (a phone, its BSUID, the BSUID it changed to, that
 * one's number form...): enough for every chain Meta describes, and a bound on a read that runs
 * before every batch of sends.
 */
export const MAX_LINK_DEPTH = 4;

/** One recipient of one channel, by index in the caller's list. */
export interface RecipientRef {
  channelId: string;
  /** Its kind's rules give its other forms (WhatsApp's national number rules); none if absent. */
  kind?: ChannelKind;
  recipient: string;
}

/** Every form a recipient is known by, for the SQL of a batch: `unnest($1::int[], $2::uuid[], $3::text[])`. */
export interface FormsOfBatch {
  keys: number[];
  channelIds: string[];
  forms: string[];
}

/**
 * The forms of one person on a channel, as channels learn them: a phone number and its WhatsApp
 * BSUID (a message or status that names both), the `wa_id` Meta answers for a number dialled in
 * another form, a previous and a current BSUID (identity changes); and, computed, the forms a
 * kind's rules give (a Brazilian mobile with and without its ninth digit). Opt-outs and the
 * 24-hour window read them all (ChannelConversations.states).
 */
@Injectable()
export class ChannelIdentities {
  constructor(private readonly kinds: ChannelKinds) {}

  /** A recipient and the forms its kind's rules give, before anything is learned. */
  ruleForms(kind: ChannelKind | undefined, recipient: string): string[] {
    const samePerson = kind === undefined ? undefined : this.kinds.find(kind)?.samePerson;
    return [recipient, ...(samePerson?.(recipient) ?? [])];
  }

  /**
   * Records that `forms` name one person on the channel: every pair, both ways, each phone's rule
   * forms included, so that a read finds any form from any other. Idempotent; rows are written in
   * one sorted order, so two transactions linking the same forms never wait on each other in a cycle.
   */
  async link(
    db: EntityManager,
    {
      organizationId,
      channelId,
      kind,
      forms,
      source,
      at,
    }: {
      organizationId: string;
      channelId: string;
      kind: ChannelKind;
      forms: readonly (string | null | undefined)[];
      source: IdentitySource;
      at: number;
    },
  ): Promise<void> {
    const all = new Set<string>();
    for (const form of forms) {
      if (!form) continue;
      for (const same of this.ruleForms(kind, form)) all.add(same);
    }
    if (all.size < 2) return;
    await db.query(
      `INSERT INTO channel_identities (channel_id, form, other, organization_id, source, learned_at)
       SELECT $1, a, b, $2, $3, $4
         FROM unnest($5::text[]) AS a, unnest($5::text[]) AS b
        WHERE a <> b
        ORDER BY a, b
       ON CONFLICT DO NOTHING`,
      [channelId, organizationId, source, toIso(at), [...all]],
    );
  }

  /**
   * Every form of each recipient, in one query for the whole list: the rule forms, then the links
   * (followed up to MAX_LINK_DEPTH). Answered as the arrays a batch's SQL unnests.
   */
  async formsOf(db: EntityManager, refs: readonly RecipientRef[]): Promise<FormsOfBatch> {
    const seeds: FormsOfBatch = { keys: [], channelIds: [], forms: [] };
    refs.forEach((ref, index) => {
      for (const form of this.ruleForms(ref.kind, ref.recipient)) {
        seeds.keys.push(index);
        seeds.channelIds.push(ref.channelId);
        seeds.forms.push(form);
      }
    });
    if (refs.length === 0) return seeds;
    const rows = (await db.query(
      `WITH RECURSIVE forms (k, channel_id, form, depth) AS (
         SELECT k, channel_id, form, 0 FROM unnest($1::int[], $2::uuid[], $3::text[]) AS s(k, channel_id, form)
         UNION
         SELECT f.k, f.channel_id, i.other, f.depth + 1
           FROM forms f
           JOIN channel_identities i ON i.channel_id = f.channel_id AND i.form = f.form
          WHERE f.depth < ${MAX_LINK_DEPTH}
       )
       SELECT DISTINCT k, channel_id, form FROM forms`,
      [seeds.keys, seeds.channelIds, seeds.forms],
    )) as { k: number; channel_id: string; form: string }[];
    return {
      keys: rows.map((row) => Number(row.k)),
      channelIds: rows.map((row) => row.channel_id),
      forms: rows.map((row) => row.form),
    };
  }

  /** Every form of one recipient of one channel. */
  async formsOfOne(db: EntityManager, ref: RecipientRef): Promise<string[]> {
    return (await this.formsOf(db, [ref])).forms;
  }
}
