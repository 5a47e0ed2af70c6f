import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { SecretBox } from '../common/crypto/secret-box';
import { ChannelStore } from './channel-store';
import { ChannelKind, ChannelLimits, OutboundMessage, SendOutcome } from './channel-transport';
import { accessTokenAad } from './channels.service';
import { ChannelIdentities } from './conversations/channel-identities';
import type { StoredChannel } from './kinds/channel-kind';
import { ChannelKinds } from './kinds/channel-kinds';

/** Why a channel cannot send; each caller turns it into its own error (422, a tool error, ...). */
export type ChannelUnusable =
  /** No such channel in this organization (another organization's id included). */
  | { reason: 'not_found' }
  /** The channel exists, but is of another kind than the caller needs (`label`: its kind's). */
  | { reason: 'wrong_kind'; kind: ChannelKind; label: string }
  | { reason: 'other_agent' }
  /** Meta rejected its token; a new access_token reactivates it. */
  | { reason: 'inactive' }
  /** No configured ENCRYPTION_KEY decrypts its token (a key was rotated away). */
  | { reason: 'token_unreadable' };

/**
 * Why a channel cannot send, in words a client or a model can act on; the one wording for every
 * caller. `label` names the kind the caller needed; `wrongKind` finishes the sentence about a
 * channel of another kind (what the caller needed it for).
 */
export function describeUnusable(
  unusable: ChannelUnusable,
  {
    channelId,
    agentId,
    label,
    wrongKind,
  }: { channelId: string; agentId: string; label: string; wrongKind: string },
): string {
  switch (unusable.reason) {
    case 'not_found':
      return `No ${label} channel ${channelId} exists in this organization.`;
    case 'wrong_kind':
      return `Channel ${channelId} is a ${unusable.label} channel; ${wrongKind}`;
    case 'other_agent':
      return `Channel ${channelId} belongs to another agent, not ${agentId}.`;
    case 'inactive':
      return `Channel ${channelId} is inactive; update its access_token to reactivate it.`;
    case 'token_unreadable':
      return `The access token of channel ${channelId} cannot be decrypted; update its access_token.`;
  }
}

/** What `check` can answer: everything but the token, which it does not read. */
export type ChannelRuleFailure = Exclude<ChannelUnusable, { reason: 'token_unreadable' }>;

export const isUnusable = (value: OpenChannel | ChannelUnusable): value is ChannelUnusable =>
  'reason' in value;

/** Which channel, in whose name. */
export interface ChannelRef {
  organizationId: string;
  channelId: string;
}

/** What the caller needs of the channel: its kind, and the agent it must belong to, if any. */
export interface ChannelRequirement {
  kind: ChannelKind;
  agentId?: string;
}

/** A usable channel, its token decrypted inside: callers send through it, never see the token. */
export interface OpenChannel {
  readonly id: string;
  /** Its kind's limits (the longest text), for callers that write the message. */
  readonly limits: ChannelLimits;
  /** Undefined while usable; `inactive` once Meta rejected its token in this process. */
  unusable(): ChannelUnusable | undefined;
  /** Never throws; a rejected token deactivates the channel before the outcome is returned. */
  send(to: string, message: OutboundMessage): Promise<SendOutcome>;
}

/**
 * A usable channel and its decrypted token, for a call of its kind's own beside sending (a media
 * download): only code inside channels/ gets one. A token the provider refuses is reported with
 * `tokenRejected`, which deactivates the channel exactly as a refused send does.
 */
export interface ChannelCredentials {
  readonly channel: StoredChannel;
  readonly accessToken: string;
  tokenRejected(rejection: { code: string; message: string }): Promise<void>;
}

/** A channel was deactivated (Meta rejected its token), inside the transaction that did it. */
export interface ChannelDeactivation {
  kind: ChannelKind;
  channelId: string;
  organizationId: string;
  agentId: string;
  /** Meta's message. */
  reason: string;
  at: number;
  /** The channel as it is now (inactive, with the reason). */
  channel: StoredChannel;
}
export type ChannelDeactivationListener = (
  db: EntityManager,
  deactivation: ChannelDeactivation,
) => Promise<void>;

