import type { ServerResponse } from 'node:http';
import type { FakeReply } from './fake-graph-api';
import { graphRefusal } from '../../src/sandbox/graph/graph-errors';
import {
  GraphTemplate,
  readTemplateListingQuery,
  templateListingPage,
} from '../../src/sandbox/graph/graph-template-listing';
import { SPRING_SALE } from './meta-templates';

/**
 * A WhatsApp Business Account's message templates as Graph's `GET /{waba_id}/message_templates`
 * lists them (WhatsApp Business Management API, "Message Templates"): only the fields asked for
 * (`fields=`), `limit` per page at most (and at most `maxPageSize`, as Graph may send fewer), with
 * Graph's cursor paging: `paging.cursors.{before,after}`, and `paging.next` on every page but the
 * last (developers.facebook.com/docs/graph-api/results).
 */
export type FakeTemplate = GraphTemplate;

/** A listing the fake received. */
export interface TemplateListingRequest {
  wabaId: string;
  accessToken: string | undefined;
  fields: string[];
  limit: number | undefined;
  after: string | undefined;
}

const VERSION_PATH = /^\/v\d+\.\d+\/([^/?]+)\/message_templates(?:\?(.*))?$/;

export class FakeGraphTemplates {
  /** Every listing request, in order, answered or not. */
  readonly requests: TemplateListingRequest[] = [];
  /** Graph sends at most this many per page, whatever `limit` asks. */
  maxPageSize = 100;
  /** Listings answered at once (to prove a sync never runs twice for one channel at a time). */
  inFlight = 0;
  maxInFlight = 0;
  /** The most listings of one account answered at once. */
  readonly maxInFlightByAccount = new Map<string, number>();
  private readonly inFlightByAccount = new Map<string, number>();
  /** How long each answer takes. */
  delayMs = 0;
  private readonly accounts = new Map<string, { templates: FakeTemplate[]; token?: string }>();
  private readonly queue: FakeReply[] = [];

  constructor(private readonly baseUrl: () => string) {}

  /** The account's templates from now on; with `token`, only that token may list them. */
  set(wabaId: string, templates: FakeTemplate[], token?: string): void {
    this.accounts.set(wabaId, { templates, token });
  }

  templatesOf(wabaId: string): FakeTemplate[] {
    return this.accounts.get(wabaId)?.templates ?? [];
  }

  /** Script the next listings' answers (FIFO), before the account's own. */
  enqueue(...replies: FakeReply[]): void {
    this.queue.push(...replies);
  }

  reset(): void {
    this.requests.length = 0;
    this.accounts.clear();
    this.queue.length = 0;
    this.maxPageSize = 100;
    this.inFlight = 0;
    this.maxInFlight = 0;
    this.maxInFlightByAccount.clear();
    this.inFlightByAccount.clear();
    this.delayMs = 0;
  }

  /**
   * The answer to a GET, or undefined when it is not a template listing. The listing counts as in
   * flight until `res` closes: its answer sent, or its connection gone (the client gave up).
   */
  answer(url: string, accessToken: string | undefined, res: ServerResponse): FakeReply | undefined {
    const match = VERSION_PATH.exec(url);
    if (!match) return undefined;
    const wabaId = decodeURIComponent(match[1]);
    const query = readTemplateListingQuery(new URLSearchParams(match[2] ?? ''));
    this.requests.push({ wabaId, accessToken, ...query });
    const listed = this.list(wabaId, accessToken, query);
    const reply =
      typeof listed === 'string' || !this.delayMs || listed.delayMs
        ? listed
        : { ...listed, delayMs: this.delayMs };
    // Counted until its answer has gone (a listing of one channel must never overlap another):
    // not on a timer, which would also count the next listing when it comes within the margin.
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const ofAccount = (this.inFlightByAccount.get(wabaId) ?? 0) + 1;
    this.inFlightByAccount.set(wabaId, ofAccount);
    this.maxInFlightByAccount.set(
      wabaId,
      Math.max(this.maxInFlightByAccount.get(wabaId) ?? 0, ofAccount),
    );
    res.once('close', () => {
      this.inFlight -= 1;
      this.inFlightByAccount.set(wabaId, (this.inFlightByAccount.get(wabaId) ?? 1) - 1);
    });
    return reply;
  }

