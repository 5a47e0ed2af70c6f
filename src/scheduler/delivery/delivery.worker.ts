import { withLogContext } from '../../common/logging/log-context';
import { Metrics } from '../../metrics';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ChannelConversations,
  ChannelMessageSender,
  ChannelUnusable,
  conversationKey,
  ConversationState,
  fillTemplateStrings,
  isUnusable,
  OpenChannel,
  OutboundMessage,
  sentMessageType,
  templateValueProblems,
  WhatsappTemplateCatalog,
} from '../../channels';
import { BatchTemplates, readBatchTemplates, templateRefusal } from './batch-templates';
import { Clock } from '../../common/clock';
import { DatabaseAvailability } from '../../database/database-availability';
import {
  ClaimedDelivery,
  claimKey,
  ClaimRef,
  DeliveryOutbox,
  DeliveryOutcome,
} from './delivery-outbox';
import { CallStarts } from './call-starts';
import { DeliveryOutcomes } from './delivery-outcomes';
import { ComposeError, fillTemplate, MessageComposer } from './message-composer';
import { OutcomeRecorder } from './outcome-recorder';
import { SCHEDULER_CONFIG, SchedulerConfig } from '../scheduler.config';

/** The claimed batch's channels, opened once per batch (one query), by channel id. */
type BatchChannels = Map<string, OpenChannel | ChannelUnusable>;
/** The batch's recipients (opt-out, 24-hour window), read once per batch, by conversationKey. */
type BatchConversations = Map<string, ConversationState>;

const conversationOf = (delivery: ClaimedDelivery) => ({
  channelId: delivery.channelId,
  kind: delivery.channelKind,
  recipient: delivery.phone,
});

/**
 * A template's parameter (body, header, button): the prompt's placeholders filled, `{{message}}`
 * the composed text. Meta refuses parameters with new lines, tabs or more than four spaces in a row.
 */
export function templateParameter(
  parameter: string,
  values: { title: string; description: string | null; phone: string; message: string },
): string {
  return fillTemplate(parameter, values)
    .replace(/\{\{message\}\}/g, values.message)
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/ {4,}/g, '   ')
    .trim();
}

/** A message sent now without text of its own: only a template, or a rich message (no body). */
const isTemplateOnly = (delivery: ClaimedDelivery): boolean =>
  delivery.followUpId === null && delivery.messageText === null;

/** Whether what goes out is the template (see chooseMessage). */
export const sendsTemplate = (delivery: ClaimedDelivery, windowOpen: boolean): boolean =>
  delivery.template !== null &&
  (isTemplateOnly(delivery) || delivery.templateRequired || !windowOpen);

/**
 * What goes out: free-form text (or a send now's rich message) only inside the 24-hour window;
 * outside it (or when it was refused for the window, or only a template was given) the template
 * when there is one.
 */
export function chooseMessage(
  delivery: ClaimedDelivery,
  body: string,
  windowOpen: boolean,
): OutboundMessage {
  const template = delivery.template;
  if (!template || !sendsTemplate(delivery, windowOpen)) {
    return delivery.content ? { type: 'rich', content: delivery.content } : { type: 'text', body };
  }
  // A send now's strings go as given; a follow-up's are filled like its prompt.
  const filled =
    delivery.followUpId === null
      ? template
      : fillTemplateStrings(template, (text) =>
          templateParameter(text, {
            title: delivery.title,
            description: delivery.description,
            phone: delivery.phone,
            message: body,
          }),
        );
  return {
    type: 'template',
    name: filled.name,
    languageCode: filled.language,
    bodyParameters: filled.parameters ?? [],
    ...(filled.named_parameters && { namedParameters: filled.named_parameters }),
    ...(filled.header && { header: filled.header }),
    ...(filled.buttons && { buttons: filled.buttons }),
  };
}

/**
 * Why a template's filled values cannot go (the delivery fails without calling Meta, and is not
 * retried: the same values would be filled again): one is empty (a follow-up's {{description}}
 * or {{message}} filled with nothing) or over Meta's limit for its place (a `{{message}}` of
 * 4,096 characters in a header text of at most 60). Undefined when they fit, or for other messages.
 */
export function unfitTemplateValues(message: OutboundMessage): string | undefined {
  if (message.type !== 'template') return undefined;
  const problems = templateValueProblems({
    parameters: message.bodyParameters,
    named_parameters: message.namedParameters,
    header: message.header,
    buttons: message.buttons,
  });
  return problems.length === 0
    ? undefined
    : `The template's filled values do not fit Meta's limits: ${problems.map((problem) => problem.message).join('; ')}; not sent.`;
}