/**
 * The one way to send through a channel: checks that it is usable (the rules live here only) and
 * sends through its kind's transport; a token Meta rejects deactivates the channel.
 */
@Injectable()
export class ChannelMessageSender {
  private readonly logger = new Logger(ChannelMessageSender.name);
  private readonly deactivationListeners: ChannelDeactivationListener[] = [];

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: ChannelStore,
    private readonly kinds: ChannelKinds,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly identities: ChannelIdentities,
  ) {}

  /** A kind's name in sentences ("The WhatsApp channel is inactive"); its id if not running. */
  label(kind: ChannelKind): string {
    return this.kinds.find(kind)?.label ?? kind;
  }

  /**
   * Runs in the transaction that deactivates a channel: a module that keeps work for channels
   * (the scheduler's pending deliveries) settles it atomically with the deactivation.
   */
  onDeactivated(listener: ChannelDeactivationListener): void {
    this.deactivationListeners.push(listener);
  }

  /** The rules without reading the token: for a caller that stores the channel to send later. */
  async check(
    ref: ChannelRef,
    requirement: ChannelRequirement,
  ): Promise<ChannelRuleFailure | undefined> {
    const channel = await this.findOne(ref);
    return channel ? this.unusable(channel, requirement) : { reason: 'not_found' };
  }

  /** One channel, checked, its token decrypted, ready to send now. */
  async open(
    ref: ChannelRef,
    requirement: ChannelRequirement,
  ): Promise<OpenChannel | ChannelUnusable> {
    const channel = await this.findOne(ref);
    return this.opened(channel, requirement);
  }

  /**
   * Many channels in one query per kind (the delivery worker opens a claimed batch's channels at
   * once). Keyed by channel id; a channel of another organization or kind than its ref is not
   * found.
   */
  async openMany(
    refs: readonly (ChannelRef & { kind: ChannelKind })[],
  ): Promise<Map<string, OpenChannel | ChannelUnusable>> {
    const opened = new Map<string, OpenChannel | ChannelUnusable>();
    const found = await this.store.findMany(
      new Set(refs.map((ref) => ref.kind)),
      refs.map((ref) => ref.channelId),
    );
    const byId = new Map(found.map((channel) => [channel.id, channel]));
    for (const ref of refs) {
      // Once per channel: the batch's deliveries share it (a rejected token stops them all).
      if (opened.has(ref.channelId)) continue;
      const channel = byId.get(ref.channelId);
      const matches = channel?.organizationId === ref.organizationId && channel.kind === ref.kind;
      opened.set(ref.channelId, this.opened(matches ? channel : undefined, { kind: ref.kind }));
    }
    return opened;
  }

  /** One channel, checked like `open`, with its token for a call that is not a send. */
  async credentials(
    ref: ChannelRef,
    requirement: ChannelRequirement,
  ): Promise<ChannelCredentials | ChannelUnusable> {
    const unlocked = this.unlocked(await this.findOne(ref), requirement);
    if ('reason' in unlocked) return unlocked;
    const { stored, accessToken } = unlocked;
    return {
      channel: stored,
      accessToken,
      tokenRejected: (rejection) => this.deactivate(stored, rejection),
    };
  }

  /** The channel checked against the rules, its token decrypted: what sending and media share. */
  private unlocked(
    stored: StoredChannel | undefined,
    requirement: ChannelRequirement,
  ): { stored: StoredChannel; accessToken: string } | ChannelUnusable {
    if (!stored) return { reason: 'not_found' };
    const unusable = this.unusable(stored, requirement);
    if (unusable) return unusable;
    try {
      const accessToken = this.secrets.decrypt(
        stored.accessTokenEncrypted,
        accessTokenAad(this.kinds.get(stored.kind).table, stored.id),
      );
      return { stored, accessToken };
    } catch {
      return { reason: 'token_unreadable' };
    }
  }

  /** The usability rules, in the order callers report them. */
  private unusable(
    channel: StoredChannel,
    requirement: ChannelRequirement,
  ): ChannelRuleFailure | undefined {
    if (channel.kind !== requirement.kind) {
      return { reason: 'wrong_kind', kind: channel.kind, label: this.label(channel.kind) };
    }
    if (requirement.agentId !== undefined && channel.agentId !== requirement.agentId) {
      return { reason: 'other_agent' };
    }
    if (channel.status !== 'active') return { reason: 'inactive' };
    return undefined;
  }

  private opened(
    stored: StoredChannel | undefined,
    requirement: ChannelRequirement,
  ): OpenChannel | ChannelUnusable {
    const unlocked = this.unlocked(stored, requirement);
    if ('reason' in unlocked) return unlocked;
    const { stored: channel, accessToken } = unlocked;
    const transport = this.kinds.transport(channel.kind);
    let active = true;
    return {
      id: channel.id,
      limits: transport.limits,
      unusable: () => (active ? undefined : { reason: 'inactive' }),
      send: async (to, message) => {
        const outcome = await transport.send(
          { senderId: channel.senderId, accessToken },
          to,
          message,
        );
        if (outcome.kind === 'token_rejected' && active) {
          // This process stops using it at once, whatever the database says.
          active = false;
          await this.deactivate(channel, outcome);
        }
        if (outcome.kind === 'sent' && outcome.recipientForms) {
          await this.learnForms(channel, to, outcome.recipientForms);
        }
        return outcome;
      },
    };
  }

  /**
   * The provider answered with another form of the recipient (Meta's `wa_id` for a number dialled
   * in another form): the same person from now on, for opt-outs and the window. A failure is
   * logged, not thrown: the message went out, and the next send's answer teaches it again.
   */
  private async learnForms(channel: StoredChannel, to: string, forms: string[]): Promise<void> {
    try {
      await this.identities.link(this.dataSource.manager, {
        organizationId: channel.organizationId,
        channelId: channel.id,
        kind: channel.kind,
        forms: [to, ...forms],
        source: 'send_answer',
        at: this.clock.now(),
      });
    } catch (error) {
      this.logger.warn(
        { err: error, channelId: channel.id },
        "The recipient's other form in the provider's answer could not be recorded",
      );
    }
  }

  /** The organization's channel with this id, whatever its kind: the rules tell a wrong kind. */
  private findOne(ref: ChannelRef): Promise<StoredChannel | undefined> {
    return this.store.findAnyKind(ref.organizationId, ref.channelId);
  }

  /**
   * Only if the rejected token is still the channel's: a PUT may have replaced it meanwhile (and
   * reactivated the channel). Listeners run in the same transaction, only when it was deactivated.
   * A failure is logged, not thrown: the send's outcome still stands, and the next rejected send
   * tries again.
   */
  private async deactivate(
    channel: StoredChannel,
    rejection: { code: string; message: string },
  ): Promise<void> {
    const at = this.clock.now();
    try {
      const deactivatedNow = await this.dataSource.transaction(async (db) => {
        const deactivated = await this.store.deactivate(db, channel, rejection, at);
        if (!deactivated) return false;
        const deactivation = {
          kind: channel.kind,
          channelId: channel.id,
          organizationId: channel.organizationId,
          agentId: channel.agentId,
          reason: rejection.message,
          at,
          channel: deactivated,
        };
        for (const listener of this.deactivationListeners) await listener(db, deactivation);
        return true;
      });
      // Once, by the process that deactivated it: the operator must give it a new token.
      if (deactivatedNow) {
        this.logger.warn(
          {
            organization_id: channel.organizationId,
            channel_id: channel.id,
            code: rejection.code,
            reason: rejection.message,
          },
          'Meta refused the channel token; channel is now inactive',
        );
      }
    } catch (error) {
      this.logger.error(
        { err: error, channelId: channel.id },
        'Meta refused the channel token, and the channel could not be deactivated',
      );
    }
  }
}
