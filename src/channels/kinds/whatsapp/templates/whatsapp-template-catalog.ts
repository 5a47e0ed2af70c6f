import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { notFound } from '../../../../common/http/problem';
import { toMillis } from '../../../../common/time';
import { findPage, Page } from '../../../../database/find-page';
import { ChannelStore } from '../../../channel-store';
import type { ListWhatsappTemplatesQueryDto, WhatsappTemplateDto } from './whatsapp-template.dto';
import { WhatsappTemplateEntity } from './whatsapp-template.entity';
import type { TemplateParameterFormat } from './whatsapp-template.entity';

/** One template in one language, as the catalog keeps it (Meta's components as sent). */
export interface CatalogTemplate {
  name: string;
  language: string;
  status: string;
  category: string | null;
  parameterFormat: TemplateParameterFormat;
  components: unknown[];
}

/** Which template a send names, on which channel. */
export interface TemplateRef {
  channelId: string;
  name: string;
  language: string;
}

/**
 * What the catalog says of a template: nothing when the channel has no catalog (no business
 * account, or never synced: the template is sent as given); else the template in that language,
 * if the account has it, and the languages the account has it in.
 */
export type TemplateLookup =
  | { catalog: false }
  | { catalog: true; template: CatalogTemplate | undefined; languages: string[] };

interface LookupRow {
  key: number;
  has_catalog: boolean;
  name: string | null;
  language: string | null;
  status: string | null;
  category: string | null;
  parameter_format: TemplateParameterFormat | null;
  components: unknown[] | null;
  languages: string[] | null;
}

/** Reads a WhatsApp channel's template catalog (kept by the catalog sync). */
@Injectable()
export class WhatsappTemplateCatalog {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: ChannelStore,
  ) {}

  /** The organization's channel's catalog, by name then language; another organization's: 404. */
  async list(
    organizationId: string,
    channelId: string,
    query: ListWhatsappTemplatesQueryDto,
  ): Promise<Page<WhatsappTemplateDto>> {
    if (!(await this.store.findOne('whatsapp', organizationId, channelId))) {
      throw notFound('WhatsApp channel');
    }
    const where = {
      organizationId,
      channelId,
      ...(query.name !== undefined && { name: query.name }),
      ...(query.language !== undefined && { language: query.language }),
      ...(query.status !== undefined && { status: query.status }),
    };
    const order = { name: 'ASC', language: 'ASC' } as const;
    const page = await findPage(
      this.dataSource.manager,
      WhatsappTemplateEntity,
      { where, order },
      query,
    );
    return { ...page, items: page.items.map(toTemplateResponse) };
  }

  async lookup(ref: TemplateRef): Promise<TemplateLookup> {
    const [lookup] = await this.lookupMany([ref]);
    return lookup;
  }

  /** One query for a batch, answers in the order asked. */
  async lookupMany(refs: readonly TemplateRef[]): Promise<TemplateLookup[]> {
    if (refs.length === 0) return [];
    const rows: LookupRow[] = await this.dataSource.query(
      `SELECT r.key,
              (c.business_account_id IS NOT NULL AND c.templates_synced_at IS NOT NULL) AS has_catalog,
              t.name, t.language, t.status, t.category, t.parameter_format, t.components,
              (SELECT array_agg(o.language ORDER BY o.language) FROM whatsapp_templates o
                WHERE o.channel_id = r.channel_id AND o.name = r.name) AS languages
         FROM unnest($1::int[], $2::uuid[], $3::text[], $4::text[])
              AS r(key, channel_id, name, language)
         LEFT JOIN whatsapp_channels c ON c.id = r.channel_id
         LEFT JOIN whatsapp_templates t
                ON t.channel_id = r.channel_id AND t.name = r.name AND t.language = r.language`,
      [
        refs.map((_, index) => index),
        refs.map((ref) => ref.channelId),
        refs.map((ref) => ref.name),
        refs.map((ref) => ref.language),
      ],
    );
    const byKey = new Map(rows.map((row) => [Number(row.key), row]));
    return refs.map((_, index) => {
      const row = byKey.get(index);
      if (!row?.has_catalog) return { catalog: false };
      return {
        catalog: true,
        languages: row.languages ?? [],
        template:
          row.name === null
            ? undefined
            : {
                name: row.name,
                language: row.language ?? '',
                status: row.status ?? '',
                category: row.category,
                parameterFormat: row.parameter_format ?? 'POSITIONAL',
                components: row.components ?? [],
              },
      };
    });
  }
}

const toTemplateResponse = (template: WhatsappTemplateEntity): WhatsappTemplateDto => ({
  name: template.name,
  language: template.language,
  status: template.status,
  category: template.category,
  parameter_format: template.parameterFormat,
  components: template.components,
  updated_at: toMillis(template.updatedAt),
});
