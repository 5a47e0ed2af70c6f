import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, IsNull, Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { SecretBox } from '../common/crypto/secret-box';
import { isUuid } from '../common/ids';
import { toIso } from '../common/time';
import { returnedRows } from '../database/sql';
import {
  ChannelKind,
  ChannelLimits,
  ChannelTransport,
  OutboundMessage,
  SendOutcome,
} from './channel-transport';
import { accessTokenAad } from './channels.service';
import { MessangerChannelEntity } from './kinds/messanger/messanger-channel.entity';
import { WhatsappChannelEntity } from './kinds/whatsapp/whatsapp-channel.entity';

/** The transport of each kind that can send; a kind without one answers `cannot_send`. */
export type ChannelTransports = Partial<Record<ChannelKind, ChannelTransport>>;
export const CHANNEL_TRANSPORTS = Symbol('CHANNEL_TRANSPORTS');

/** A kind's name in sentences ("The WhatsApp channel is inactive"). */
export const CHANNEL_KIND_NAMES: Record<ChannelKind, string> = {
  whatsapp: 'WhatsApp',
  messanger: 'Messanger',
};

/** Why a channel cannot send; each caller turns it into its own error (422, a tool error, ...). */
export type ChannelUnusable =
  /** No such channel in this organization (another organization's id included). */
  | { reason: 'not_found' }
  /** The channel exists, but is of another kind than the caller needs. */
  | { reason: 'wrong_kind'; kind: ChannelKind }
  /** Channels of this kind cannot send yet (no transport). */
  | { reason: 'cannot_send'; kind: ChannelKind }
  | { reason: 'other_agent' }
  /** Meta rejected its token; a new access_token reactivates it. */
  | { reason: 'inactive' }
  /** No configured ENCRYPTION_KEY decrypts its token (a key was rotated away). */
  | { reason: 'token_unreadable' };

/**
 * Why a WhatsApp channel cannot send, in words a client or a model can act on; the one wording for
 * every caller. `wrongKind` finishes the sentence about a channel of another kind (what the caller
 * needed it for).
 */
