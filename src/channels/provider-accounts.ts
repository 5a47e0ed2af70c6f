import { Injectable } from '@nestjs/common';
import { sameSecret } from '../common/crypto/same-secret';
import { SecretBox } from '../common/crypto/secret-box';
import { ChannelStore } from './channel-store';
import type { ChannelKind } from './channel-transport';
import { accessTokenAad } from './channels.service';
import type { StoredChannel } from './kinds/channel-kind';
import { ChannelKinds } from './kinds/channel-kinds';
import { WebhookChannels } from './webhooks/webhook-channels';

/**
 * A channel as its provider sees it: the account, who owns it, whether a token is its token, and
 * the secret the provider signs its webhooks with. What a stand-in for Meta (the sandbox) needs,
 * and nothing more: neither the token nor the secret of another channel leaves this module.
 */
export interface ProviderAccount {
  kind: ChannelKind;
  channelId: string;
  organizationId: string;
  /** The provider's account id: a WhatsApp phone number id, a Page id. */
  senderId: string;
  status: StoredChannel['status'];
  /** The kind's own columns (WhatsApp's `business_account_id`). */
  own: Record<string, unknown>;
  /** Whether `token` is the channel's access token (constant time); false when it cannot be read. */
  acceptsToken(token: string): boolean;
  /**
   * What its webhook notifications are signed with, as the webhook verifies them: its own app
   * secret, else the first configured one; undefined when none would verify them.
   */
  signingSecret: string | undefined;
}

@Injectable()
export class ProviderAccounts {
  constructor(
    private readonly store: ChannelStore,
    private readonly kinds: ChannelKinds,
    private readonly secrets: SecretBox,
    private readonly webhooks: WebhookChannels,
  ) {}

  /** The live channel of this kind bound to the account, in whatever organization. */
  async bySenderId(kind: ChannelKind, senderId: string): Promise<ProviderAccount | undefined> {
    const channel = await this.store.findLiveBySenderId(kind, senderId);
    return channel && this.account(channel);
  }

  /** The live WhatsApp channels on a business account, in whatever organization. */
  async onBusinessAccount(businessAccountId: string): Promise<ProviderAccount[]> {
    const channels = await this.store.findLiveByBusinessAccount(businessAccountId);
    return channels.map((channel) => this.account(channel));
  }

  /** The organization's live channel of this kind; another organization's is not found. */
  async ofOrganization(
    kind: ChannelKind,
    organizationId: string,
    channelId: string,
  ): Promise<ProviderAccount | undefined> {
    const channel = await this.store.findOne(kind, organizationId, channelId);
    return channel && this.account(channel);
  }

  private account(channel: StoredChannel): ProviderAccount {
    const aad = accessTokenAad(this.kinds.get(channel.kind).table, channel.id);
    return {
      kind: channel.kind,
      channelId: channel.id,
      organizationId: channel.organizationId,
      senderId: channel.senderId,
      status: channel.status,
      own: channel.own,
      acceptsToken: (token) => {
        try {
          return sameSecret(token, this.secrets.decrypt(channel.accessTokenEncrypted, aad));
        } catch {
          return false;
        }
      },
      signingSecret: this.webhooks.signingSecrets(channel)[0],
    };
  }
}
