import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { SecretBox } from '../../common/crypto/secret-box';
import type { ChannelKind } from '../channel-transport';
import { CHANNELS_CONFIG, ChannelsConfig } from '../channels.config';
import { appSecretAad } from '../channels.service';
import { ChannelStore } from '../channel-store';
import type { StoredChannel } from '../kinds/channel-kind';
import { ChannelKinds } from '../kinds/channel-kinds';

const UNREADABLE_SECRET_WARNING_MS = 10 * 60 * 1000;

/** A channel as its webhooks see it (public routes: looked up by id alone). */
export type WebhookChannel = StoredChannel;

/** Where an event goes: a channel, or why none takes it. */
export type Route = WebhookChannel | 'no_channel' | 'other_secret';

/** The route of each account a notification's events are for, each looked up once. */
export type Routes = (account: string | undefined) => Promise<Route>;

/**
 * The channels Meta's webhooks reach, outside any organization's request: the one a webhook URL
 * names, the secrets that may sign for it, and the channel each event of a notification is for.
 */
@Injectable()
export class WebhookChannels {
  // The inbox's name, as before these lookups had a class of their own: the log reads the same.
  private readonly logger = new Logger('WebhookInbox');
  /**
   * When each channel's undecryptable secret was last logged: anyone can POST to a webhook URL,
   * and a warning per request would let them fill the log.
   */
  private readonly warnedAt = new Map<string, number>();

  constructor(
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
    private readonly secrets: SecretBox,
    private readonly kinds: ChannelKinds,
    private readonly store: ChannelStore,
    private readonly clock: Clock,
  ) {}

  find(kind: ChannelKind, id: string, db?: EntityManager): Promise<WebhookChannel | undefined> {
    return this.store.findForWebhook(kind, id, db);
  }

  /**
   * The app secrets that may sign a notification for this channel: its own alone when it has one
   * (issue 17: every META_APP_SECRET verified every organization's channels), else the global
   * list. Unknown channels get the global list, so that a caller learns nothing from the 401.
   * A secret no configured ENCRYPTION_KEY opens verifies nothing.
   */
  signingSecrets(channel: WebhookChannel | undefined): readonly string[] {
    if (!channel?.appSecretEncrypted) return this.config.metaAppSecrets;
    try {
      return [
        this.secrets.decrypt(
          channel.appSecretEncrypted,
          appSecretAad(this.kinds.get(channel.kind).table, channel.id),
        ),
      ];
    } catch (error) {
      const now = this.clock.now();
      if (now - (this.warnedAt.get(channel.id) ?? -Infinity) >= UNREADABLE_SECRET_WARNING_MS) {
        this.warnedAt.set(channel.id, now);
        this.logger.warn(
          { err: error, channelId: channel.id },
          "a channel's app secret cannot be decrypted with the configured keys; its webhooks are refused (said once per 10 minutes)",
        );
      }
      return [];
    }
  }

  /** The routes of one notification received by `received`, read in its transaction `db`. */
  routesFor(db: EntityManager, received: WebhookChannel): Routes {
    const routed = new Map<string, Route>();
    return (account) => this.routeTo(db, received, account, routed);
  }

  /**
   * The channel an event is for. One Meta app has one callback URL for all its numbers (or pages),
   * so an event for another account goes to the organization's channel of that account, if any,
   * and only when that channel is verified by the same app secrets: a channel with its own secret
   * takes nothing signed with another.
   */
  private async routeTo(
    db: EntityManager,
    received: WebhookChannel,
    account: string | undefined,
    routed: Map<string, Route>,
  ): Promise<Route> {
    if (account === undefined || account === received.senderId) return received;
    let route = routed.get(account);
    if (route === undefined) {
      const { kind, organizationId } = received;
      const target = await this.store.findBySenderId(db, kind, organizationId, account);
      route = !target ? 'no_channel' : this.sameSigners(received, target) ? target : 'other_secret';
      routed.set(account, route);
    }
    return route;
  }

  /** Whether the same app secrets verify both channels' notifications. */
  sameSigners(a: WebhookChannel, b: WebhookChannel): boolean {
    if (a.appSecretEncrypted === null || b.appSecretEncrypted === null) {
      return a.appSecretEncrypted === b.appSecretEncrypted;
    }
    const [mine, theirs] = [this.signingSecrets(a), this.signingSecrets(b)];
    return mine.length === 1 && theirs.length === 1 && mine[0] === theirs[0];
  }
}
