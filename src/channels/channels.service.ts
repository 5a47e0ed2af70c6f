import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { SecretBox } from '../common/crypto/secret-box';
import { isUniqueViolation } from '../common/database-errors';
import { ProblemException, notFound, validationFailed } from '../common/http/problem';
import { isUuid, newVerificationToken, uuidv7 } from '../common/ids';
import {
  CreateMessangerChannelDto,
  UpdateMessangerChannelDto,
} from './messanger/messanger-channel.dto';
import {
  CreateWhatsappChannelDto,
  UpdateWhatsappChannelDto,
} from './whatsapp/whatsapp-channel.dto';
import { MessangerChannelEntity } from './messanger/messanger-channel.entity';
import { WhatsappChannelEntity } from './whatsapp/whatsapp-channel.entity';

const numberInUse = (numberId: string) =>
  new ProblemException(
    'conflict',
    `A WhatsApp channel for number_id ${numberId} already exists in this organization.`,
  );

/** The associated data that binds an encrypted token to its row and column. */
export const accessTokenAad = (table: string, id: string) => `${table}:${id}:access_token`;

@Injectable()
export class ChannelsService {
  constructor(
    @InjectRepository(WhatsappChannelEntity)
    private readonly whatsappChannels: Repository<WhatsappChannelEntity>,
    @InjectRepository(MessangerChannelEntity)
    private readonly messangerChannels: Repository<MessangerChannelEntity>,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
  ) {}

  async createWhatsappChannel(
    principal: Principal,
    dto: CreateWhatsappChannelDto,
  ): Promise<WhatsappChannelEntity> {
    const now = new Date(this.clock.now());
    const id = uuidv7(now.getTime());
    const channel = this.whatsappChannels.create({
      id,
      organizationId: principal.organizationId,
      agentId: dto.agent_id,
      numberId: dto.number_id,
      accessTokenEncrypted: this.secrets.encrypt(
        dto.access_token,
        accessTokenAad('whatsapp_channels', id),
      ),
      status: 'active',
      verificationToken: newVerificationToken(),
      createdBy: principal.subject,
      createdAt: now,
      updatedAt: now,
    });
    try {
      await this.whatsappChannels.insert(channel);
    } catch (error) {
      if (isUniqueViolation(error, 'whatsapp_channels_org_number_key'))
        throw numberInUse(dto.number_id);
      throw error;
    }
    return channel;
  }

  async updateWhatsappChannel(
    principal: Principal,
    id: string,
    dto: UpdateWhatsappChannelDto,
  ): Promise<WhatsappChannelEntity> {
    if (dto.access_token === undefined && dto.number_id === undefined) {
      throw validationFailed([], 'Send access_token, number_id or both.');
    }
    const channel = await this.findWhatsappChannel(principal.organizationId, id);
    if (!channel) throw notFound('WhatsApp channel');
    if (dto.number_id !== undefined) channel.numberId = dto.number_id;
    if (dto.access_token !== undefined) {
      channel.accessTokenEncrypted = this.secrets.encrypt(
        dto.access_token,
        accessTokenAad('whatsapp_channels', channel.id),
      );
      // A new token is how an operator repairs a channel that Meta stopped accepting.
      channel.status = 'active';
    }
    channel.updatedAt = new Date(this.clock.now());
    try {
      await this.whatsappChannels.update(
        { id: channel.id, organizationId: principal.organizationId },
        {
          numberId: channel.numberId,
          accessTokenEncrypted: channel.accessTokenEncrypted,
          status: channel.status,
          updatedAt: channel.updatedAt,
        },
      );
    } catch (error) {
      if (isUniqueViolation(error, 'whatsapp_channels_org_number_key'))
        throw numberInUse(channel.numberId);
      throw error;
    }
    return channel;
  }

  /** The organization's WhatsApp channel, or null: another organization's id is not found. */
  private async findWhatsappChannel(
    organizationId: string,
    id: string,
  ): Promise<WhatsappChannelEntity | null> {
    if (!isUuid(id)) return null;
    return this.whatsappChannels.findOneBy({ id, organizationId });
  }

  private async findMessangerChannel(
    organizationId: string,
    id: string,
  ): Promise<MessangerChannelEntity | null> {
    if (!isUuid(id)) return null;
    return this.messangerChannels.findOneBy({ id, organizationId });
  }

  async createMessangerChannel(
    principal: Principal,
    dto: CreateMessangerChannelDto,
  ): Promise<MessangerChannelEntity> {
    const now = new Date(this.clock.now());
    const id = uuidv7(now.getTime());
    const channel = this.messangerChannels.create({
      id,
      organizationId: principal.organizationId,
      agentId: dto.agent_id,
      userId: dto.user_id,
      accessTokenEncrypted: this.secrets.encrypt(
        dto.access_token,
        accessTokenAad('messanger_channels', id),
      ),
      verificationToken: newVerificationToken(),
      createdBy: principal.subject,
      createdAt: now,
      updatedAt: now,
    });
    await this.messangerChannels.insert(channel);
    return channel;
  }

  async updateMessangerChannel(
    principal: Principal,
    id: string,
    dto: UpdateMessangerChannelDto,
  ): Promise<MessangerChannelEntity> {
    const channel = await this.findMessangerChannel(principal.organizationId, id);
    if (!channel) throw notFound('Messanger channel');
    channel.userId = dto.user_id;
    channel.accessTokenEncrypted = this.secrets.encrypt(
      dto.access_token,
      accessTokenAad('messanger_channels', channel.id),
    );
    channel.updatedAt = new Date(this.clock.now());
    await this.messangerChannels.update(
      { id: channel.id, organizationId: principal.organizationId },
      {
        userId: channel.userId,
        accessTokenEncrypted: channel.accessTokenEncrypted,
        updatedAt: channel.updatedAt,
      },
    );
    return channel;
  }
}