/**
 * A claim this recent goes to its call without the check before the call (see `deliver`); the
 * same race as between that check and the call: a DELETE in those few milliseconds may not stop it.
 */
const FRESH_CLAIM_MS = 250;

/**
 * Where a delivery this process holds stands: claimed (no call to Meta yet, so it may be given
 * back), calling (Meta may be sending it), or recording (the outcome is known, not yet written).
 */
type HeldState = 'claimed' | 'calling' | 'recording';
const refOf = (delivery: ClaimedDelivery): ClaimRef => ({
  id: delivery.id,
  attempt: delivery.attempts,
});

/**
 * Sends what the outbox holds: keeps up to DELIVERY_CONCURRENCY sends in flight, claiming rows only
 * when a sender is free, so every claimed row starts at once and its lease only has to cover one
 * send. Each outcome is durable before its sender moves on.
 */
@Injectable()
export class DeliveryWorker {
  private readonly logger = new Logger(DeliveryWorker.name);
  /** Claims of this process not yet recorded, by claimKey. */
  private readonly held = new Map<string, { claim: ClaimRef; state: HeldState }>();
  /** Every send in flight, whichever run of the loop started it. */
  private readonly inFlight = new Set<Promise<void>>();
  private recorder?: OutcomeRecorder;
  /** How old a claim may be and still go to its call without asking the database again. */
  private readonly freshClaimMs: number;
  private callStarts?: CallStarts;
  private readonly outcomes: DeliveryOutcomes;

  constructor(
    private readonly outbox: DeliveryOutbox,
    private readonly channels: ChannelMessageSender,
    private readonly conversations: ChannelConversations,
    private readonly composer: MessageComposer,
    private readonly clock: Clock,
    @Inject(SCHEDULER_CONFIG) private readonly config: SchedulerConfig,
    private readonly availability: DatabaseAvailability,
    private readonly metrics: Metrics,
    private readonly templates: WhatsappTemplateCatalog,
  ) {
    // Well inside the half heartbeat time-out that the claim checked this process's beat against.
    this.freshClaimMs = Math.min(FRESH_CLAIM_MS, config.delivery.heartbeatTimeoutMs / 4);
    this.outcomes = new DeliveryOutcomes(() => this.clock.now(), config.delivery.maxAttempts);
  }

  /** Delivers until nothing is due (or `shouldStop`); returns how many deliveries it took. */
  async deliverUntilIdle(owner: string, shouldStop: () => boolean): Promise<number> {
    const { concurrency, leaseMs, channelRateLimitPerSecond, heartbeatTimeoutMs } =
      this.config.delivery;
    const recorder = (this.recorder ??= new OutcomeRecorder(
      this.outbox,
      owner,
      () => this.clock.now(),
      this.availability,
    ));
    // Claim again once a quarter of the senders are free: fewer, larger claims under load.
    const refill = Math.max(1, Math.floor(concurrency / 4));
    let taken = 0;
    while (!shouldStop()) {
      const free = concurrency - this.inFlight.size;
      if (free < refill) {
        await Promise.race(this.inFlight);
        continue;
      }
      // Taken before the claim's statement, whose checks the sends rely on (see `deliver`).
      const claimedAt = performance.now();
      const claimed = await this.outbox.claim({
        owner,
        heartbeatTimeoutMs,
        now: this.clock.now(),
        limit: free,
        leaseMs,
        ratePerSecond: channelRateLimitPerSecond,
      });
      if (claimed.length === 0) {
        if (this.inFlight.size === 0) break;
        await Promise.race(this.inFlight);
        continue;
      }
      taken += claimed.length;
      claimed.forEach((delivery) =>
        this.held.set(claimKey(refOf(delivery)), { claim: refOf(delivery), state: 'claimed' }),
      );
      // The reads at once, on their own connections: the batch's sends wait for them.
      const [channels, conversations, templates] = await Promise.all([
        this.openChannels(claimed).catch((error: unknown) => {
          this.logger.warn({ err: error }, 'could not read channel credentials');
          return undefined;
        }),
        this.conversations.states(claimed.map(conversationOf)).catch((error: unknown) => {
          this.logger.warn({ err: error }, 'could not read opt-outs and 24-hour windows');
          return undefined;
        }),
        // Unread, templates go as they are: Meta still refuses one it would not send.
        readBatchTemplates(this.templates, claimed).catch((error: unknown) => {
          this.logger.warn({ err: error }, 'could not read the template catalog');
          return undefined;
        }),
      ]);
      for (const delivery of claimed) {
        const sending: Promise<void> = this.send(
          owner,
          delivery,
          claimedAt,
          channels,
          conversations,
          templates,
          recorder,
          shouldStop,
        ).finally(() => this.inFlight.delete(sending));
        this.inFlight.add(sending);
      }
    }
    await this.settled();
    return taken;
  }