  private list(
    wabaId: string,
    accessToken: string | undefined,
    query: ReturnType<typeof readTemplateListingQuery>,
  ): FakeReply {
    if (!accessToken) {
      return graphRefusal(401, 190, 'Invalid OAuth access token - Cannot parse access token');
    }
    const scripted = this.queue.shift();
    if (scripted) return scripted;
    const account = this.accounts.get(wabaId);
    if (!account) {
      return graphRefusal(
        400,
        100,
        `Unsupported get request. Object with ID '${wabaId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        { type: 'GraphMethodException', error_subcode: 33 },
      );
    }
    if (account.token !== undefined && account.token !== accessToken) {
      return graphRefusal(401, 190, 'Error validating access token: Session has expired.', {
        error_subcode: 463,
      });
    }
    return templateListingPage(account.templates, query, {
      maxPageSize: this.maxPageSize,
      nextUrl: (next) => `${this.baseUrl()}/${wabaId}/message_templates?${next.toString()}`,
    });
  }
}

/**
 * Templates as Meta lists them, one of each shape the catalog must keep: a header IMAGE with NAMED
 * body variables and a URL button, a POSITIONAL one in two languages, a MARKETING one (NAMED, an
 * IMAGE header, a URL button), an AUTHENTICATION one with a copy-code button, and a PAUSED one.
 */
export function metaTemplates(): FakeTemplate[] {
  return [
    {
      id: '1014285516911401',
      name: 'order_shipped',
      language: 'en_US',
      status: 'APPROVED',
      category: 'UTILITY',
      parameter_format: 'NAMED',
      components: [
        {
          type: 'HEADER',
          format: 'IMAGE',
          example: { header_handle: ['4::aW1hZ2UvanBlZw==:ARb-example'] },
        },
        {
          type: 'BODY',
          text: 'Hi {{first_name}}, your order {{order_id}} is on its way.',
          example: {
            body_text_named_params: [
              { param_name: 'first_name', example: 'Ana' },
              { param_name: 'order_id', example: '#10234' },
            ],
          },
        },
        { type: 'FOOTER', text: 'Reply STOP to opt out' },
        {
          type: 'BUTTONS',
          buttons: [
            {
              type: 'URL',
              text: 'Track it',
              url: 'https://shop.example.com/track/{{1}}',
              example: ['https://shop.example.com/track/10234'],
            },
          ],
        },
      ],
    },
    {
      id: '1014285516911402',
      name: 'appointment_reminder',
      language: 'en_US',
      status: 'APPROVED',
      category: 'UTILITY',
      parameter_format: 'POSITIONAL',
      components: [
        {
          type: 'BODY',
          text: 'Hello {{1}}, this is a reminder of your appointment on {{2}}.',
          example: { body_text: [['Ana', 'Monday at 10:00']] },
        },
      ],
    },
    {
      id: '1014285516911403',
      name: 'appointment_reminder',
      language: 'es',
      status: 'APPROVED',
      category: 'UTILITY',
      parameter_format: 'POSITIONAL',
      components: [
        {
          type: 'BODY',
          text: 'Hola {{1}}, le recordamos su cita del {{2}}.',
          example: { body_text: [['Ana', 'lunes a las 10:00']] },
        },
      ],
    },
    // The OpenAPI examples' templates (spring_sale, appointment_reminder) exist as they use them.
    {
      id: '1014285516911404',
      status: 'APPROVED',
      ...SPRING_SALE,
      components: SPRING_SALE.components as Record<string, unknown>[],
    },
    {
      id: '1014285516911405',
      name: 'login_code',
      language: 'en_US',
      status: 'APPROVED',
      category: 'AUTHENTICATION',
      parameter_format: 'POSITIONAL',
      // As Meta lists an authentication template once created: its text filled in, and the
      // copy-code button (created as `OTP`) listed as a URL ending in otp{{1}} ("Copy code
      // authentication templates", developers.facebook.com/docs/whatsapp/business-management-api/authentication-templates/copy-code-button-authentication-templates).
      components: [
        {
          type: 'BODY',
          text: '*{{1}}* is your verification code. For your security, do not share this code.',
          add_security_recommendation: true,
          example: { body_text: [['123456']] },
        },
        { type: 'FOOTER', text: 'This code expires in 10 minutes.', code_expiration_minutes: 10 },
        {
          type: 'BUTTONS',
          buttons: [
            {
              type: 'URL',
              text: 'Copy code',
              url: 'https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp{{1}}',
              example: ['https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp123456'],
            },
          ],
        },
      ],
    },
    {
      id: '1014285516911406',
      name: 'winter_sale',
      language: 'en_US',
      status: 'PAUSED',
      category: 'MARKETING',
      parameter_format: 'POSITIONAL',
      components: [{ type: 'BODY', text: 'Winter sale: everything must go.' }],
    },
  ];
}
