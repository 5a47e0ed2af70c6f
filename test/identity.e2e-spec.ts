import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import { FakeGraphApi, graphErrorReply } from './support/fake-graph-api';
import {
  givenFollowUp,
  givenInboundMessage,
  givenWhatsappChannel,
  WhatsappChannel,
} from './support/given';
import { ManualClock } from './support/manual-clock';
import {
  graphSendAnswer,
  MetaPayload,
  waBsuidUsernameNoPhone,
  waBsuidWithPhone,
  waStatusDeliveredBsuid,
  waStatusDeliveredBsuidNoPhone,
  waSystemChangedNumber,
  waSystemChangedUserId,
  waUserIdUpdate,
} from './support/meta-payloads';
import { postToWebhook } from './support/meta-webhooks';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const SECRET = 'meta-app-secret-identity';
const HOUR = 3_600_000;
/** The BSUIDs of Meta's examples (test/support/meta-payloads.ts). */
const BSUID = 'US.13491208655302741918';
const NEW_BSUID = 'US.24817305912873645029';

interface Delivery {
  id: string;
  phone: string;
  status: string;
  message_type: string;
  wa_message_id: string | null;
  delivered_at: number | null;
  last_error: { code: string; message: string } | null;
}

type Json = Record<string, unknown>;

/**
 * One person is one person (issue 19, identity): the forms Meta names a WhatsApp user by (a number
 * with or without Brazil's ninth digit, Mexico's 521, Argentina's 549, the wa_id of a send's
 * answer, a BSUID, a changed BSUID or number) share their opt-out and their 24-hour window, and a
 * user Meta names only by a BSUID is answered with `to_user_id`. Meta's payloads are the fixtures
 * in Meta's documented shapes, dated now and filed under the test's channel.
 */