  /** The batch's channels, one query per kind (the claim keeps each delivery's organization). */
  private openChannels(claimed: ClaimedDelivery[]): Promise<BatchChannels> {
    return this.channels.openMany(
      claimed.map((delivery) => ({
        organizationId: delivery.organizationId,
        channelId: delivery.channelId,
        kind: delivery.channelKind,
      })),
    );
  }

  /** Resolves once no send is in flight (each ends within the Graph time-out, then is recorded). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** The claims this process holds (their leases are extended by its heartbeat). */
  heldClaims(): ClaimRef[] {
    return [...this.held.values()].map((entry) => entry.claim);
  }

  /**
   * The heartbeat did not extend these deliveries: either their outcome was written meanwhile, or
   * another process took them over (this one could not beat for too long). Those not being recorded
   * are no longer this process's: a call not yet started never will be.
   */
  forgetTakenOver(claims: ClaimRef[]): void {
    const lost = claims.filter((claim) => {
      const state = this.held.get(claimKey(claim))?.state;
      return state === 'claimed' || state === 'calling';
    });
    for (const claim of lost) this.held.delete(claimKey(claim));
    if (lost.length > 0) {
      this.logger.warn(
        { deliveryIds: lost.map((claim) => claim.id) },
        'deliveries were taken over by another process',
      );
    }
  }

  /**
   * Shutdown, at the end of the grace period: outcomes not yet written are given up, and every
   * claim whose call never started is given back, uncounted. A delivery whose call is still in flight
   * is never given back: Meta may have sent it. It stays claimed and is taken over as after a crash
   * (its attempt logged `unknown`).
   */
  async releaseUnstarted(owner: string): Promise<void> {
    this.recorder?.close();
    const unstarted = [...this.held.values()]
      .filter((entry) => entry.state === 'claimed')
      .map((entry) => entry.claim);
    unstarted.forEach((claim) => this.held.delete(claimKey(claim)));
    await this.outbox.release(owner, unstarted, this.clock.now());
    if (this.held.size > 0) {
      this.logger.warn(
        { deliveryIds: this.heldClaims().map((claim) => claim.id) },
        'stopping with deliveries whose outcome is not recorded; another process takes them over',
      );
    }
  }

  private send(
    owner: string,
    delivery: ClaimedDelivery,
    claimedAt: number,
    channels: BatchChannels | undefined,
    conversations: BatchConversations | undefined,
    templates: BatchTemplates | undefined,
    recorder: OutcomeRecorder,
    shouldStop: () => boolean,
  ): Promise<void> {
    // Its own log context, never that of the request that happened to wake the scheduler.
    const context = {
      organization_id: delivery.organizationId,
      follow_up_id: delivery.followUpId ?? undefined,
      delivery_id: delivery.id,
      channel_id: delivery.channelId,
    };
    return withLogContext(context, async () => {
      try {
        const outcome = await this.deliver(
          owner,
          delivery,
          claimedAt,
          channels,
          conversations,
          templates,
          shouldStop,
        );
        if (!outcome) return; // stopping or taken over: not sent
        this.setState(delivery, 'recording');
        await recorder.record(outcome);
        this.held.delete(claimKey(refOf(delivery)));
        this.account(delivery, outcome);
      } catch (error) {
        // Only when stopping: the outcome could not be written within the grace period. The row is
        // taken over once this process stops beating, as after a crash.
        this.logger.error({ err: error }, 'could not record a delivery outcome');
      }
    });
  }

  /** Metrics for a recorded outcome, and one warning for a delivery that failed for good. */
  private account(delivery: ClaimedDelivery, outcome: DeliveryOutcome): void {
    const kind = delivery.channelKind;
    this.metrics.deliveries.inc({
      outcome: outcome.status === 'pending' ? 'retry' : outcome.status,
      channel_kind: kind,
    });
    if (outcome.status === 'sent') {
      this.metrics.deliveryLag.observe(
        { channel_kind: kind },
        Math.max(0, outcome.at - delivery.occurrenceAt) / 1000,
      );
    }
    if (outcome.status === 'failed') {
      this.logger.warn(
        { code: outcome.errorCode, attempts: delivery.attempts, reason: outcome.errorMessage },
        'delivery failed for good',
      );
    }
  }