export function describeUnusable(
  unusable: ChannelUnusable,
  { channelId, agentId, wrongKind }: { channelId: string; agentId: string; wrongKind: string },
): string {
  switch (unusable.reason) {
    case 'not_found':
      return `No WhatsApp channel ${channelId} exists in this organization.`;
    case 'wrong_kind':
      return `Channel ${channelId} is a Messanger channel; ${wrongKind}`;
    case 'cannot_send':
      return `Channel ${channelId} cannot send messages yet.`;
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

/** A channel was deactivated (Meta rejected its token), inside the transaction that did it. */
export interface ChannelDeactivation {
  kind: ChannelKind;
  channelId: string;
  organizationId: string;
  agentId: string;
  /** Meta's message. */
  reason: string;
  at: number;
}
export type ChannelDeactivationListener = (
  db: EntityManager,
  deactivation: ChannelDeactivation,
) => Promise<void>;

/** A channel row as the usability rules see it, whatever its kind. */
interface StoredChannel {
  kind: ChannelKind;
  id: string;
  organizationId: string;
  agentId: string;
  active: boolean;
  senderId: string;
  /** The stored ciphertext: deactivation only applies while it is still the channel's token. */
  sealedToken: string;
}

const fromWhatsapp = (channel: WhatsappChannelEntity): StoredChannel => ({
  kind: 'whatsapp',
  id: channel.id,
  organizationId: channel.organizationId,
  agentId: channel.agentId,
  active: channel.status === 'active',
  senderId: channel.numberId,
  sealedToken: channel.accessTokenEncrypted,
});

const fromMessanger = (channel: MessangerChannelEntity): StoredChannel => ({
  kind: 'messanger',
  id: channel.id,
  organizationId: channel.organizationId,
  agentId: channel.agentId,
  active: channel.status === 'active',
  senderId: channel.userId,
  sealedToken: channel.accessTokenEncrypted,
});

/**
 * The one way to send through a channel: checks that it is usable (the rules live here only) and
 * sends through its kind's transport; a token Meta rejects deactivates the channel.
 */
@Injectable()
export class ChannelMessageSender {
  private readonly logger = new Logger(ChannelMessageSender.name);
  private readonly deactivationListeners: ChannelDeactivationListener[] = [];

  constructor(
    @InjectRepository(WhatsappChannelEntity)
    private readonly whatsappChannels: Repository<WhatsappChannelEntity>,
    @InjectRepository(MessangerChannelEntity)
    private readonly messangerChannels: Repository<MessangerChannelEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CHANNEL_TRANSPORTS) private readonly transports: ChannelTransports,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
  ) {}

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
    const ids = [...new Set(refs.map((ref) => ref.channelId))].filter(isUuid);
    const byId = new Map(
      (await this.findMany(ids, new Set(refs.map((ref) => ref.kind)))).map((channel) => [
        channel.id,
        channel,
      ]),
    );
    for (const ref of refs) {
      // Once per channel: the batch's deliveries share it (a rejected token stops them all).
      if (opened.has(ref.channelId)) continue;
      const channel = byId.get(ref.channelId);
      const found = channel?.organizationId === ref.organizationId && channel.kind === ref.kind;
      opened.set(ref.channelId, this.opened(found ? channel : undefined, { kind: ref.kind }));
    }
    return opened;
  }

  /** Live channels of these kinds with these ids, one query per kind. */
  private async findMany(ids: string[], kinds: ReadonlySet<ChannelKind>): Promise<StoredChannel[]> {
    if (ids.length === 0) return [];
    const where = { id: In(ids), deletedAt: IsNull() };
    const stored: StoredChannel[] = [];
    if (kinds.has('whatsapp')) {
      stored.push(...(await this.whatsappChannels.findBy(where)).map(fromWhatsapp));
    }
    if (kinds.has('messanger')) {
      stored.push(...(await this.messangerChannels.findBy(where)).map(fromMessanger));
    }
    return stored;
  }

  /** The usability rules, in the order callers report them. */
  private unusable(
    channel: StoredChannel,
    requirement: ChannelRequirement,
  ): ChannelRuleFailure | undefined {
    if (channel.kind !== requirement.kind) return { reason: 'wrong_kind', kind: channel.kind };
    if (!this.transports[channel.kind]) return { reason: 'cannot_send', kind: channel.kind };
    if (requirement.agentId !== undefined && channel.agentId !== requirement.agentId) {
      return { reason: 'other_agent' };
    }
    if (!channel.active) return { reason: 'inactive' };
    return undefined;
  }

  private opened(
    stored: StoredChannel | undefined,
    requirement: ChannelRequirement,
  ): OpenChannel | ChannelUnusable {
    if (!stored) return { reason: 'not_found' };
    const unusable = this.unusable(stored, requirement);
    if (unusable) return unusable;
    const transport = this.transports[stored.kind] as ChannelTransport;
    let accessToken: string;
    try {
      accessToken = this.secrets.decrypt(
        stored.sealedToken,
        accessTokenAad(`${stored.kind}_channels`, stored.id),
      );
    } catch {
      return { reason: 'token_unreadable' };
    }
    let active = true;
    return {
      id: stored.id,
      limits: transport.limits,
      unusable: () => (active ? undefined : { reason: 'inactive' }),
      send: async (to, message) => {
        const outcome = await transport.send(
          { senderId: stored.senderId, accessToken },
          to,
          message,
        );
        if (outcome.kind === 'token_rejected' && active) {
          // This process stops using it at once, whatever the database says.
          active = false;
          await this.deactivate(stored, outcome);
        }
        return outcome;
      },
    };
  }

  /** The organization's channel with this id, whatever its kind: the rules tell a wrong kind. */
  private async findOne(ref: ChannelRef): Promise<StoredChannel | undefined> {
    if (!isUuid(ref.channelId)) return undefined;
    const where = { id: ref.channelId, organizationId: ref.organizationId, deletedAt: IsNull() };
    const whatsapp = await this.whatsappChannels.findOneBy(where);
    if (whatsapp) return fromWhatsapp(whatsapp);
    const messanger = await this.messangerChannels.findOneBy(where);
    return messanger ? fromMessanger(messanger) : undefined;
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
        const deactivated = returnedRows<{ id: string }>(
          await db.query(
            `UPDATE ${channel.kind}_channels
                SET status = 'inactive', status_reason_code = $4, status_reason_message = $5,
                    updated_at = $3
              WHERE id = $1 AND status = 'active' AND access_token_encrypted = $2
                AND deleted_at IS NULL
          RETURNING id`,
            [channel.id, channel.sealedToken, toIso(at), rejection.code, rejection.message],
          ),
        );
        if (deactivated.length === 0) return false;
        const deactivation = {
          kind: channel.kind,
          channelId: channel.id,
          organizationId: channel.organizationId,
          agentId: channel.agentId,
          reason: rejection.message,
          at,
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
