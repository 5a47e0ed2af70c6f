import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Meta's template statuses (`GET /{waba_id}/message_templates`, `status`). */
export const TEMPLATE_STATUSES = [
  'APPROVED',
  'PENDING',
  'REJECTED',
  'PAUSED',
  'DISABLED',
  'IN_APPEAL',
  'PENDING_DELETION',
  'DELETED',
  'LIMIT_EXCEEDED',
  'ARCHIVED',
] as const;

/** Meta's template categories. */
export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;

/** How a template's variables are written: `{{1}}` (POSITIONAL) or `{{first_name}}` (NAMED). */
export type TemplateParameterFormat = 'POSITIONAL' | 'NAMED';

/**
 * One template of a channel's WhatsApp Business Account in one language, as Graph last listed it.
 * `components` are Meta's own objects (HEADER, BODY, FOOTER, BUTTONS), kept as sent.
 */
@Entity({ name: 'whatsapp_templates' })
export class WhatsappTemplateEntity {
  @PrimaryColumn({ name: 'channel_id', type: 'uuid' }) channelId!: string;
  @PrimaryColumn({ type: 'text' }) name!: string;
  @PrimaryColumn({ type: 'text' }) language!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  /** Meta's id of the template. */
  @Column({ name: 'template_id', type: 'text', nullable: true }) templateId!: string | null;
  /** APPROVED, PAUSED, DISABLED... (Meta may add statuses: kept as sent). */
  @Column({ type: 'text' }) status!: string;
  /** MARKETING, UTILITY or AUTHENTICATION; null if Meta did not say. */
  @Column({ type: 'text', nullable: true }) category!: string | null;
  @Column({ name: 'parameter_format', type: 'text' }) parameterFormat!: TemplateParameterFormat;
  @Column({ type: 'jsonb' }) components!: unknown[];
  /** When agentline last wrote this row (a sync or a webhook). */
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