  /**
   * One claimed delivery, from its checks to the classified answer of the channel: undefined when
   * it must not be sent by this process (stopping, taken over, deleted, paused).
   */
  private async deliver(
    owner: string,
    delivery: ClaimedDelivery,
    claimedAt: number,
    channels: BatchChannels | undefined,
    conversations: BatchConversations | undefined,
    templates: BatchTemplates | undefined,
    shouldStop: () => boolean,
  ): Promise<DeliveryOutcome | undefined> {
    const ready = this.precheck(delivery, channels, conversations);
    if ('status' in ready) return ready;
    const { channel, conversation } = ready;
    const refused = this.templateRefused(delivery, conversation, templates);
    if (refused) return refused;
    const body = await this.compose(delivery, channel);
    if (typeof body !== 'string') return body;
    const message = chooseMessage(delivery, body, conversation.windowOpen);
    const unfit = unfitTemplateValues(message);
    if (unfit) return this.outcomes.failed(delivery, 'template_parameter_invalid', unfit);
    const call = await this.mayCall(owner, delivery, claimedAt, shouldStop);
    if (call !== 'call') return call === 'stop' ? undefined : call;
    this.setState(delivery, 'calling');
    const calledAt = this.clock.now();
    const sent = await channel.send(delivery.phone, message);
    const templateFallback = message.type !== 'template' && delivery.template !== null;
    return this.outcomes.ofSend(
      delivery,
      sentMessageType(message),
      sent,
      templateFallback,
      calledAt,
    );
  }

  /**
   * When the template is what would go (before anything is composed), what the channel's catalog
   * says against it: a MARKETING template to someone who told Meta to stop marketing messages is
   * skipped; one the catalog says is not APPROVED, or gone, fails without calling Meta. No catalog
   * (or an unread one): the template goes, and Meta refuses what it must.
   */
  private templateRefused(
    delivery: ClaimedDelivery,
    conversation: ConversationState,
    templates: BatchTemplates | undefined,
  ): DeliveryOutcome | undefined {
    if (!delivery.template || !sendsTemplate(delivery, conversation.windowOpen)) return undefined;
    const lookup = templates?.get(delivery.id);
    if (
      conversation.marketingOptedOut &&
      lookup?.catalog &&
      lookup.template?.category === 'MARKETING'
    ) {
      return this.outcomes.skipped(
        delivery,
        'opted_out_marketing',
        `${delivery.phone} stopped marketing messages from this business (Meta), and ${delivery.template.name} is a MARKETING template.`,
      );
    }
    const refusal = templateRefusal(lookup, delivery.template);
    return refusal && this.outcomes.failed(delivery, refusal.code, refusal.message);
  }

  /** The batch's reads, the channel and the recipient: what must hold before writing anything. */
  private precheck(
    delivery: ClaimedDelivery,
    channels: BatchChannels | undefined,
    conversations: BatchConversations | undefined,
  ): DeliveryOutcome | { channel: OpenChannel; conversation: ConversationState } {
    const conversation = conversations?.get(conversationKey(conversationOf(delivery)));
    if (!channels || !conversation) {
      return this.outcomes.retryOrFail(
        delivery,
        'credentials_unavailable',
        "The channel's credentials, or its recipients' opt-outs and 24-hour windows, could not be read from the database.",
      );
    }
    const channel = channels.get(delivery.channelId);
    if (channel && isUnusable(channel) && channel.reason === 'token_unreadable') {
      return this.outcomes.failed(
        delivery,
        'channel_credentials_unreadable',
        "The channel's access token cannot be decrypted with the configured ENCRYPTION_KEY(s).",
      );
    }
    // Asked again per delivery: an earlier send of this batch may have had its token rejected.
    if (!channel || isUnusable(channel) || channel.unusable()) {
      return this.outcomes.failed(
        delivery,
        'channel_inactive',
        `The ${this.channels.label(delivery.channelKind)} channel is inactive or removed; update its access_token.`,
      );
    }
    if (conversation.optedOut) {
      return this.outcomes.skipped(
        delivery,
        'opted_out',
        `${delivery.phone} opted out of this channel.`,
      );
    }
    return { channel, conversation };
  }