describe('Identity: one person in every form (e2e)', () => {
  let graph: FakeGraphApi;
  let clock: ManualClock;
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    clock = new ManualClock(Date.UTC(2026, 10, 2, 8, 0));
    t = await startApp(
      {
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '50',
        GRAPH_API_URL: graph.url,
        GRAPH_API_TIMEOUT_MS: '1500',
        META_APP_SECRET: SECRET,
      },
      { clock },
    );
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });
  beforeEach(() => {
    graph.reset();
    auth = bearer(tokenFor({ org: newOrganization() }));
  });

  /**
   * A fixture as Meta would send it to this channel now: its phone number id, every timestamp
   * `at`, a fresh message id (a fixture used twice is two messages), and `edit` applied.
   */
  function fixture(
    payload: MetaPayload,
    wa: WhatsappChannel,
    { at = clock.now(), edit }: { at?: number; edit?: (value: Json) => void } = {},
  ): Json {
    const copy = structuredClone(payload) as Json;
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (typeof node !== 'object' || node === null) return;
      const record = node as Json;
      if (typeof record.timestamp === 'string') record.timestamp = String(Math.floor(at / 1000));
      if (typeof record.phone_number_id === 'string') record.phone_number_id = wa.number_id;
      Object.values(record).forEach(visit);
    };
    visit(copy);
    const value = ((copy.entry as Json[])[0].changes as Json[])[0].value as Json;
    for (const message of (value.messages as Json[] | undefined) ?? []) {
      message.id = `wamid.${randomUUID()}`;
    }
    edit?.(value);
    return copy;
  }
  /** Posts Meta's notification, signed, and waits until agentline has applied it. */
  async function notify(wa: WhatsappChannel, payload: Json): Promise<void> {
    await postToWebhook(t, 'whatsapp', wa.id, payload, SECRET).expect(200);
    await eventually(async () => {
      const rows = (await t.app
        .get(DataSource)
        .query(
          `SELECT status, error FROM webhook_inbox WHERE channel_id = $1 AND status = 'pending'`,
          [wa.id],
        )) as unknown[];
      expect(rows).toEqual([]);
    });
  }
  /** The first message of a fixture says `body`. */
  const saying =
    (body: string) =>
    (value: Json): void => {
      ((value.messages as Json[])[0].text as Json).body = body;
    };
  const clientWrites = (wa: WhatsappChannel, from: string, body: string, at = clock.now()) =>
    givenInboundMessage(t, wa, SECRET, { from, body, at });
  const send = (wa: { id: string }, body: Json, as = auth) =>
    t.http().post(`/v1/channels/whatsapp/${wa.id}/messages`).set(as).send(body);
  const deliveries = async (wa: WhatsappChannel): Promise<Delivery[]> =>
    (await t.http().get(`/v1/channels/whatsapp/${wa.id}/deliveries`).set(auth).expect(200)).body
      .data.items;
  const followUpDeliveries = async (id: string): Promise<Delivery[]> =>
    (await t.http().get(`/v1/scheduler/follow-up/whatsapp/${id}/deliveries`).set(auth).expect(200))
      .body.data.items;
  const optOuts = async (wa: WhatsappChannel): Promise<{ phone: string }[]> =>
    (await t.http().get(`/v1/channels/whatsapp/${wa.id}/opt-outs`).set(auth).expect(200)).body.data
      .items;
  /** A send now that is recorded skipped as opted out, and never reaches Meta. */
  const expectSkipped = async (wa: WhatsappChannel, body: Json) => {
    const res = await send(wa, { text: 'Hello again', ...body }).expect(202);
    expect(res.body.data).toMatchObject({ status: 'skipped', last_error: { code: 'opted_out' } });
  };
  const quiet = () => new Promise((resolve) => setTimeout(resolve, 300));

  describe('the national rules, before any send', () => {
    it.each([
      // Meta's wa_id (what the client writes from) is the old form; the business dials the valid one.
      ['Brazil, the ninth digit', '554188887924', '+5541988887924'],
      ['Mexico, 521', '5215512345678', '+525512345678'],
      ['Argentina, 549', '5491123456789', '+541123456789'],
      ['Argentina, the other way', '541123456789', '+5491123456789'],
    ])(
      '%s: a STOP from %s stops the next follow-up and a send now to %s',
      async (_, writer, dialled) => {
        const wa = await givenWhatsappChannel(t, auth);
        await clientWrites(wa, writer, 'STOP');
        await eventually(async () =>
          expect((await optOuts(wa)).map((o) => o.phone)).toEqual([`+${writer}`]),
        );
        const followUp = await givenFollowUp(t, auth, wa.id, {
          frequency: 'once',
          client_phone_numbers: [dialled, '+34612345678'],
        });
        await eventually(async () => {
          const rows = await followUpDeliveries(followUp.id);
          expect(rows.map((d) => [d.phone, d.status]).sort()).toEqual(
            [
              [dialled, 'skipped'],
              ['+34612345678', 'sent'],
            ].sort(),
          );
        });
        await expectSkipped(wa, { to: dialled });
        expect(graph.messages.map((m) => m.to)).toEqual(['34612345678']);
      },
    );

    it('a message from one form opens the window for the other: the follow-up sends text, not its template', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await clientWrites(wa, '554188887924', 'Oi, e o meu pedido?', clock.now() - 2 * HOUR);
      const followUp = await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+5541988887924'],
        template: { name: 'check_in', language: 'pt_BR', parameters: ['{{title}}'] },
      });
      const [message] = await graph.waitForMessages(1);
      expect(message.to).toBe('5541988887924');
      expect(message.template).toBeUndefined();
      await eventually(async () =>
        expect((await followUpDeliveries(followUp.id))[0]).toMatchObject({
          status: 'sent',
          message_type: 'text',
        }),
      );
    });

    it('a landline is one number: a STOP from a Brazilian landline does not stop a mobile', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await clientWrites(wa, '554133334444', 'STOP');
      await eventually(async () => expect(await optOuts(wa)).toHaveLength(1));
      const res = await send(wa, { to: '+5541933334444', text: 'Olá' }).expect(202);
      expect(res.body.data.status).toBe('pending');
      await graph.waitForMessages(1);
    });
  });

  it('learns a form from Meta’s send answer (contacts[].input and wa_id differ)', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    // graphSendAnswer's documented shape, with a wa_id that no national rule gives.
    const answer = structuredClone(graphSendAnswer) as Json;
    answer.contacts = [{ input: '+34612345678', wa_id: '34699000111' }];
    graph.enqueue({ status: 200, body: answer });
    await send(wa, { to: '+34612345678', text: 'Hola' }).expect(202);
    await graph.waitForMessages(1);
    await eventually(async () => expect((await deliveries(wa))[0].status).toBe('sent'));

    await clientWrites(wa, '34699000111', 'stop');
    await eventually(async () => expect(await optOuts(wa)).toHaveLength(1));
    await expectSkipped(wa, { to: '+34612345678' });
    // An opt-in from either form clears it.
    await t
      .http()
      .delete(`/v1/channels/whatsapp/${wa.id}/opt-outs/+34612345678`)
      .set(auth)
      .expect(204);
    expect(await optOuts(wa)).toEqual([]);
  });

  describe('a user Meta names only by a BSUID', () => {
    it('writes, is answered with to_user_id (Graph `recipient`) inside the window, and its status applies', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await notify(wa, fixture(waBsuidUsernameNoPhone, wa, { at: clock.now() - HOUR }));
      const res = await send(wa, { to_user_id: BSUID, text: 'Yes, in blue and green.' }).expect(
        202,
      );
      expect(res.body.data).toMatchObject({ phone: BSUID, status: 'pending' });
      const [message] = await graph.waitForMessages(1);
      expect(message.payload).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        recipient: BSUID,
        type: 'text',
        text: { body: 'Yes, in blue and green.', preview_url: false },
      });
      const sent = await eventually(async () => {
        const [row] = await deliveries(wa);
        expect(row).toMatchObject({ id: res.body.data.id, status: 'sent' });
        return row;
      });

      // Meta's status of a message sent to a BSUID has recipient_user_id and no recipient_id.
      await notify(
        wa,
        fixture(waStatusDeliveredBsuidNoPhone, wa, {
          edit: (value) => ((value.statuses as Json[])[0].id = sent.wa_message_id),
        }),
      );
      await eventually(async () =>
        expect((await deliveries(wa))[0]).toMatchObject({
          status: 'delivered',
          delivered_at: clock.now() - (clock.now() % 1000),
        }),
      );
    });

    it('outside the window a text is left to Meta, as for a phone (131047 fails it), and a template goes to `recipient`', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await notify(wa, fixture(waBsuidUsernameNoPhone, wa, { at: clock.now() - 25 * HOUR }));
      graph.enqueue(graphErrorReply(400, 131047, 'Re-engagement message'));
      await send(wa, { to_user_id: BSUID, text: 'Still interested?' }).expect(202);
      await eventually(async () =>
        expect((await deliveries(wa))[0]).toMatchObject({
          status: 'failed',
          last_error: { code: '131047' },
        }),
      );
      await send(wa, {
        to_user_id: BSUID,
        template: { name: 'back_in_stock', language: 'en_US', parameters: [] },
      }).expect(202);
      const [message] = await graph.waitForMessages(1);
      expect(message.payload).toMatchObject({ recipient: BSUID, type: 'template' });
      expect(message.payload).not.toHaveProperty('to');
    });

    it('opts out by BSUID: sends now to it are skipped', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await notify(wa, fixture(waBsuidUsernameNoPhone, wa, { edit: saying('STOP') }));
      expect(await optOuts(wa)).toEqual([expect.objectContaining({ phone: BSUID })]);
      await expectSkipped(wa, { to_user_id: BSUID });
      await quiet();
      expect(graph.requests).toBe(0);
    });

    it('the opt-out API takes a BSUID as it takes a phone', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const path = `/v1/channels/whatsapp/${wa.id}/opt-outs/${BSUID}`;
      await t.http().put(path).set(auth).expect(204);
      expect(await optOuts(wa)).toEqual([expect.objectContaining({ phone: BSUID, source: 'api' })]);
      await expectSkipped(wa, { to_user_id: BSUID });
      await t.http().delete(path).set(auth).expect(204);
      expect(await optOuts(wa)).toEqual([]);
      await t
        .http()
        .put(`/v1/channels/whatsapp/${wa.id}/opt-outs/US.not%20an%20id`)
        .set(auth)
        .expect(400);
    });
  });

  it('a user who wrote with phone and BSUID, then opts out by BSUID, is opted out for the phone too (and back in by either)', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    await notify(wa, fixture(waBsuidWithPhone, wa));
    await notify(wa, fixture(waBsuidUsernameNoPhone, wa, { edit: saying('STOP') }));
    await expectSkipped(wa, { to: '+16505551234' });
    const followUp = await givenFollowUp(t, auth, wa.id, {
      frequency: 'once',
      client_phone_numbers: ['+16505551234'],
    });
    await eventually(async () =>
      expect((await followUpDeliveries(followUp.id))[0]).toMatchObject({
        status: 'skipped',
        last_error: { code: 'opted_out' },
      }),
    );
    await clientWrites(wa, '16505551234', 'START');
    await eventually(async () => expect(await optOuts(wa)).toEqual([]));
    await send(wa, { to_user_id: BSUID, text: 'Welcome back' }).expect(202);
    await graph.waitForMessages(1);
  });

  it('a status naming phone and BSUID links them', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    await notify(wa, fixture(waStatusDeliveredBsuid, wa));
    await notify(wa, fixture(waBsuidUsernameNoPhone, wa, { edit: saying('unsubscribe') }));
    await expectSkipped(wa, { to: '+16505551234' });
  });

  describe('identity changes', () => {
    it.each([
      ['a user_id_update notification', waUserIdUpdate],
      ['a user_changed_user_id system message', waSystemChangedUserId],
    ])(
      '%s: the new BSUID is the same person (opt-out and window carry over)',
      async (_, change) => {
        const wa = await givenWhatsappChannel(t, auth);
        await notify(wa, fixture(waBsuidUsernameNoPhone, wa, { edit: saying('STOP') }));
        await notify(wa, fixture(change, wa));
        await expectSkipped(wa, { to_user_id: NEW_BSUID });
      },
    );

    it('a user_id_update is read, not set aside', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await notify(wa, fixture(waUserIdUpdate, wa));
      const rows = (await t.app
        .get(DataSource)
        .query(
          `SELECT form, other, source FROM channel_identities WHERE channel_id = $1 ORDER BY form, other`,
          [wa.id],
        )) as { form: string; other: string; source: string }[];
      expect(rows.map((r) => [r.form, r.other]).sort()).toEqual(
        [
          ['+16505551234', BSUID],
          ['+16505551234', NEW_BSUID],
          [BSUID, '+16505551234'],
          [BSUID, NEW_BSUID],
          [NEW_BSUID, '+16505551234'],
          [NEW_BSUID, BSUID],
        ].sort(),
      );
      expect(new Set(rows.map((r) => r.source))).toEqual(new Set(['user_id_update']));
      const setAside = (await t.app
        .get(DataSource)
        .query('SELECT reason FROM webhook_items_set_aside WHERE channel_id = $1', [
          wa.id,
        ])) as unknown[];
      expect(setAside).toEqual([]);
    });

    it('a changed number passes its opt-out on; the old number does not speak for the person after', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await clientWrites(wa, '16505551234', 'STOP');
      await eventually(async () => expect(await optOuts(wa)).toHaveLength(1));
      await notify(wa, fixture(waSystemChangedNumber, wa));
      await expectSkipped(wa, { to: '+12195555358' });
      await expectSkipped(wa, { to_user_id: NEW_BSUID });
      // Whoever has the old number now opts it in: the person stays opted out.
      await clientWrites(wa, '16505551234', 'START');
      await eventually(async () =>
        expect((await optOuts(wa)).map((o) => o.phone)).toEqual(['+12195555358']),
      );
      await expectSkipped(wa, { to: '+12195555358' });
      // A system notice is not the client writing: it opens no window.
      const messages = (
        await t.http().get(`/v1/channels/whatsapp/${wa.id}/messages`).set(auth).expect(200)
      ).body.data.items as { type: string }[];
      expect(messages.map((m) => m.type)).toContain('system');
    });
  });

  describe('to_user_id is checked like any input', () => {
    it.each([
      [{ to_user_id: '', text: 'a' }, 'to_user_id'],
      [{ to_user_id: `US.${'1'.repeat(140)}`, text: 'a' }, 'to_user_id'],
      [{ to_user_id: 'US.1349\u0000', text: 'a' }, undefined],
      [{ to_user_id: '+16505551234', text: 'a' }, 'to_user_id'],
      [{ to_user_id: 42, text: 'a' }, 'to_user_id'],
      [{ to: '+16505551234', to_user_id: BSUID, text: 'a' }, 'to_user_id'],
      [{ text: 'a' }, 'to'],
    ])('%j answers 400 naming %s', async (body, field) => {
      const wa = await givenWhatsappChannel(t, auth);
      const res = await send(wa, body).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      if (field) {
        expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      }
    });

    it("answers 404 for another organization's channel", async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const other = bearer(tokenFor({ org: newOrganization() }));
      await send(wa, { to_user_id: BSUID, text: 'a' }, other).expect(404);
      await quiet();
      expect(graph.requests).toBe(0);
    });
  });
});