  /**
   * The text: a message sent now carries its own (or only a template, ''); a follow-up's is
   * written by the composer, within the channel's limit.
   */
  private async compose(
    delivery: ClaimedDelivery,
    channel: OpenChannel,
  ): Promise<string | DeliveryOutcome> {
    let body: string;
    try {
      body =
        delivery.followUpId === null
          ? (delivery.messageText ?? '')
          : await this.composer.compose({
              followUpId: delivery.followUpId,
              prompt: delivery.prompt,
              title: delivery.title,
              description: delivery.description,
              phone: delivery.phone,
              occurrenceAt: delivery.occurrenceAt,
              textLength: channel.limits.textLength,
            });
    } catch (error) {
      const failure =
        error instanceof ComposeError
          ? error
          : new ComposeError('compose_failed', 'The message could not be written.');
      return this.outcomes.retryOrFail(delivery, failure.code, failure.message);
    }
    if (body.length === 0 && !isTemplateOnly(delivery)) {
      return this.outcomes.failed(
        delivery,
        'empty_message',
        'The prompt produced an empty message.',
      );
    }
    return body;
  }

  /**
   * Whether this process may call the channel now: from here on Meta may send the message, so the
   * row is never given back, only recorded. 'stop' when it must not (stopping, taken over,
   * deleted, paused); an outcome when the database could not say.
   */
  private async mayCall(
    owner: string,
    delivery: ClaimedDelivery,
    claimedAt: number,
    shouldStop: () => boolean,
  ): Promise<'call' | 'stop' | DeliveryOutcome> {
    const stillHeld = () => !shouldStop() && this.held.has(claimKey(refOf(delivery)));
    if (!stillHeld()) return 'stop';
    // A claim made moments ago was checked by the claim itself: this process's heartbeat fresh,
    // the follow-up neither deleted nor paused, a new lease. Nobody can take a row over within a
    // fraction of a heartbeat time-out, so the database is asked again only when the send waited
    // (a model writing the message, a stall): one transaction less per batch on the hot path.
    const fresh = performance.now() - claimedAt < this.freshClaimMs;
    const start = fresh ? 'started' : await this.startCall(owner, delivery);
    if (start === 'unreachable') {
      return this.outcomes.retryOrFail(
        delivery,
        'database_unavailable',
        'The database could not be reached to start the call.',
      );
    }
    // Given back at shutdown meanwhile, or not to be called (taken over, deleted, paused).
    return start === 'started' && stillHeld() ? 'call' : 'stop';
  }

  /**
   * The in-memory check above is not enough: after a stall (or a long compose) the row may have
   * been taken over, or its follow-up deleted or paused, without this process knowing. A
   * conditional UPDATE decides on the database (one for the sends that get here together, see
   * CallStarts); a claim refused is given back if it is still this process's (pending and
   * uncounted, or cancelled for a deleted follow-up).
   */
  private async startCall(
    owner: string,
    delivery: ClaimedDelivery,
  ): Promise<'started' | 'refused' | 'unreachable'> {
    const { leaseMs, heartbeatTimeoutMs } = this.config.delivery;
    const starts = (this.callStarts ??= new CallStarts(this.outbox, owner, () => ({
      now: this.clock.now(),
      leaseMs,
      heartbeatTimeoutMs,
    })));
    try {
      if (await starts.start(refOf(delivery))) return 'started';
    } catch (error) {
      if (!this.availability.reportFailure(error)) {
        this.logger.error({ err: error, deliveryId: delivery.id }, 'could not start a call');
      }
      return 'unreachable';
    }
    const now = this.clock.now();
    this.held.delete(claimKey(refOf(delivery)));
    this.logger.debug(
      { deliveryId: delivery.id },
      'not calling: the delivery was taken over, or its follow-up deleted or paused, since its claim',
    );
    await this.outbox.release(owner, [refOf(delivery)], now).catch((error: unknown) => {
      // Its lease runs out and it is taken over like a stalled send.
      if (!this.availability.reportFailure(error)) {
        this.logger.error(
          { err: error, deliveryId: delivery.id },
          'could not give back a delivery',
        );
      }
    });
    return 'refused';
  }

  /** Moves a claim this process still holds on (one that was taken over stays forgotten). */
  private setState(delivery: ClaimedDelivery, state: HeldState): void {
    const entry = this.held.get(claimKey(refOf(delivery)));
    if (entry) entry.state = state;
  }
}
